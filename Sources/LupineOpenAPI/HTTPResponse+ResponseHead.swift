import HTTPTypes
import Lupine

extension HTTPResponse {
    /// The runtime's form of a Lupine response head: its status, reason phrase and header fields
    /// in order, a name given several times kept as several fields.
    ///
    /// - Throws: `LupineError.transport(_:)` with `TransportError.invalidResponse(reason:)`
    ///   for a status code beyond 999 or a field name that is not a token, which HTTP's types
    ///   cannot hold (Lupine's HTTP parser lets neither through).
    init(_ head: ResponseHead) throws(LupineError) {
        let code = head.statusCode
        guard (0...999).contains(code) else {
            throw .transport(.invalidResponse(reason: "the server's response has the status code \(code), beyond 999"))
        }
        var fields = HTTPFields()
        fields.reserveCapacity(head.headers.count)
        for (name, value) in head.headers {
            guard let fieldName = HTTPField.Name(name) else {
                throw .transport(.invalidResponse(reason: "the server's response has a header field name that is not a token"))
            }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        self.init(status: Status(code: code, reasonPhrase: head.status.reasonPhrase), headerFields: fields)
    }
}
