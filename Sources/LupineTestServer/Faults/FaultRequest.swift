/// A request head read by the fault listener.
struct FaultRequest {
    /// The path of the request target, without the query.
    let path: String
    /// The query of the request target, without `?`.
    let query: String?
    /// Header fields in order, names as sent.
    let headers: [(name: String, value: String)]

    /// The value of the first header named `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
