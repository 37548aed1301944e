import Foundation
import Lupine
import LupineTestSupport
import NIOCore
import Testing

/// A response that breaks in the very read that brought its head (a malformed chunk, a body
/// cut short by a close or a reset) gives its caller the head and then a body error, or an
/// error: never a body that ends as if it were whole.
@Suite(.timeLimit(.minutes(5))) struct ResponseErrorAfterHeadTests {
    /// How a scripted server breaks the response after `bytes`.
    enum Ending: Sendable, CustomStringConvertible {
        case staysOpen
        case close
        case reset

        var description: String {
            switch self {
            case .staysOpen: "stays open"
            case .close: "closes"
            case .reset: "resets"
            }
        }
    }

    static let cases: [(bytes: String, ending: Ending)] = [
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nZZ\r\n", .staysOpen),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", .close),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", .reset),
        ("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b", .close),
        ("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b", .reset),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello", .staysOpen),
        ("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 12\r\n\r\nnot gzipped!", .staysOpen),
    ]

    @Test(arguments: Self.cases)
    func aResponseBrokenInTheReadOfItsHeadEndsInAnError(bytes: String, ending: Ending) async throws {
        try await withScriptedServerAndTransport { server, transport in
            let request = TransportRequest(url: server.url.appending("/broken"), cancellation: TransportCancellation())
            async let outcome = Self.outcome(of: request, on: transport)
            let connection = try await server.nextConnection()
            #expect(await connection.readRequestHead() != nil)
            try await connection.write(bytes)
            switch ending {
            case .staysOpen: break
            case .close: try await connection.close()
            case .reset: try await connection.close(reset: true)
            }
            switch await outcome {
            case .success(let body):
                Issue.record("a broken response (\(ending)) ended as whole, with \(body.readableBytes) body bytes")
            case .failure(let error):
                #expect(error is TransportError, "\(error)")
            }
            if case .staysOpen = ending {
                // The client gives up on the connection; a server that stays open learns it.
                await connection.waitForClientClose()
            }
        }
    }

    /// The whole exchange: the head, then the whole body, or the first error on the way.
    private static func outcome(of request: TransportRequest, on transport: NIOTransport) async -> Result<ByteBuffer, any Error> {
        do {
            return .success(try await transport.fetch(request).1)
        } catch {
            return .failure(error)
        }
    }
}
