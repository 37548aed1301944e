import Lupine
import Testing

/// Expects `body` to fail with the transport's cancellation error.
func expectTransportCancelled<R>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> R) async {
    await #expect(sourceLocation: sourceLocation) {
        _ = try await body()
    } throws: { error in
        guard case TransportError.cancelled = error else { return false }
        return true
    }
}

/// Expects `body` to fail with the session's cancellation error.
func expectSessionCancelled<R>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> R) async {
    await #expect(sourceLocation: sourceLocation) {
        _ = try await body()
    } throws: { error in
        guard case LupineError.cancelled = error else { return false }
        return true
    }
}

/// Expects `body` to fail with the transport's whole-request deadline error.
func expectRequestTimeout<R>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> R) async {
    await #expect(sourceLocation: sourceLocation) {
        _ = try await body()
    } throws: { error in
        guard case TransportError.requestTimeout = error else { return false }
        return true
    }
}
