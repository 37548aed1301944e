import Foundation
import Lupine
import LupineTestServer
import Testing

/// Credentials stay where they were given: out of logs, and off redirects to another host.
@Suite struct CredentialConfinementTests {
    /// A URL with user-info credentials on `server`, for `pathAndQuery`.
    static func urlWithCredentials(_ server: LupineTestServer, user: String, password: String, _ pathAndQuery: String) throws -> URL {
        try #require(URL(string: "http://\(user):\(password)@127.0.0.1:\(server.port)\(pathAndQuery)"))
    }

    @Test func logsOfAnAuthenticatedRequestWithARedirectHoldNoCredential() async throws {
        let password = "s3cret-pass"
        let cookie = "session=cookie-secret"
        let proxy = "Basic cHJveHk6cHJveHktc2VjcmV0"
        try await withSessionManager { server, manager in
            let lines = CapturingLogHandler.Lines()
            manager.logger = CapturingLogHandler.logger(into: lines)
            let target = "/basic-auth/user/\(password)"
            let url = try Self.urlWithCredentials(server, user: "user", password: password, "/redirect-to?url=\(target)")
            var request = Request(url: url)
            request.setValue(cookie, forHTTPHeaderField: "Cookie")
            request.setValue(proxy, forHTTPHeaderField: "Proxy-Authorization")
            let response = try await manager.response(for: request, serializer: JSONResponseSerializer())
            #expect(response.head?.statusCode == 200, "the user-info credential authenticated the redirected request")
            #expect(response.redirectChain.count == 1)

            let log = lines.all.joined(separator: "\n")
            #expect(lines.all.filter { $0.contains("Sending request") }.count == 2)
            #expect(log.contains("<redacted>"))
            let basic = Data("user:\(password)".utf8).base64EncodedString()
            for secret in [basic, "cookie-secret", "cHJveHk6cHJveHktc2VjcmV0", "user:\(password)@"] {
                #expect(!log.contains(secret), "\(secret) leaked into the log")
            }
        }
    }

    @Test func userInfoCredentialsBecomeTheAuthorizationHeader() async throws {
        try await withSessionManager { server, manager in
            let url = try Self.urlWithCredentials(server, user: "user", password: "p%40ss", "/headers")
            let response = try await manager.response(for: Request(url: url), serializer: JSONResponseSerializer())
            let headers = try #require((response.value as? [String: Any])?["headers"] as? [String: Any])
            #expect(headers["Authorization"] as? String == "Basic " + Data("user:p@ss".utf8).base64EncodedString())
            // The task's current request, which the response carries, holds no credential either.
            #expect(response.request.url.user == nil)
            #expect(!response.request.url.absoluteString.contains("p%40ss"))
        }
    }

    @Test func userInfoCredentialsNeverFollowARedirectToAnotherHost() async throws {
        try await withSessionManager { server, manager in
            let away = "http://localhost:\(server.port)/headers"
            let url = try Self.urlWithCredentials(server, user: "user", password: "pass", "/redirect-to?url=\(away)")
            let response = try await manager.response(for: Request(url: url), serializer: JSONResponseSerializer())
            let headers = try #require((response.value as? [String: Any])?["headers"] as? [String: Any])
            #expect(response.redirectChain.count == 1)
            #expect(headers["Authorization"] == nil)
        }
    }
}
