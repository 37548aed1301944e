import Foundation
import Lupine
import LupineTestServer
import Testing

/// `lupine --retry N` and `--retry-max-time S`, run as separate processes against the test
/// server's endpoints that fail a given number of times.
@Suite struct LupineRetryTests {
    /// How many requests the server saw for `key`.
    static func attempts(_ key: String, on server: LupineTestServer) async throws -> Int? {
        let outcome = try await LupineCommandLineTests.lupine(["get", server.baseURL.absoluteString + "/retry/\(key)/attempts"])
        return LupineCommandLineTests.json(outcome.stdout)?["attempts"] as? Int
    }

    @Test func retryRepeatsAFailingGETUntilItSucceeds() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let url = server.baseURL.absoluteString + "/retry/cli-ok/fail/2?status=502"
        let outcome = try await LupineCommandLineTests.lupine(["get", url, "--retry", "2", "--check-status"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(LupineCommandLineTests.json(outcome.stdout)?["attempt"] as? Int == 3)
        #expect(try await Self.attempts("cli-ok", on: server) == 3)
        // Each retry is announced on stderr, as curl's "Will retry" warning.
        let notices = outcome.stderr.split(separator: "\n").filter { $0.hasPrefix("lupine: HTTP 502; retrying in ") }
        #expect(notices.count == 2, "\(outcome.stderr)")
        #expect(notices.last?.hasSuffix("0 retries left") == true)
        // -v shows each answer that is retried, then the final one, as curl -v does.
        let verbose = try await LupineCommandLineTests.lupine(["get", server.baseURL.absoluteString + "/retry/cli-v/fail/1?status=503", "--retry", "1", "-v"])
        let heads = verbose.stderr.split(separator: "\n").filter { $0.hasPrefix("HTTP/1.1 ") }
        #expect(heads.map { $0.prefix(12) } == ["HTTP/1.1 503", "HTTP/1.1 200"], "\(verbose.stderr)")
    }

    @Test func withoutRetryOrPastItsCountTheFailureIsDelivered() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let none = try await LupineCommandLineTests.lupine(["get", server.baseURL.absoluteString + "/retry/cli-none/fail/1", "--check-status"])
        #expect(none.status == 5)
        #expect(try await Self.attempts("cli-none", on: server) == 1)
        let short = try await LupineCommandLineTests.lupine(["get", server.baseURL.absoluteString + "/retry/cli-short/fail/3?status=500", "--retry", "1", "--check-status"])
        #expect(short.status == 5)
        #expect(try await Self.attempts("cli-short", on: server) == 2)
        // A POST is not repeated: it may not be safe to send twice.
        let post = try await LupineCommandLineTests.lupine(["post", server.baseURL.absoluteString + "/retry/cli-post/fail/1", "a=1", "--retry", "3", "--check-status"])
        #expect(post.status == 5)
        #expect(try await Self.attempts("cli-post", on: server) == 1)
    }

    @Test func retryAfterIsHonouredAndTheTimeBudgetStopsWaitsBeyondIt() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let now = try await LupineCommandLineTests.lupine(["get", server.baseURL.absoluteString + "/retry/cli-429/retry-after/1?status=429&after=0", "--retry", "1", "--check-status"])
        #expect(now.status == 0, "\(now.stderr)")
        #expect(try await Self.attempts("cli-429", on: server) == 2)
        // The server asks for 1 s; the budget is 0.3 s: no retry, the 503 is delivered.
        let beyond = try await LupineCommandLineTests.lupine([
            "get", server.baseURL.absoluteString + "/retry/cli-budget/retry-after/1?status=503&after=1", "--retry", "3", "--retry-max-time", "0.3", "--check-status",
        ])
        #expect(beyond.status == 5)
        #expect(try await Self.attempts("cli-budget", on: server) == 1)
        // Beyond the default budget (120 s) too: given up at once, never cut into an early retry.
        let far = try await LupineCommandLineTests.lupine([
            "get", server.baseURL.absoluteString + "/retry/cli-far/retry-after/1?status=503&after=200", "--retry", "1", "--check-status",
        ])
        #expect(far.status == 5)
        #expect(try await Self.attempts("cli-far", on: server) == 1)
        let refusal = "lupine: HTTP 503; its Retry-After asks for a wait of 200.0 s, which would go past the time allowed for retries"
        #expect(far.stderr.contains(refusal + " (--retry-max-time 120.0 s): not retrying"), "\(far.stderr)")
    }

    /// A `Retry-After` too large to read, or a date centuries ahead, is the longest wait there is:
    /// no retry inside the budget, said in one line as curl warns, and the answer delivered. A
    /// wait within the budget but longer than the hour a session waits is not cut short into an
    /// early retry either.
    @Test(arguments: [
        ("99999999999999999999", "120", "of more than a year, which would go past the time allowed for retries (--retry-max-time 120.0 s)"),
        ("Fri,%2031%20Dec%209999%2023:59:59%20GMT", "86400", "of more than a year, which would go past the time allowed for retries (--retry-max-time 86400.0 s)"),
        ("7200", "10000", "of 7200.0 s, longer than lupine waits for a retry (3600.0 s)"),
    ])
    func aRetryAfterBeyondWhatIsWaitedEndsTheRetriesAndSaysSo(after: String, budget: String, words: String) async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let key = "cli-huge-\(after.count)"
        let outcome = try await LupineCommandLineTests.lupine([
            "get", server.baseURL.absoluteString + "/retry/\(key)/retry-after/1?status=503&after=\(after)", "--retry", "2", "--retry-max-time", budget,
            "--check-status",
        ])
        #expect(outcome.status == 5, "\(outcome.stderr)")
        #expect(try await Self.attempts(key, on: server) == 1)
        #expect(outcome.stderr.contains("lupine: HTTP 503; its Retry-After asks for a wait \(words): not retrying"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("retrying in"))
    }

    /// A budget spent before the answer came is not the server's `Retry-After: 0`'s doing: no
    /// notice blames it.
    @Test func aSpentBudgetIsNotBlamedOnANoWaitRetryAfter() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let outcome = try await LupineCommandLineTests.lupine([
            "get", server.baseURL.absoluteString + "/retry/cli-spent/retry-after/1?status=503&after=0", "--retry", "1", "--retry-max-time", "0.001",
        ])
        #expect(!outcome.stderr.contains("not retrying"), "\(outcome.stderr)")
    }

    @Test func badRetryOptionsAreRefused() async throws {
        for arguments in [["--retry", "-1"], ["--retry", "lots"], ["--retry", "2", "--retry-max-time", "0"], ["--retry-max-time", "nan"], ["--retry", "1", "--retry-max-time", "1e-300"]] {
            let outcome = try await LupineCommandLineTests.lupine(["get", "http://127.0.0.1:9/get"] + arguments)
            #expect(outcome.status == 64, "\(arguments)")
            #expect(outcome.stderr.contains("retry"), "\(arguments): \(outcome.stderr)")
        }
    }
}
