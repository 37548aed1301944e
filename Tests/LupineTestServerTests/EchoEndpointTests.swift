import Foundation
import LupineTestServer
import LupineTestSupport
import Testing

@Suite("httpbin echo endpoints")
struct EchoEndpointTests {
    @Test func getEchoesArgumentsHeadersAndConnectionID() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let response = try await client.request("GET", "/get?a=1&b=2&b=3&c=x+y%21", headers: [("X-Custom", "yes")])
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.connectionID != nil)

            let json = try response.jsonObject()
            #expect(Set(json.keys) == ["args", "headers", "origin", "url"])
            let args = try #require(json["args"] as? [String: Any])
            #expect(args["a"] as? String == "1")
            #expect(args["b"] as? [String] == ["2", "3"])
            #expect(args["c"] as? String == "x y!")
            let headers = try #require(json["headers"] as? [String: String])
            #expect(headers["X-Custom"] == "yes")
            #expect(headers["Host"] == "127.0.0.1:\(server.port)")
            #expect(json["origin"] as? String == "127.0.0.1")
            #expect(json["url"] as? String == "http://127.0.0.1:\(server.port)/get?a=1&b=2&b=3&c=x+y%21")
        }
    }

    @Test func postParsesURLEncodedForm() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let response = try await client.request(
                "POST", "/post?q=1",
                headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Array("name=Lupine+Client&tag=a&tag=b".utf8)
            )
            #expect(response.status == 200)
            let json = try response.jsonObject()
            #expect(Set(json.keys) == ["args", "data", "files", "form", "headers", "json", "origin", "url"])
            let form = try #require(json["form"] as? [String: Any])
            #expect(form["name"] as? String == "Lupine Client")
            #expect(form["tag"] as? [String] == ["a", "b"])
            #expect(json["data"] as? String == "")
            #expect(json["json"] is NSNull)
            #expect((json["args"] as? [String: Any])?["q"] as? String == "1")
        }
    }

    @Test func putParsesJSONAndKeepsRawData() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let body = #"{"count":3,"name":"lupine","nested":{"ok":true}}"#
            let response = try await client.request(
                "PUT", "/put",
                headers: [("Content-Type", "application/json")],
                body: Array(body.utf8)
            )
            let json = try response.jsonObject()
            #expect(json["data"] as? String == body)
            let parsed = try #require(json["json"] as? [String: Any])
            #expect(parsed["count"] as? Int == 3)
            #expect(parsed["name"] as? String == "lupine")
            #expect((parsed["nested"] as? [String: Any])?["ok"] as? Bool == true)
            #expect((json["form"] as? [String: Any])?.isEmpty == true)
        }
    }

    @Test func postParsesMultipartFieldsAndFiles() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let boundary = "lupine-boundary-42"
            let body = [
                "--\(boundary)",
                #"Content-Disposition: form-data; name="greeting""#,
                "",
                "hello",
                "--\(boundary)",
                #"Content-Disposition: form-data; name="upload"; filename="note.txt""#,
                "Content-Type: text/plain",
                "",
                "file contents\r\nwith two lines",
                "--\(boundary)--",
                "",
            ].joined(separator: "\r\n")
            let response = try await client.request(
                "POST", "/post",
                headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")],
                body: Array(body.utf8)
            )
            #expect(response.status == 200)
            let json = try response.jsonObject()
            #expect((json["form"] as? [String: Any])?["greeting"] as? String == "hello")
            #expect((json["files"] as? [String: Any])?["upload"] as? String == "file contents\r\nwith two lines")
            #expect(json["data"] as? String == "")
        }
    }

    @Test func anythingReportsMethodForAnyPath() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let response = try await client.request("DELETE", "/anything/some/deep/path?x=1")
            let json = try response.jsonObject()
            #expect(json["method"] as? String == "DELETE")
            #expect((json["url"] as? String)?.hasSuffix("/anything/some/deep/path?x=1") == true)
        }
    }

    @Test func unknownPathIs404WithConnectionID() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let response = try await client.request("GET", "/no-such-endpoint")
            #expect(response.status == 404)
            #expect(response.connectionID != nil)
        }
    }
}
