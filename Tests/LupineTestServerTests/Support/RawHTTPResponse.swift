import Foundation

/// A response as read off the wire by ``RawHTTPClient``.
struct RawHTTPResponse {
    var statusLine: String
    var headers: [(name: String, value: String)]
    var body: [UInt8] = []

    /// The status code, or 0 when the status line has none.
    var status: Int {
        let parts = statusLine.split(separator: " ")
        return parts.count > 1 ? Int(parts[1]) ?? 0 : 0
    }

    /// The first value of header `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every value of header `name`.
    func headers(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// `X-Lupine-Connection-ID` as a number.
    var connectionID: Int? {
        header("X-Lupine-Connection-ID").flatMap { Int($0) }
    }

    var text: String {
        String(decoding: body, as: UTF8.self)
    }

    /// The body as a JSON object.
    func jsonObject() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw RawHTTPClient.Failure.unexpected("body is not a JSON object: \(text)")
        }
        return object
    }
}
