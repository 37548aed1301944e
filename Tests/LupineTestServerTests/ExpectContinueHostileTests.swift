import Foundation
import LupineTestServer
import LupineTestSupport
import Testing

/// `Expect` as a careless or hostile client sends it: odd casing, repeated, unknown, on
/// HTTP/1.0, pipelined, or a body that never follows the 100.
@Suite("Expect: 100-continue, hostile")
struct ExpectContinueHostileTests {
    private static let interimContinue = "HTTP/1.1 100 Continue\r\n\r\n"

    private static func head(_ target: String, version: String = "HTTP/1.1", length: Int, _ lines: [String]) -> [UInt8] {
        let text = (["POST \(target) \(version)", "Host: x"] + lines + ["Content-Length: \(length)"]).joined(separator: "\r\n")
        return Array((text + "\r\n\r\n").utf8)
    }

    private static func readContinue(on client: RawHTTPClient) async throws -> String {
        String(decoding: try await client.read(count: Self.interimContinue.utf8.count), as: UTF8.self)
    }

    @Test(.timeLimit(.minutes(5)))
    func casingAndRepeatedFieldsGetExactlyOneContinue() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            for lines in [["Expect: 100-Continue"], ["expect:\t100-CONTINUE "], ["Expect: 100-continue", "Expect: 100-continue, ,"]] {
                try await client.send(Self.head("/upload", length: 4, lines))
                #expect(try await Self.readContinue(on: client) == Self.interimContinue)
                try await client.send(Array("abcd".utf8))
                // A second 100 would be read here instead of the final response.
                let response = try await client.readResponse(method: "POST")
                #expect(response.status == 200)
                #expect(try response.jsonObject()["bytes"] as? Int == 4)
            }
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func anyOtherExpectationIsAnswered417AndTheConnectionClosed() async throws {
        try await withTestServer { server in
            for lines in [["Expect: 200-ok"], ["Expect: 100-continue, fancy"], ["Expect: 100-continue", "Expect: x=1"], ["Expect: 100-continue=1"]] {
                let client = try await server.connect()
                try await client.send(Self.head("/upload", length: 4, lines))
                let response = try await client.readResponse(method: "POST")
                #expect(response.status == 417, "\(lines)")
                #expect(response.header("Connection")?.lowercased() == "close")
                #expect(await client.isClosedByServer())
            }
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func anHTTP10RequestGetsNoContinue() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            try await client.send(Self.head("/post", version: "HTTP/1.0", length: 6, ["Expect: 100-continue"]))
            // The echo endpoint reserves the declared length and then waits for the body.
            try await waitUntil("server.requestBodies.bufferedBytes == 6") { server.requestBodies.bufferedBytes == 6 }
            try await client.send(Array("sixsix".utf8))
            let response = try await client.readResponse(method: "POST")
            #expect(response.status == 200)
            #expect(try response.jsonObject()["data"] as? String == "sixsix")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func pipelinedRequestsGetTheirContinueInTurn() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            // A whole request, then the head of one that waits for its 100, in one write.
            try await client.send(Self.head("/upload", length: 5, []) + Array("hello".utf8) + Self.head("/upload", length: 7, ["Expect: 100-continue"]))
            let first = try await client.readResponse(method: "POST")
            #expect(try first.jsonObject()["bytes"] as? Int == 5)
            #expect(try await Self.readContinue(on: client) == Self.interimContinue)
            try await client.send(Array("goodbye".utf8))
            let second = try await client.readResponse(method: "POST")
            #expect(try second.jsonObject()["bytes"] as? Int == 7)
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func anEndpointThatIgnoresTheBodyAnswersWithoutContinueAndTheConnectionGoesOn() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            try await client.send(Self.head("/status/201", length: 3, ["Expect: 100-continue"]))
            let ignored = try await client.readResponse(method: "POST")
            #expect(ignored.status == 201)
            // The client sends the body anyway, as curl does after a 2xx; the server skips it.
            try await client.send(Array("abc".utf8))
            let next = try await client.request("POST", "/upload", body: Array("next".utf8))
            #expect(next.status == 200)
            #expect(try next.jsonObject()["bytes"] as? Int == 4)
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func aBodyThatNeverFollowsTheContinueMeetsTheStalledBodyDeadline() async throws {
        // The deadline counts from the 100, however long the server took to route the request
        // (long enough that a loaded machine reads the head within it).
        try await withTestServer(.init(requestHeadTimeout: .seconds(15))) { server in
            let client = try await server.connect()
            try await client.send(Self.head("/upload", length: 10, ["Expect: 100-continue"]))
            #expect(try await Self.readContinue(on: client) == Self.interimContinue)
            #expect(await client.isClosedByServer())
            try await waitUntil("server.connections.open == 0") { server.connections.open == 0 }
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func aHandlerSlowerThanTheDeadlineStillGetsTheBodyItAsksFor() async throws {
        // The client waits for the server here, so the server's own delay is not a stalled body.
        // (The deadline is long enough that a loaded machine reads the head within it.)
        try await withTestServer(.init(requestHeadTimeout: .seconds(15))) { server in
            let client = try await server.connect()
            try await client.send(Self.head("/delay/18", length: 5, ["Expect: 100-continue"]))
            #expect(try await Self.readContinue(on: client) == Self.interimContinue)
            try await client.send(Array("late!".utf8))
            let response = try await client.readResponse(method: "POST")
            #expect(response.status == 200)
            #expect(try response.jsonObject()["data"] as? String == "late!")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func controlAndNonASCIIBytesInExpectAreRefused() async throws {
        try await withTestServer { server in
            for value in ["100-continue\u{0}", "100-contïnue", "100-continue\r"] {
                let client = try await server.connect()
                try await client.send(Self.head("/upload", length: 2, ["Expect: \(value)"]))
                let response = try await client.readResponse(method: "POST")
                #expect([400, 417].contains(response.status), "\(value.debugDescription) → \(response.statusLine)")
                #expect(await client.isClosedByServer())
            }
        }
    }
}
