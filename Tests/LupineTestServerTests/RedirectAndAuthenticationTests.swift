import Foundation
import LupineTestSupport
import Testing

@Suite("Redirects, authentication, status codes and documents")
struct RedirectAndAuthenticationTests {
    @Test func redirectChainsEndAtGet() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let first = try await client.request("GET", "/redirect/3")
            #expect(first.status == 302)
            #expect(first.header("Location") == "/relative-redirect/2")
            let last = try await client.request("GET", "/relative-redirect/1")
            #expect(last.header("Location") == "/get")
            let absolute = try await client.request("GET", "/absolute-redirect/1")
            #expect(absolute.header("Location") == "http://127.0.0.1:\(server.port)/get")
            let target = try await client.request("GET", "/redirect-to?url=%2Fxml&status_code=307")
            #expect(target.status == 307)
            #expect(target.header("Location") == "/xml")
        }
    }

    @Test func basicAuthChallengesThenAccepts() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let challenged = try await client.request("GET", "/basic-auth/user/secret")
            #expect(challenged.status == 401)
            #expect(challenged.header("WWW-Authenticate") == #"Basic realm="Fake Realm""#)

            let credentials = Data("user:secret".utf8).base64EncodedString()
            let accepted = try await client.request(
                "GET", "/basic-auth/user/secret",
                headers: [("Authorization", "Basic \(credentials)")]
            )
            #expect(accepted.status == 200)
            let json = try accepted.jsonObject()
            #expect(json["authenticated"] as? Bool == true)
            #expect(json["user"] as? String == "user")
        }
    }

    @Test func statusCodesAndResponseHeaders() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            #expect(try await client.request("GET", "/status/503").status == 503)
            #expect(try await client.request("POST", "/status/201").status == 201)
            #expect(try await client.request("GET", "/status/abc").status == 400)

            let echoed = try await client.request("GET", "/response-headers?X-Lupine-Test=one&X-Lupine-Test=two")
            #expect(echoed.headers("X-Lupine-Test") == ["one", "two"])
            let json = try echoed.jsonObject()
            #expect(json["X-Lupine-Test"] as? [String] == ["one", "two"])
            #expect(json["Content-Length"] as? String == String(echoed.body.count))
        }
    }

    @Test func cookiesAreSetAndEchoed() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let set = try await client.request("GET", "/cookies/set?flavour=oat")
            #expect(set.status == 302)
            #expect(set.header("Location") == "/cookies")
            #expect(set.header("Set-Cookie") == "flavour=oat; Path=/")
            let echoed = try await client.request("GET", "/cookies", headers: [("Cookie", "flavour=oat; size=large")])
            let cookies = try #require(try echoed.jsonObject()["cookies"] as? [String: String])
            #expect(cookies == ["flavour": "oat", "size": "large"])
        }
    }

    @Test func documentsAndImagesHaveTheirFormats() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let json = try await client.request("GET", "/json")
            #expect((try json.jsonObject()["slideshow"] as? [String: Any])?["author"] as? String == "Yours Truly")
            let xml = try await client.request("GET", "/xml")
            #expect(xml.header("Content-Type") == "application/xml")
            #expect(xml.text.contains("<slideshow"))
            let png = try await client.request("GET", "/image/png")
            #expect(Array(png.body.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            let jpeg = try await client.request("GET", "/image/jpeg")
            #expect(Array(jpeg.body.prefix(2)) == [0xFF, 0xD8])
            #expect(Array(jpeg.body.suffix(2)) == [0xFF, 0xD9])
        }
    }
}
