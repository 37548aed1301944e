import Foundation
import Hummingbird

/// Builds the request-describing JSON objects that httpbin returns (`args`, `headers`, `form`, ...).
struct RequestEcho {
    /// The keys an endpoint includes in its body, named as httpbin names them.
    enum Field {
        case args, data, files, form, headers, json, method, origin, url

        static let get: Set<Field> = [.args, .headers, .origin, .url]
        static let body: Set<Field> = [.args, .data, .files, .form, .headers, .json, .origin, .url]
        static let anything: Set<Field> = body.union([.method])
    }

    let request: Request
    let context: TestServerRequestContext
    /// `http` or `https`, for `url`.
    let scheme: String
    /// The limits within which the body is read.
    let bodyBudget: RequestBodyBudget

    /// The JSON object holding `fields`, reading the request body if any of them needs it.
    func object(_ fields: Set<Field>) async throws -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        if fields.contains(.args) { object["args"] = args }
        if fields.contains(.headers) { object["headers"] = headers }
        if fields.contains(.method) { object["method"] = .string(request.method.rawValue) }
        if fields.contains(.origin) { object["origin"] = origin }
        if fields.contains(.url) { object["url"] = .string(url) }
        if !fields.isDisjoint(with: [.data, .files, .form, .json]) {
            let headers = request.headers
            let body = try await bodyBudget.withBody(of: request) { try Self.body($0, headers: headers) }
            if fields.contains(.data) { object["data"] = body.data }
            if fields.contains(.files) {
                object["files"] = body.files
                // Lupine's addition to httpbin's shape: the file names a multipart body sent.
                if let fileNames = body.fileNames { object["file_names"] = fileNames }
            }
            if fields.contains(.form) { object["form"] = body.form }
            if fields.contains(.json) { object["json"] = body.json }
        }
        return object
    }

    /// Query parameters; a repeated name becomes an array.
    var args: JSONValue {
        let pairs = FormURLEncoding.parse(request.uri.query ?? "")
        return JSONValue.multiValueObject(pairs.map { ($0.name, .string($0.value)) })
    }

    /// Request headers with title-cased names; repeated headers are joined with commas.
    var headers: JSONValue {
        var headers: [String: [String]] = [:]
        if let authority = request.head.authority {
            headers["Host"] = [authority]
        }
        for field in request.headers {
            headers[Self.titleCased(field.name.rawName), default: []].append(field.value)
        }
        return .object(headers.mapValues { .string($0.joined(separator: ",")) })
    }

    /// The peer's IP address.
    var origin: JSONValue {
        .string(context.channel.remoteAddress?.ipAddress ?? "")
    }

    /// The absolute URL the client asked for.
    var url: String {
        "\(scheme)://\(request.head.authority ?? "localhost")\(request.uri.string)"
    }

    private struct Body {
        var data: JSONValue = .string("")
        var files: JSONValue = .object([:])
        /// For a multipart body, each file field's `filename`.
        var fileNames: JSONValue?
        var form: JSONValue = .object([:])
        var json: JSONValue = .null
    }

    private static func body(_ bytes: [UInt8], headers: HTTPFields) throws -> Body {
        let contentType = HeaderValueParameters(headers[.contentType] ?? "")
        var body = Body()
        switch contentType.value {
        case "application/x-www-form-urlencoded":
            let pairs = FormURLEncoding.parse(String(decoding: bytes, as: UTF8.self))
            body.form = JSONValue.multiValueObject(pairs.map { ($0.name, .string($0.value)) })
        case "multipart/form-data":
            guard let boundary = contentType.parameters["boundary"],
                let multipart = MultipartFormData(body: bytes, boundary: boundary)
            else {
                throw HTTPError(.badRequest, message: "Malformed multipart/form-data body")
            }
            let fields = multipart.parts.filter { $0.filename == nil }
            let files = multipart.parts.filter { $0.filename != nil }
            body.form = JSONValue.multiValueObject(fields.map { ($0.name, Self.text($0.content)) })
            body.files = JSONValue.multiValueObject(files.map { ($0.name, Self.text($0.content)) })
            body.fileNames = JSONValue.multiValueObject(files.map { ($0.name, .string($0.filename ?? "")) })
        default:
            let text = String(bytes: bytes, encoding: .utf8)
            body.data = .string(text ?? Self.dataURL(bytes))
            // JSON is UTF-8 text: a body that is not is never parsed (nor copied to try).
            body.json = text == nil || bytes.isEmpty ? .null : JSONValue.parse(bytes) ?? .null
        }
        return body
    }

    /// UTF-8 text as a string; anything else as a base64 `data:` URL, as httpbin does.
    private static func text(_ bytes: [UInt8]) -> JSONValue {
        .string(String(bytes: bytes, encoding: .utf8) ?? dataURL(bytes))
    }

    /// Bytes as a base64 `data:` URL.
    private static func dataURL(_ bytes: [UInt8]) -> String {
        "data:application/octet-stream;base64,\(Data(bytes).base64EncodedString())"
    }

    /// `content-type` becomes `Content-Type`.
    private static func titleCased(_ name: String) -> String {
        name.split(separator: "-", omittingEmptySubsequences: false)
            .map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }
            .joined(separator: "-")
    }
}
