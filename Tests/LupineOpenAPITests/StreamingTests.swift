import Foundation
import HTTPTypes
import Lupine
import LupineOpenAPI
import LupineTestServer
import OpenAPIRuntime
import Testing

/// Bodies stream both ways through the generated client: downloads with and without a length,
/// uploads with a length (`Content-Length`) and without (chunked).
@Suite struct StreamingTests {
    static let length = 3 * 1024 * 1024 + 17

    /// What these tests check is the streaming, not its speed: a 3 MiB body on a machine busy
    /// with the rest of the suite may take longer than the default 60 s.
    static func patient(_ manager: HTTPSessionManager) {
        manager.requestSerializer.base.timeoutInterval = 600
    }

    @Test func aDownloadWithALengthStreamsAndSaysItsLength() async throws {
        try await withClient(configuring: Self.patient) { _, _, client in
            let body = try await client.getBytes(path: .init(n: Self.length)).ok.body.binary
            #expect(body.length == .known(Int64(Self.length)))
            #expect(body.iterationBehavior == .single)
            let checked = try await DeterministicBody.check(body)
            #expect(checked.count == Self.length && checked.matches)
        }
    }

    @Test func aChunkedDownloadStreams() async throws {
        try await withClient(configuring: Self.patient) { _, _, client in
            let body = try await client.getStreamBytes(path: .init(n: Self.length)).ok.body.binary
            #expect(body.length == .unknown)
            let checked = try await DeterministicBody.check(body)
            #expect(checked.count == Self.length && checked.matches)
        }
    }

    @Test func anUploadWithALengthIsSentWithContentLength() async throws {
        try await withClient(configuring: Self.patient) { _, _, client in
            let body = DeterministicBody.upload(length: Self.length)
            let receipt = try await client.upload(body: .binary(body)).ok.body.json
            #expect(receipt.bytes == Int64(Self.length))
            #expect(receipt.contentLength == String(Self.length))
            #expect(receipt.contentType == "application/octet-stream")
        }
    }

    @Test func anUploadWithoutALengthIsSentChunked() async throws {
        try await withClient(configuring: Self.patient) { _, _, client in
            let body = DeterministicBody.upload(length: Self.length, declaresLength: false)
            let receipt = try await client.upload(body: .binary(body)).ok.body.json
            #expect(receipt.bytes == Int64(Self.length))
            #expect(receipt.contentLength == nil)
        }
    }

    @Test func aContentLengthTheRequestGivesFramesOnlyABodyOfUnknownLength() async throws {
        try await withClient { server, manager, _ in
            // A middleware's `Content-Length: 1000`: the length of a body that does not know its
            // own, never a second framing beside the body's own length.
            let client = Client(
                serverURL: server.baseURL,
                transport: LupineClientTransport(manager: manager),
                middlewares: [AddingFields([HTTPField(name: .contentLength, value: "1000")])]
            )
            for declaresLength in [false, true] {
                let length = declaresLength ? 2000 : 1000
                let body = DeterministicBody.upload(length: length, declaresLength: declaresLength)
                let receipt = try await client.upload(body: .binary(body)).ok.body.json
                #expect(receipt.bytes == Int64(length))
                #expect(receipt.contentLength == String(length))
            }
        }
    }

    @Test func aBodyThatFailsFailsTheRequestWithTheBodysError() async throws {
        try await withClient { server, manager, _ in
            let transport = LupineClientTransport(manager: manager)
            let (chunks, continuation) = AsyncThrowingStream<HTTPBody.ByteChunk, any Error>.makeStream()
            continuation.yield([1, 2, 3])
            continuation.finish(throwing: BodyFailure())
            let request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/upload")
            let error = await #expect(throws: LupineError.self) {
                try await transport.send(request, body: HTTPBody(chunks, length: .unknown), baseURL: server.baseURL, operationID: "upload")
            }
            guard case .transport(.requestBodyFailed(let underlying))? = error else {
                Issue.record("expected the body's failure, got \(String(describing: error))")
                return
            }
            #expect(underlying is BodyFailure)
        }
    }

    private struct BodyFailure: Error {}
}
