import Foundation
import Lupine
import LupineTestServer
import NIOCore
import Testing

/// `SessionManager.stream(_:receiveHead:receiveChunk:)`: the final head, then every body byte in
/// order, none of it kept; a handler's error ends the task as itself or as `handlerFailed`.
@Suite struct StreamTests {
    private struct Refused: Error {}

    @Test func theBodyArrivesInOrderAfterTheFinalHead() async throws {
        try await withSessionManager { server, manager in
            let received = Recorder<ByteBuffer>()
            let heads = Recorder<Int>()
            let request = Request(url: server.baseURL.appending(path: "redirect-to").appending(queryItems: [URLQueryItem(name: "url", value: "/bytes/300000")]))
            let response = try await manager.stream(request, receiveHead: { heads.append($0.statusCode) }, receiveChunk: { received.append($0) })
            #expect(heads.all == [200])
            #expect(response.head?.statusCode == 200 && response.data.isEmpty)
            #expect(received.all.flatMap { Array($0.readableBytesView) } == DeterministicBytes.bytes(in: 0..<300_000))
        }
    }

    @Test func aHandlerErrorEndsTheTask() async throws {
        try await withSessionManager { server, manager in
            let request = Request(url: server.baseURL.appending(path: "bytes/300000"))
            await #expect {
                _ = try await manager.stream(request) { _ in throw Refused() }
            } throws: { error in
                guard case LupineError.responseSerializationFailed(.handlerFailed(let underlying)) = error else { return false }
                return underlying is Refused
            }
            await #expect {
                _ = try await manager.stream(request, receiveHead: { _ in throw LupineError.cancelled }) { _ in }
            } throws: { error in
                guard case LupineError.cancelled = error else { return false }
                return true
            }
        }
    }
}
