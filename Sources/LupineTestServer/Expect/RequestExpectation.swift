/// What a request's `Expect` fields ask of the server (RFC 9110 §10.1.1).
///
/// `Expect` is a comma-separated list and may be repeated; members compare case-insensitively.
/// The only expectation this server meets is `100-continue`.
enum RequestExpectation: Equatable {
    /// No `Expect` field, or only empty members.
    case none
    /// `100-continue`, alone or repeated: the client waits for an interim 100 before sending its body.
    case continueBeforeBody
    /// A member other than `100-continue` (the first one, as sent), which the server cannot meet.
    case unsupported(String)

    /// Reads the values of every `Expect` field of a request.
    init(fieldValues: some Sequence<String>) {
        var expectation = RequestExpectation.none
        for value in fieldValues {
            for member in value.split(separator: ",") {
                let trimmed = member.trimmingWhitespace()
                if trimmed.isEmpty { continue }
                guard trimmed.lowercased() == "100-continue" else {
                    self = .unsupported(String(trimmed))
                    return
                }
                expectation = .continueBeforeBody
            }
        }
        self = expectation
    }
}

extension Substring {
    /// The substring without leading and trailing spaces and tabs (HTTP's optional whitespace).
    fileprivate func trimmingWhitespace() -> Substring {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isWhitespace($0) }),
            let last = lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        return self[first...last]
    }
}
