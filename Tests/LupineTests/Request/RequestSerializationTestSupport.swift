import Foundation
import Testing

@testable import Lupine

extension Request {
    /// The in-memory body, or `nil` when the body is not `.bytes`.
    var bodyBytes: [UInt8]? {
        if case .bytes(let bytes) = body { bytes } else { nil }
    }

    /// The in-memory body as UTF-8 text, or `nil` when the body is not `.bytes`.
    var bodyText: String? {
        bodyBytes.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether the request has no body at all.
    var hasNoBody: Bool {
        if case .none = body { true } else { false }
    }
}

/// Why parameters failed to encode, from an error that must be `parameterEncodingFailed`.
func parameterEncodingReason(
    of error: (any Error)?,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> LupineError.ParameterEncodingFailureReason {
    guard case .parameterEncodingFailed(let reason) = error as? LupineError else {
        Issue.record("expected LupineError.parameterEncodingFailed, got \(String(describing: error))", sourceLocation: sourceLocation)
        throw UnexpectedError()
    }
    return reason
}

/// Thrown by test helpers after recording an issue, to stop the test.
struct UnexpectedError: Error {}

/// A distinguishable error for closures under test to throw.
struct SentinelError: Error, Equatable {
    var tag: String
}
