import Foundation
import LupineTestServer
import LupineTestSupport
import Testing

@Suite("Request-body limits")
struct RequestBodyLimitTests {
    /// Uploads held open mid-body while a test goes on must not meet the stalled-body deadline.
    private static let smallBudget = LupineTestServer.Configuration(
        requestHeadTimeout: .seconds(60),
        maximumRequestBodySize: 64_000,
        requestBodyBudget: 100_000
    )
    /// Text of `count` bytes that differs along its length, so a truncated or shifted echo shows.
    private static func text(_ count: Int, seed: Int = 0) -> [UInt8] {
        (0..<count).map { UInt8(ascii: "a") + UInt8((($0 &* 7) &+ seed) % 26) }
    }

    /// `body` sent in `chunkSize` chunks with chunked transfer encoding.
    private static func chunked(_ body: [UInt8], chunkSize: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for start in stride(from: 0, to: body.count, by: chunkSize) {
            let chunk = body[start..<min(start + chunkSize, body.count)]
            bytes += Array((String(chunk.count, radix: 16) + "\r\n").utf8) + chunk + Array("\r\n".utf8)
        }
        return bytes + Array("0\r\n\r\n".utf8)
    }

    private static func chunkedHead(_ path: String) -> [UInt8] {
        Array("POST \(path) HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
    }

    /// Reads the response on `client` and checks it is a JSON error with `status` that closes the
    /// connection, and that the server then closes it.
    private static func expectRejection(on client: RawHTTPClient, status: Int) async throws {
        let response = try await client.readResponse(method: "POST")
        #expect(response.status == status)
        #expect(response.header("Connection")?.lowercased() == "close")
        let error = try #require(try response.jsonObject()["error"] as? [String: Any])
        #expect((error["message"] as? String)?.isEmpty == false)
        #expect(await client.isClosedByServer())
    }

    @Test(.timeLimit(.minutes(5)))
    func bodyOverTheCapIsAnswered413AndTheConnectionClosed() async throws {
        try await withTestServer(.init(requestHeadTimeout: .seconds(60), maximumRequestBodySize: 1000)) { server in
            let declared = try await server.connect()
            try await declared.sendRequest("POST", "/post", body: Self.text(1001))
            try await Self.expectRejection(on: declared, status: 413)

            let streamed = try await server.connect()
            try await streamed.send(Self.chunkedHead("/anything") + Self.chunked(Self.text(1200), chunkSize: 400))
            try await Self.expectRejection(on: streamed, status: 413)

            // A body as large as the cap echoes exactly; /upload keeps nothing and has no cap.
            let client = try await server.connect()
            let binary = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 31 + 0x80) }
            let echoed = try await client.request("PUT", "/put", body: binary)
            #expect(echoed.status == 200)
            #expect(try echoed.jsonObject()["data"] as? String == "data:application/octet-stream;base64,\(Data(binary).base64EncodedString())")
            let upload = try await client.request("POST", "/upload", body: Self.text(100_000))
            #expect(try upload.jsonObject()["bytes"] as? Int == 100_000)
            #expect(server.requestBodies.bufferedBytes == 0)
            #expect(server.requestBodies.rejectedRequests == 2)
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func budgetRefusesWhatDoesNotFitAndIsReturnedAfterwards() async throws {
        try await withTestServer(Self.smallBudget) { server in
            // A holds 60,000 bytes while its body is still arriving.
            let first = Self.text(60_000, seed: 1)
            let holder = try await server.connect()
            try await holder.send(Array("POST /post HTTP/1.1\r\nHost: x\r\nContent-Length: 60000\r\n\r\n".utf8) + first[..<1000])
            try await waitUntil("server.requestBodies.bufferedBytes == 60_000") { server.requestBodies.bufferedBytes == 60_000 }

            let declared = try await server.connect()
            try await declared.sendRequest("POST", "/post", body: Self.text(60_000))
            try await Self.expectRejection(on: declared, status: 503)

            let streamed = try await server.connect()
            try await streamed.send(Self.chunkedHead("/post") + Self.chunked(Self.text(50_000), chunkSize: 10_000))
            try await Self.expectRejection(on: streamed, status: 503)

            do {
                // Leaves mid-body: its reservation comes back when the connection goes.
                let leaver = try await server.connect()
                try await leaver.send(Array("PATCH /patch HTTP/1.1\r\nHost: x\r\nContent-Length: 30000\r\n\r\nabc".utf8))
                try await waitUntil("server.requestBodies.bufferedBytes == 90_000") { server.requestBodies.bufferedBytes == 90_000 }
            }
            try await waitUntil("server.requestBodies.bufferedBytes == 60_000") { server.requestBodies.bufferedBytes == 60_000 }

            try await holder.send(Array(first[1000...]))
            let echoed = try await holder.readResponse(method: "POST")
            #expect(echoed.status == 200)
            #expect(try echoed.jsonObject()["data"] as? String == String(decoding: first, as: UTF8.self))
            #expect(server.requestBodies.bufferedBytes == 0)
            #expect(server.requestBodies.peakBufferedBytes <= 100_000)
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func overlappingUploadsStayWithinTheBudget() async throws {
        try await withTestServer(Self.smallBudget) { server in
            // Twelve uploads of 30,000 bytes, half with Content-Length and half chunked, all begun
            // before any ends: 360,000 bytes if the server held them all.
            var uploads: [(client: RawHTTPClient, body: [UInt8], rest: [UInt8])] = []
            for index in 0..<12 {
                let body = Self.text(30_000, seed: index)
                let client = try await server.connect()
                let wire: [UInt8]
                if index.isMultiple(of: 2) {
                    wire = Array("POST /anything/\(index) HTTP/1.1\r\nHost: x\r\nContent-Length: 30000\r\n\r\n".utf8) + body
                } else {
                    wire = Self.chunkedHead("/anything/\(index)") + Self.chunked(body, chunkSize: 5_000)
                }
                try await client.send(Array(wire[..<(wire.count / 2)]))
                uploads.append((client, body, Array(wire[(wire.count / 2)...])))
            }
            var statuses: [Int] = []
            for upload in uploads {
                // A refused upload may find its connection already closed.
                try? await upload.client.send(upload.rest)
                let response = try await upload.client.readResponse(method: "POST")
                statuses.append(response.status)
                if response.status == 200 {
                    #expect(try response.jsonObject()["data"] as? String == String(decoding: upload.body, as: UTF8.self))
                }
            }
            #expect(server.requestBodies.peakBufferedBytes <= 100_000)
            #expect(statuses.allSatisfy { [200, 503].contains($0) })
            #expect(statuses.contains(200) && statuses.contains(503))
            try await waitUntil("server.requestBodies.bufferedBytes == 0") { server.requestBodies.bufferedBytes == 0 }
        }
    }
}
