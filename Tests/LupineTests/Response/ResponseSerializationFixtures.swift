import Foundation
import Testing

@testable import Lupine

/// Response heads, requests and error matchers for the serializer tests: plain values, no network.
enum ResponseFixture {
    /// A head for `https://example.com/resource` with `status` and, when given, `Content-Type`.
    static func head(_ status: HTTPResponseStatus = .ok, contentType: String? = nil) throws -> ResponseHead {
        var headers = HTTPHeaders()
        if let contentType {
            headers.add(name: "Content-Type", value: contentType)
        }
        return ResponseHead(status: status, headers: headers, url: try #require(URL(string: "https://example.com/resource")))
    }

    /// A request for `https://example.com/resource` with `method`.
    static func request(_ method: HTTPMethod = .GET) throws -> Request {
        Request(url: try #require(URL(string: "https://example.com/resource")), method: method)
    }

    /// The UTF-8 bytes of `text`.
    static func bytes(_ text: String) -> [UInt8] {
        Array(text.utf8)
    }
}

/// Which serialization failure an error is, without its free-text reason.
enum SerializationFailure: Equatable {
    case json
    case decoding
    case string(encoding: String)
    case xml
    case propertyList
    case empty
}

extension LupineError {
    /// The code and body of an unacceptable-status-code error.
    var unacceptableStatus: (code: Int, body: [UInt8])? {
        guard case .responseValidationFailed(.unacceptableStatusCode(let code, _, let body, _)) = self else { return nil }
        return (code, body)
    }

    /// The content type and acceptable types of an unacceptable-content-type error.
    var unacceptableContentType: (contentType: String?, acceptable: [String])? {
        guard case .responseValidationFailed(.unacceptableContentType(let contentType, let acceptable, _, _)) = self else {
            return nil
        }
        return (contentType, acceptable)
    }

    /// Which serialization failure this is, if one.
    var serializationFailure: SerializationFailure? {
        guard case .responseSerializationFailed(let reason) = self else { return nil }
        switch reason {
        case .jsonSerializationFailed: return .json
        case .decodingFailed: return .decoding
        case .stringSerializationFailed(let encoding): return .string(encoding: encoding)
        case .xmlParsingFailed: return .xml
        case .propertyListSerializationFailed: return .propertyList
        case .inputDataNilOrZeroLength: return .empty
        case .handlerFailed, .imageSerializationFailed: return nil
        }
    }

    /// The free-text reason of a serialization failure, if it has one.
    var serializationFailureReason: String? {
        guard case .responseSerializationFailed(let reason) = self else { return nil }
        switch reason {
        case .jsonSerializationFailed(let why), .decodingFailed(let why), .xmlParsingFailed(let why),
            .propertyListSerializationFailed(let why):
            return why
        case .stringSerializationFailed, .inputDataNilOrZeroLength, .handlerFailed, .imageSerializationFailed:
            return nil
        }
    }
}
