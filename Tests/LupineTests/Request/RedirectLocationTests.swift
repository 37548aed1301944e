import Foundation
import Lupine
import Testing

/// A redirect whose `Location` is not a URL fails the task with a typed error instead of ending
/// silently with the 3xx as if it were the answer; a 3xx without `Location` stays a response.
@Suite struct RedirectLocationTests {
    /// `Location` values that resolve to no URL with a scheme and a host.
    static let unparsable = ["http://[::1", "ht tp://x", "http://exa mple.com/", "http://", "mailto:someone"]

    @Test(arguments: unparsable)
    func unparsableLocationFailsTheTask(location: String) async throws {
        try await withSessionManager { _, manager in
            let error = await #expect(throws: LupineError.self) {
                try await manager.get("redirect-to", parameters: ["url": location, "status_code": 302])
            }
            guard case .redirectFailed(.invalidLocation(let reported)) = error else {
                Issue.record("expected redirectFailed(.invalidLocation), got \(String(describing: error))")
                return
            }
            #expect(reported == location)
            #expect(error?.description == "the redirect cannot be followed: its Location \(location.debugDescription) is not a valid URL")
        }
    }

    @Test(arguments: [301, 303, 307, 308])
    func everyFollowedStatusChecksTheLocation(status: Int) async throws {
        try await withSessionManager { _, manager in
            let error = await #expect(throws: LupineError.self) {
                try await manager.get("redirect-to", parameters: ["url": "http://[::1", "status_code": status])
            }
            guard case .redirectFailed(.invalidLocation) = error else {
                Issue.record("expected redirectFailed(.invalidLocation), got \(String(describing: error))")
                return
            }
        }
    }

    @Test func locationWithASpaceInThePathIsFollowedEncoded() async throws {
        try await withSessionManager { _, manager in
            let response = try await manager.get("redirect-to", parameters: ["url": "/anything/a b"])
            let echo = try #require(response.value as? [String: any Sendable])
            #expect((echo["url"] as? String)?.hasSuffix("/anything/a%20b") == true)
        }
    }

    @Test(arguments: [300, 304])
    func redirectStatusWithoutLocationIsAPlainResponse(status: Int) async throws {
        try await withSessionManager { server, manager in
            let request = Request(url: server.baseURL.appending("/status/\(status)"))
            let serializer = HTTPResponseSerializer(acceptableStatusCodes: IndexSet(integersIn: 200..<400))
            let response = try await manager.response(for: request, serializer: serializer)
            #expect(response.head?.statusCode == status)
        }
    }

    @Test func messageHidesCredentialsAndCutsLongLocations() {
        let withCredentials = LupineError.redirectFailed(.invalidLocation("http://user:secret@[::1/"))
        #expect(!withCredentials.description.contains("secret"))
        #expect(withCredentials.description.contains(#""http://…@[::1/""#))
        let long = LupineError.redirectFailed(.invalidLocation("http://[" + String(repeating: "a", count: 10_000)))
        #expect(long.description.count < 300)
        let control = LupineError.redirectFailed(.invalidLocation("http://[\r\n\u{0}"))
        #expect(control.description.contains(#""http://[\r\n\0""#))
    }
}
