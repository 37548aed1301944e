import Foundation
import LupineTestServer
import LupineTestSupport
import Testing

/// `Expect: 100-continue` on the main listener, over a raw socket. A read that waits for a 100
/// the server never sends ends at the socket's receive timeout and fails the test; nothing here
/// is timed.
@Suite("Expect: 100-continue")
struct ExpectContinueTests {
    private static let interimContinue = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Bytes that differ along their length, so a truncated or shifted body shows.
    private static func body(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    }

    /// A request head with `Content-Length: length` and the given extra lines, without its body.
    private static func head(
        _ method: String = "POST",
        _ target: String = "/upload",
        version: String = "HTTP/1.1",
        length: Int?,
        _ lines: [String] = ["Expect: 100-continue"]
    ) -> [UInt8] {
        let framing = length.map { ["Content-Length: \($0)"] } ?? []
        let text = (["\(method) \(target) \(version)", "Host: x"] + lines + framing).joined(separator: "\r\n")
        return Array((text + "\r\n\r\n").utf8)
    }

    /// Reads the 100 Continue the server owes before the body is sent.
    private static func expectContinue(on client: RawHTTPClient) async throws {
        let interim = try await client.read(count: Self.interimContinue.count)
        #expect(String(decoding: interim, as: UTF8.self) == String(decoding: Self.interimContinue, as: UTF8.self))
    }

    /// Reads an `/upload` answer and checks it counted `count` body bytes.
    private static func expectUploaded(_ count: Int, on client: RawHTTPClient) async throws {
        let response = try await client.readResponse(method: "POST")
        #expect(response.status == 200)
        #expect(try response.jsonObject()["bytes"] as? Int == count)
    }

    @Test(.timeLimit(.minutes(5)))
    func continueComesBeforeTheBodyIsSentAndOnlyWhenAsked() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            try await client.send(Self.head(length: 200_000))
            try await Self.expectContinue(on: client)
            try await client.send(Self.body(200_000))
            try await Self.expectUploaded(200_000, on: client)

            // The same connection, without Expect: the first thing back is the final response.
            try await client.sendRequest("POST", "/upload", body: Self.body(3000))
            try await Self.expectUploaded(3000, on: client)

            // A chunked body waits for its 100 just the same.
            try await client.send(Self.head(length: nil, ["Expect: 100-continue", "Transfer-Encoding: chunked"]))
            try await Self.expectContinue(on: client)
            try await client.send(Array("5\r\nhello\r\n3\r\n, w\r\n0\r\n\r\n".utf8))
            try await Self.expectUploaded(8, on: client)

            // An echo endpoint reads the body after reserving it, and echoes it exactly.
            let echoed = Self.body(5000)
            try await client.send(Self.head("PUT", "/put", length: echoed.count))
            try await Self.expectContinue(on: client)
            try await client.send(echoed)
            let response = try await client.readResponse(method: "PUT")
            #expect(response.status == 200)
            #expect(try response.jsonObject()["data"] as? String == "data:application/octet-stream;base64,\(Data(echoed).base64EncodedString())")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func aRequestRefusedOnItsHeadersGetsItsFinalStatusInsteadOfContinue() async throws {
        // Over the per-request cap: 413; within it but beyond the budget: 503.
        let limits = LupineTestServer.Configuration(requestHeadTimeout: .seconds(60), maximumRequestBodySize: 2000, requestBodyBudget: 1000)
        try await withTestServer(limits) { server in
            for (length, status) in [(5000, 413), (1500, 503)] {
                let client = try await server.connect()
                try await client.send(Self.head("POST", "/post", length: length))
                let response = try await client.readResponse(method: "POST")
                #expect(response.status == status)
                #expect(response.header("Connection")?.lowercased() == "close")
                #expect(await client.isClosedByServer())
            }
            #expect(server.requestBodies.rejectedRequests == 2)
            #expect(server.requestBodies.bufferedBytes == 0)
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func requestsWithoutABodyGetNoContinue() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            try await client.send(Self.head("GET", "/get", length: nil))
            let get = try await client.readResponse()
            #expect(get.status == 200)
            try await client.send(Self.head(length: 0))
            try await Self.expectUploaded(0, on: client)
        }
    }
}
