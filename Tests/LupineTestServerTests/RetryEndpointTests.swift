import Foundation
import LupineTestSupport
import Testing

@testable import LupineTestServer

@Suite("Retry and bearer endpoints count attempts per key")
struct RetryEndpointTests {
    @Test func failEndpointFailsNTimesThenSucceeds() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            #expect(try await client.request("GET", "/retry/a/fail/2").status == 503)
            #expect(try await client.request("POST", "/retry/a/fail/2").status == 503)
            let success = try await client.request("GET", "/retry/a/fail/2")
            #expect(success.status == 200)
            let json = try success.jsonObject()
            #expect(json["attempt"] as? Int == 3)
            #expect(json["key"] as? String == "a")
            #expect(try await client.request("GET", "/retry/b/fail/1?status=408").status == 408)
            #expect(try await client.request("GET", "/retry/b/fail/1?status=408").status == 200)
            #expect(try await client.request("GET", "/retry/c/fail/0").status == 200)
            for invalid in ["/retry/d/fail/1?status=200", "/retry/d/fail/1?status=600", "/retry/d/fail/x", "/retry/d/fail/-1"] {
                #expect(try await client.request("GET", invalid).status == 400, "\(invalid)")
            }
            #expect(server.attempts(forKey: "a") == 3)
        }
    }

    @Test func retryAfterSecondsArePassedThroughVerbatim() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            for value in ["0", "1", "-1", "soon", "99999999999999999999"] {
                let failed = try await client.request("GET", "/retry/s-\(value)/retry-after/1?status=429&after=\(value)")
                #expect(failed.status == 429)
                #expect(failed.headers("Retry-After") == [value])
                #expect(try await client.request("GET", "/retry/s-\(value)/retry-after/1?after=\(value)").status == 200)
            }
            let injected = try await client.request("GET", "/retry/inject/retry-after/1?after=1%0D%0AX-Injected:%20yes%00")
            #expect(injected.status == 503)
            #expect(injected.header("X-Injected") == nil)
            #expect(injected.headers("Retry-After").count == 1)
            let long = String(repeating: "9", count: 257)
            #expect(try await client.request("GET", "/retry/long/retry-after/1?after=\(long)").status == 400)
        }
    }

    @Test func retryAfterDateIsThatManySecondsFromNow() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            for offset in [30, -30] {
                // Bounded by the clock before and after the exchange (an HTTP-date has whole
                // seconds), not by how long a loaded machine takes to answer.
                let before = Date()
                let response = try await client.request("GET", "/retry/date\(offset)/retry-after/1?date=\(offset)")
                let after = Date()
                #expect(response.status == 503)
                let date = try #require(response.header("Retry-After").flatMap(formatter.date(from:)))
                let earliest = before.addingTimeInterval(Double(offset) - 1)
                let latest = after.addingTimeInterval(Double(offset) + 1)
                #expect(date >= earliest && date <= latest)
            }
            for invalid in ["", "?after=1&date=1", "?date=soon", "?date=99999999999"] {
                #expect(try await client.request("GET", "/retry/x/retry-after/1\(invalid)").status == 400, "\(invalid)")
            }
        }
    }

    @Test func attemptsAreCountedAcrossEndpointsAndReset() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            _ = try await client.request("GET", "/retry/k/fail/5")
            _ = try await client.request("PUT", "/retry/k/retry-after/5?after=1")
            let counted = try await client.request("GET", "/retry/k/attempts")
            #expect(try counted.jsonObject()["attempts"] as? Int == 2)
            #expect(try counted.jsonObject()["key"] as? String == "k")
            #expect(try await client.request("GET", "/retry/k/attempts").jsonObject()["attempts"] as? Int == 2)
            #expect(try await client.request("DELETE", "/retry/k").status == 200)
            #expect(try await client.request("GET", "/retry/k/attempts").jsonObject()["attempts"] as? Int == 0)
            #expect(try await client.request("GET", "/retry/k/fail/1").status == 503)
            let key = String(repeating: "k", count: HTTPBinRoutes.maximumAttemptKeyLength + 1)
            #expect(try await client.request("GET", "/retry/\(key)/fail/1").status == 400)
        }
    }

    @Test func bearerTokenIsCheckedAndCounted() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let missing = try await client.request("GET", "/bearer/t0k")
            #expect(missing.status == 401)
            #expect(missing.header("WWW-Authenticate") == "Bearer")
            for wrong in ["Bearer t0", "Bearer t0kk", "Basic t0k", "Bearer  t0k", "Bearer"] {
                #expect(try await client.request("GET", "/bearer/t0k", headers: [("Authorization", wrong)]).status == 401, "\(wrong)")
            }
            let accepted = try await client.request("GET", "/bearer/t0k", headers: [("Authorization", "bearer t0k")])
            #expect(accepted.status == 200)
            #expect(try accepted.jsonObject()["authenticated"] as? Bool == true)
            #expect(try await client.request("GET", "/retry/bearer-t0k/attempts").jsonObject()["attempts"] as? Int == 7)
        }
    }

    @Test func counterKeepsAtMostItsCapacityDroppingTheOldest() {
        let counter = AttemptCounter(capacity: 3)
        for key in ["a", "b", "c"] {
            #expect(counter.increment(key) == 1)
        }
        #expect(counter.increment("a") == 2)
        #expect(counter.increment("d") == 1)
        #expect(counter.count("a") == 0)
        #expect(counter.count("b") == 2 - 1)
        counter.reset("b")
        #expect(counter.increment("e") == 1)
        #expect(counter.count("c") == 1)
        #expect(counter.count("d") == 1)
        for round in 0..<10_000 {
            _ = counter.increment("key\(round % 7)")
        }
        #expect(["key0", "key1", "key2", "key3", "key4", "key5", "key6"].filter { counter.count($0) > 0 }.count == 3)
    }
}
