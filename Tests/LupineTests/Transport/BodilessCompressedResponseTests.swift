import Foundation
import Lupine
import LupineTestServer
import NIOCore
import Testing

/// A response that names an encoding but has no body, as servers send them: a `HEAD`'s (the
/// fields a `GET` would get) and a `304` carrying the stored response's `Content-Encoding`. There
/// is nothing to inflate, so nothing fails, and the head arrives as it came (curl's `-I
/// --compressed` and its revalidations do the same).
@Suite struct BodilessCompressedResponseTests {
    @Test func aHeadOfAGzipResourceArrivesWithItsEncodingAndNoError() async throws {
        try await withServerAndTransport { server, transport in
            let request = TransportRequest(method: .HEAD, url: server.baseURL.appending("/gzip"), cancellation: TransportCancellation())
            let (response, body) = try await transport.fetch(request)
            #expect(response.status == .ok)
            #expect(response.headers.first(name: "Content-Encoding") == "gzip")
            #expect(body.readableBytes == 0)
            // The connection is sound: a compressed GET on the transport inflates.
            let (_, inflated) = try await transport.fetch(TransportRequest(url: server.baseURL.appending("/gzip"), cancellation: TransportCancellation()))
            #expect(String(decoding: inflated.readableBytesView, as: UTF8.self).contains("\"gzipped\""))
        }
    }

    @Test func aNotModifiedNamingGzipArrivesWithoutAnError() async throws {
        try await withServerAndTransport { server, transport in
            // The conditional request gets a 304 naming gzip, as a server storing gzip bodies sends.
            let url = countedURL(server, "gzip-304", [("ETag", "\"z\""), ("Cache-Control", "max-age=0"), ("Content-Encoding", "gzip")])
            let request = TransportRequest(url: url, headers: ["If-None-Match": "\"z\""], cancellation: TransportCancellation())
            let (response, body) = try await transport.fetch(request)
            #expect(response.status == .notModified)
            #expect(response.headers.first(name: "Content-Encoding") == "gzip")
            #expect(body.readableBytes == 0)
            #expect(server.counted("gzip-304").conditional == 1)
        }
    }
}
