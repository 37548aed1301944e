import Foundation
import LupineTestSupport
import Lupine
import LupineTestServer
import Testing

/// Real curl and Lupine share cookie files: curl's `-c` file reads into a ``CookieStorage``, and
/// the file Lupine writes is what curl's `-b` sends back to the test server.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl is not installed at /usr/bin/curl"))
struct CurlCookieJarTests {
    private static let curl = URL(fileURLWithPath: "/usr/bin/curl")

    /// Runs curl with `arguments` in `folder`; returns its exit status and standard output.
    private static func run(_ arguments: [String], in folder: URL) async throws -> (Int32, Data) {
        let (stdout, stderr) = (folder.appending(path: "curl.out"), folder.appending(path: "curl.err"))
        let exit = try await ChildProcess.start(Self.curl, ["-sS"] + arguments, in: folder, stdout: stdout, stderr: stderr).wait()
        return (exit.status, try Data(contentsOf: stdout))
    }

    @Test func curlsJarReadsInAndLupinesJarIsSentBackByCurl() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let base = server.baseURL.absoluteString
        let curlJar = folder.appending(path: "curl-jar.txt")

        let (setStatus, _) = try await Self.run(["-c", curlJar.path, base + "/cookies/set?a=1&b=2"], in: folder)
        #expect(setStatus == 0)
        let storage = CookieStorage()
        #expect(try storage.importNetscapeFile(at: curlJar).isEmpty)
        #expect(storage.pairs == ["a=1", "b=2"])
        #expect(storage.allCookies.allSatisfy { $0.domain == "127.0.0.1" && $0.isHostOnly && $0.path == "/" && $0.expiresAt == nil })
        #expect(storage.header(for: base + "/cookies", now: Date()) == "a=1; b=2")

        // Lupine's file, with an HttpOnly, a secure and a persistent cookie besides curl's two.
        let expiry = Date().addingTimeInterval(86_400)
        storage.setCookie(Cookie(name: "h", value: "x y", domain: "127.0.0.1", isHTTPOnly: true))
        storage.setCookie(Cookie(name: "s", value: "ü", domain: "127.0.0.1", expiresAt: expiry, isSecure: true))
        storage.setCookie(Cookie(name: "other", value: "1", domain: "127.0.0.1", path: "/elsewhere"))
        let lupineJar = folder.appending(path: "lupine-jar.txt")
        try storage.exportNetscapeFile(to: lupineJar)
        let (getStatus, body) = try await Self.run(["-b", lupineJar.path, base + "/cookies"], in: folder)
        #expect(getStatus == 0)
        let echo = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        let cookies = echo?["cookies"] as? [String: String]
        #expect(cookies == ["a": "1", "b": "2", "h": "x y", "s": "ü"], "\(String(decoding: body, as: UTF8.self))")

        // curl reads Lupine's file and writes it again; it reads back the same cookies (curl takes
        // a file's first line for its oldest cookie, so each of its rewrites reverses the order).
        let rewritten = folder.appending(path: "rewritten.txt")
        let (copyStatus, _) = try await Self.run(["-b", lupineJar.path, "-c", rewritten.path, base + "/get"], in: folder)
        #expect(copyStatus == 0)
        let copy = CookieStorage()
        #expect(try copy.importNetscapeFile(at: rewritten).isEmpty)
        #expect(copy.netscapeText().split(separator: "\n").sorted() == storage.netscapeText().split(separator: "\n").sorted())
    }

    @Test func aLoginThenRequestFlowOverLoopback() async throws {
        let storage = CookieStorage()
        try await withServerAndTransport { server, transport in
            func get(_ path: String) async throws -> (TransportResponse, [String: Any]?) {
                let url = server.baseURL.appending(path)
                var headers = HTTPHeaders()
                if let cookie = storage.cookieHeaderValue(for: url) {
                    headers.add(name: "Cookie", value: cookie)
                }
                let (response, body) = try await transport.fetch(TransportRequest(url: url, headers: headers, cancellation: TransportCancellation()))
                storage.storeCookies(fromSetCookieValues: response.headers["Set-Cookie"], for: url)
                return (response, body.jsonObject)
            }
            let (login, _) = try await get("/cookies/set?session=abc123&theme=dark")
            #expect(login.status.code == 302)
            let (_, echo) = try await get("/cookies")
            #expect(echo?["cookies"] as? [String: String] == ["session": "abc123", "theme": "dark"])
            _ = try await get("/cookies/delete?session")
            let (_, after) = try await get("/cookies")
            #expect(after?["cookies"] as? [String: String] == ["theme": "dark"])
        }
        #expect(storage.pairs == ["theme=dark"])
    }
}
