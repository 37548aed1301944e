import Foundation
import Lupine

/// A bearer token as the test server's `/bearer/:token` checks it.
struct BearerToken: AuthenticationCredential {
    let token: String
    var requiresRefresh = false
}

/// Applies a ``BearerToken`` as `Authorization: Bearer <token>`, refreshing it with `produce`
/// and recording each refresh's old token.
struct BearerAuthenticator: Authenticator {
    let refreshes = Recorder<String>()
    let produce: @Sendable (BearerToken) async throws -> BearerToken

    func apply(_ credential: BearerToken, to request: inout Request) {
        request.setValue("Bearer \(credential.token)", forHTTPHeaderField: "Authorization")
    }

    func refresh(_ credential: BearerToken) async throws -> BearerToken {
        self.refreshes.append(credential.token)
        return try await self.produce(credential)
    }

    func isRequest(_ request: Request, authenticatedWith credential: BearerToken) -> Bool {
        request.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.token)"
    }
}

/// Holds whoever waits on it until it is opened, then lets everyone through.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        guard !self.isOpen else { return }
        await withCheckedContinuation { self.waiters.append($0) }
    }

    func open() {
        self.isOpen = true
        for waiter in self.waiters {
            waiter.resume()
        }
        self.waiters = []
    }
}

/// An error a test's refresh throws.
struct RefreshRefused: Error {}
