import Foundation
import Lupine
import LupineOpenAPI
import LupineTestServer
import LupineTestSupport
import OpenAPIRuntime
import Testing

/// Cancelling the Swift task that calls or reads cancels the Lupine task, and a connection left
/// in the middle of a response is closed; so does dropping a body unread. Against the test
/// server's fault listener, which answers these paths never, or with a head and no body.
@Suite struct CancellationTests {
    @Test func cancellingTheCallerEndsARequestWaitingForItsHead() async throws {
        let recorder = CompletionRecorder()
        try await withClient(transport: Self.patient, configuring: Self.recording(to: recorder)) { server, manager, _ in
            let faults = Client(serverURL: server.faultsBaseURL, transport: LupineClientTransport(manager: manager))
            let call = Task { try await faults.stallBeforeHeaders() }
            try await waitUntil("the server has the request's connection") { server.connections.open == 1 }
            call.cancel()
            let error = try await #require(throws: ClientError.self) { try await call.value }
            #expect(Self.isCancellation(error.underlyingError), "\(error.underlyingError)")
            // (Whether the connection is closed is the session's choice: it may have been
            // cancelled before the request was written, and then the connection is still clean.)
            try await waitUntil("the Lupine task ends cancelled") { recorder.cancelled == 1 }
        }
    }

    @Test func cancellingTheReaderEndsTheBody() async throws {
        let recorder = CompletionRecorder()
        try await withClient(transport: Self.patient, configuring: Self.recording(to: recorder)) { server, manager, _ in
            let faults = Client(serverURL: server.faultsBaseURL, transport: LupineClientTransport(manager: manager))
            let body = try await faults.stallAfterHeaders().ok.body.binary
            #expect(body.length == .known(100))
            let reading = Task { try await [UInt8](collecting: body, upTo: 1000) }
            reading.cancel()
            let error = await #expect(throws: LupineError.self) { try await reading.value }
            #expect(error.map(Self.isCancellation) == true, "\(String(describing: error))")
            try await waitUntil("the Lupine task ends cancelled") { recorder.cancelled == 1 }
            try await waitUntil("the connection is closed") { server.connections.open == 0 }
        }
    }

    @Test func aBodyDroppedUnreadEndsItsRequest() async throws {
        let recorder = CompletionRecorder()
        try await withClient(transport: Self.patient, configuring: Self.recording(to: recorder)) { server, manager, _ in
            let faults = Client(serverURL: server.faultsBaseURL, transport: LupineClientTransport(manager: manager))
            _ = try await faults.stallAfterHeaders()
            try await waitUntil("the Lupine task ends cancelled") { recorder.cancelled == 1 }
            try await waitUntil("the connection is closed") { server.connections.open == 0 }
        }
    }

    @Test func aBodyReadToItsEndLeavesItsConnectionForTheNextRequest() async throws {
        try await withClient { server, _, client in
            for _ in 0..<3 {
                let body = try await client.getBytes(path: .init(n: 100_000)).ok.body.binary
                let checked = try await DeterministicBody.check(body)
                #expect(checked.count == 100_000 && checked.matches)
            }
            #expect(server.connections.accepted == 1)
        }
    }

    /// A read timeout and a request deadline well past the 60 s these tests wait for a
    /// connection to close, so that only the cancellation can close it in time.
    private static let patient = TransportConfiguration(connectTimeout: .seconds(60), readTimeout: .seconds(600))

    private static func recording(to recorder: CompletionRecorder) -> (HTTPSessionManager) -> Void {
        { manager in
            manager.requestSerializer.timeoutInterval = 600
            manager.eventMonitors = [recorder]
        }
    }

    private static func isCancellation(_ error: any Error) -> Bool {
        if case .cancelled? = error as? LupineError {
            return true
        }
        return false
    }
}
