import Foundation
import Lupine
import LupineTestServer
import Testing

/// Redirects and authentication challenges through the session layer.
@Suite struct SessionRedirectAndAuthenticationTests {
    @Test(arguments: WireProtocol.allCases) func followsRedirectsAndRecordsTheChain(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            let response = try await manager.get("redirect/3")
            #expect(response.head?.statusCode == 200)
            #expect(response.redirectChain.count == 3)
            #expect(response.request.url.path == "/get")
        }
    }

    @Test(arguments: WireProtocol.allCases) func tooManyRedirectsIsAnError(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            manager.maximumRedirects = 2
            await #expect {
                _ = try await manager.get("redirect/3")
            } throws: { error in
                guard case LupineError.redirectFailed(.tooManyRedirects(limit: 2)) = error else { return false }
                return true
            }
        }
    }

    @Test(arguments: WireProtocol.allCases) func redirectLoopIsAnError(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            // `Location: #` points back at the same resource.
            await #expect {
                _ = try await manager.get("redirect-to", parameters: ["url": "#"])
            } throws: { error in
                guard case LupineError.redirectFailed(.loop) = error else { return false }
                return true
            }
        }
    }

    @Test(arguments: WireProtocol.allCases) func postBecomesGetOn302AndKeepsItsMethodAndBodyOn307(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            let found = try await manager.post("redirect-to?url=%2Fanything&status_code=302", parameters: ["k": "v"])
            let foundJSON = try #require(found.value as? [String: any Sendable])
            #expect(foundJSON["method"] as? String == "GET")
            #expect((foundJSON["form"] as? [String: any Sendable])?.isEmpty ?? true)
            let temporary = try await manager.post("redirect-to?url=%2Fanything&status_code=307", parameters: ["k": "v"])
            let json = try #require(temporary.value as? [String: any Sendable])
            #expect(json["method"] as? String == "POST")
            #expect((json["form"] as? [String: any Sendable])?["k"] as? String == "v")
        }
    }

    @Test(arguments: WireProtocol.allCases) func authorizationIsDroppedWhenARedirectChangesHost(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { server, manager in
            let crossHost = "http://localhost:\(server.port)/headers"
            let sameHost = server.baseURL.absoluteString + "/headers"
            let auth = ["Authorization": "Bearer secret-token"]
            let away = try await manager.get("redirect-to", parameters: ["url": crossHost], headers: auth)
            let awayHeaders = try #require((away.value as? [String: any Sendable])?["headers"] as? [String: any Sendable])
            #expect(awayHeaders["Authorization"] == nil)
            let home = try await manager.get("redirect-to", parameters: ["url": sameHost], headers: auth)
            let homeHeaders = try #require((home.value as? [String: any Sendable])?["headers"] as? [String: any Sendable])
            #expect(homeHeaders["Authorization"] as? String == "Bearer secret-token")
        }
    }

    @Test(arguments: WireProtocol.allCases) func redirectHookCanRefuse(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            var hooks = SessionHooks()
            hooks.willPerformRedirection = { _, _, _ in nil }
            manager.hooks = hooks
            manager.responseSerializer = HTTPResponseSerializer(acceptableStatusCodes: IndexSet(integersIn: 200..<400))
            let response = try await manager.get("redirect/1")
            #expect(response.head?.statusCode == 302)
            #expect(response.redirectChain.isEmpty)
        }
    }

    /// As AFNetworking's own redirect-block test does it:
    /// make a data task, then set the session's redirect block, then resume. The block in force
    /// when the redirect comes is the one called (issue 30: the task had copied the hooks when
    /// it was made).
    @Test func aRedirectHookSetAfterTheTaskIsMadeIsTheOneCalled() async throws {
        try await withSessionManager { _, manager in
            manager.responseSerializer = HTTPResponseSerializer(acceptableStatusCodes: IndexSet(integersIn: 200..<400))
            let request = try manager.makeRequest(.GET, "redirect/1", parameters: nil, headers: nil)
            let calls = Recorder<Int>()
            let completion = await withCheckedContinuation { continuation in
                let task = manager.dataTask(with: request) { continuation.resume(returning: $0) }
                var hooks = manager.hooks
                hooks.willPerformRedirection = { _, head, _ in
                    calls.append(head.statusCode)
                    return nil
                }
                manager.hooks = hooks
                task.resume()
            }
            #expect(calls.all == [302])
            #expect(completion.response?.statusCode == 302)
        }
    }

    @Test(arguments: WireProtocol.allCases) func basicChallengeIsAnsweredByTheHook(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            let challenges = Recorder<AuthenticationChallenge>()
            var hooks = SessionHooks()
            hooks.didReceiveChallenge = { _, challenge in
                challenges.append(challenge)
                return challenge.previousFailureCount == 0 ? .useCredential(Credential(user: "user", password: "passwd")) : .rejectProtectionSpace
            }
            manager.hooks = hooks
            let response = try await manager.get("basic-auth/user/passwd")
            let json = try #require(response.value as? [String: any Sendable])
            #expect(json["authenticated"] as? Bool == true)
            #expect(challenges.all.count == 1)
            #expect(challenges.all.first?.scheme == "Basic")
            #expect(challenges.all.first?.realm == "Fake Realm")
        }
    }

    @Test(arguments: WireProtocol.allCases) func rejectedChallengeDeliversThe401(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            var hooks = SessionHooks()
            hooks.didReceiveChallenge = { _, _ in .rejectProtectionSpace }
            manager.hooks = hooks
            await #expect {
                _ = try await manager.get("basic-auth/user/passwd")
            } throws: { error in
                guard case LupineError.responseValidationFailed(.unacceptableStatusCode(401, _, _, _)) = error else { return false }
                return true
            }
        }
    }
}
