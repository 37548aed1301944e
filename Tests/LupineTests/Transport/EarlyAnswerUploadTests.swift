import Foundation
import LupineTestServer
import LupineTestSupport
import NIOCore
import Testing

@testable import Lupine
@testable import LupineTransport

/// The test server answering an upload before it has read it all (a 413 for a body over its
/// limit, with or without `Expect: 100-continue`, then a close): the request ends with that
/// answer or a typed error, and never waits for a body source the server no longer reads.
@Suite(.timeLimit(.minutes(5))) struct EarlyAnswerUploadTests {
    @Test(arguments: [false, true])
    func anUploadOverTheServersLimitEndsWithItsAnswer(expectContinue: Bool) async throws {
        var server = LupineTestServer.Configuration()
        server.maximumRequestBodySize = 1 << 20
        try await withServerAndTransport(server: server) { server, transport in
            for round in 0..<10 {
                let (chunks, source) = AsyncStream.makeStream(of: ByteBuffer.self, bufferingPolicy: .bufferingNewest(4))
                // 16 MiB offered, with no end: after the answer, only a cancel ends the source.
                let feeder = Task {
                    for _ in 0..<256 {
                        source.yield(ByteBuffer(repeating: UInt8(ascii: "u"), count: 64 << 10))
                        await Task.yield()
                    }
                }
                var headers: HTTPHeaders = [:]
                if expectContinue { headers.add(name: "Expect", value: "100-continue") }
                let request = TransportRequest(
                    method: .POST,
                    url: server.baseURL.appending("/anything"),
                    headers: headers,
                    body: .stream(chunks, length: 16 << 20),
                    cancellation: TransportCancellation()
                )
                let result = await Result(catching: { try await transport.fetch(request) })
                feeder.cancel()
                source.finish()
                switch result {
                case .success(let (response, _)):
                    #expect(response.status == .payloadTooLarge, "round \(round)")
                case .failure(let error):
                    #expect(error is TransportError, "round \(round): \(error)")
                }
            }
            #expect(transport.connectionPoolStatistics().allSatisfy { $0.open == $0.idle })
        }
    }
}
