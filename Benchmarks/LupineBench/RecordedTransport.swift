import Foundation
import Lupine
import NIOCore
import NIOHTTP1

/// A transport that answers every request with one response recorded from the real server, so
/// that the session layer's own cost can be measured without the network's noise.
struct RecordedTransport: Transport {
    let status: HTTPResponseStatus
    let headers: HTTPHeaders
    let body: ByteBuffer

    /// Records the response to `url` on a real transport.
    static func record(_ url: URL, headers: HTTPHeaders) async throws -> RecordedTransport {
        let transport = NIOTransport()
        defer { Task { await transport.shutdown() } }
        let response = try await transport.execute(TransportRequest(url: url, headers: headers, cancellation: TransportCancellation()))
        let body = try await response.body.collect(upTo: 1 << 20)
        return RecordedTransport(status: response.status, headers: response.headers, body: body)
    }

    /// It never waits, so the handle is honoured by refusing a cancelled request at once.
    func execute(_ request: TransportRequest) async throws -> TransportResponse {
        if request.cancellation.isCancelled {
            throw TransportError.cancelled
        }
        return TransportResponse(status: self.status, headers: self.headers, url: request.url, body: ResponseBody([self.body]))
    }

    func shutdown() async {}
}
