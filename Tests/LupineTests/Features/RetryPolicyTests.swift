import Foundation
import Testing

@testable import Lupine

@Suite("RetryPolicy decides by value")
struct RetryPolicyTests {
    typealias Fixture = RetryContextFixtures
    /// The defaults without jitter, so delays are exact.
    let steady = RetryPolicy(jitter: false)

    func outcome(_ policy: RetryPolicy, _ context: RetryContext, now: Date = Date()) -> DecisionOutcome {
        DecisionOutcome(policy.decision(for: context, now: now))
    }

    /// RFC 9110 §5.6.7: a recipient accepts the obsolete RFC 850 and asctime forms too (an
    /// earlier note found them falling back to the backoff).
    @Test func retryAfterReadsEveryHTTPDateForm() {
        let now = Date(timeIntervalSince1970: 784_111_777 - 30)  // 30 s before 1994-11-06 08:49:37 UTC
        for value in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            let delay = RetryAfter.delay(in: ["Retry-After": value], now: now, maximum: .seconds(3600))
            #expect(delay == .seconds(30), "\(value)")
        }
    }

    @Test func defaultsAreAlamofires() {
        let policy = RetryPolicy()
        #expect(policy.retryLimit == 2)
        #expect(policy.exponentialBackoffBase == 2)
        #expect(policy.exponentialBackoffScale == .milliseconds(500))
        #expect(policy.retryableHTTPMethods == [.DELETE, .GET, .HEAD, .OPTIONS, .PUT, .TRACE])
        #expect(policy.retryableHTTPStatusCodes == [408, 500, 502, 503, 504])
        #expect(policy.retryAfterStatusCodes == [429, 503])
        #expect(policy.maximumDelay == .seconds(60))
        #expect(policy.maximumTotalTime == .seconds(120))
        #expect(policy.jitter)
    }

    @Test func backsOffExponentiallyUpToTheLimit() {
        #expect(outcome(steady, Fixture.response(503, retryCount: 0)) == .retryAfter(.milliseconds(500)))
        #expect(outcome(steady, Fixture.response(503, retryCount: 1)) == .retryAfter(.seconds(1)))
        #expect(outcome(steady, Fixture.response(503, retryCount: 2)) == .doNotRetry)
        let patient = RetryPolicy(retryLimit: 200, exponentialBackoffBase: 3, exponentialBackoffScale: .seconds(1), jitter: false)
        #expect(outcome(patient, Fixture.response(500, retryCount: 2)) == .retryAfter(.seconds(9)))
        // 3^150 overflows any integer: the delay is the maximum, not a trap.
        #expect(outcome(patient, Fixture.response(500, retryCount: 150, elapsed: .zero)) == .retryAfter(.seconds(60)))
    }

    @Test func retriesOnlyItsStatuses() {
        for status in [408, 500, 502, 503, 504] {
            #expect(outcome(steady, Fixture.response(status)) == .retryAfter(.milliseconds(500)), "\(status)")
        }
        for status in [400, 401, 403, 404, 409, 429, 501, 505] {
            #expect(outcome(steady, Fixture.response(status)) == .doNotRetry, "\(status)")
        }
        let custom = RetryPolicy(retryableHTTPStatusCodes: [404], jitter: false)
        #expect(outcome(custom, Fixture.response(404)) == .retryAfter(.milliseconds(500)))
        #expect(outcome(custom, Fixture.response(500)) == .doNotRetry)
    }

    @Test func retriesOnlyIdempotentMethods() {
        for method in [HTTPMethod.DELETE, .GET, .HEAD, .OPTIONS, .PUT, .TRACE] {
            #expect(outcome(steady, Fixture.response(503, method: method)) != .doNotRetry, "\(method)")
        }
        for method in [HTTPMethod.POST, .PATCH, .CONNECT, .RAW(value: "PURGE")] {
            #expect(outcome(steady, Fixture.response(503, method: method)) == .doNotRetry, "\(method)")
        }
        // A POST answered 303 and followed with a GET would be sent again as the POST.
        #expect(outcome(steady, Fixture.response(503, method: .GET, originalMethod: .POST)) == .doNotRetry)
        let posting = RetryPolicy(retryableHTTPMethods: [.POST], jitter: false)
        #expect(outcome(posting, Fixture.response(503, method: .POST)) == .retryAfter(.milliseconds(500)))
    }

    @Test func retriesLostRefusedAndTimedOutConnectionsOnly() {
        let retried: [TransportError] = [
            .connectionFailed(host: "h", port: 1, underlying: TransportError.shutdown),
            .connectTimeout(host: "h", port: 1, timeout: .seconds(1)),
            .readTimeout(timeout: .seconds(1)),
            .requestTimeout(timeout: .seconds(1)),
            .connectionClosedBeforeResponse,
        ]
        for error in retried {
            #expect(outcome(steady, Fixture.failure(.transport(error))) == .retryAfter(.milliseconds(500)), "\(error)")
        }
        let notRetried: [LupineError] = [
            .transport(.hostNotFound(host: "h")),
            .transport(.tlsHandshakeFailed(host: "h", underlying: TransportError.shutdown)),
            .transport(.serverTrustRejected(host: "h", reason: "r", certificateChain: [])),
            .transport(.invalidResponse(reason: "r")),
            .transport(.cancelled),
            .transport(.shutdown),
            .cancelled,
            .serverTrustEvaluationFailed(host: "h", reason: "r", certificateChain: []),
            .responseSerializationFailed(.inputDataNilOrZeroLength),
        ]
        for error in notRetried {
            #expect(outcome(steady, Fixture.failure(error)) == .doNotRetry, "\(error)")
        }
        #expect(outcome(steady, Fixture.failure(.transport(.readTimeout(timeout: .seconds(1))), method: .POST)) == .doNotRetry)
    }

    @Test func honoursRetryAfterSecondsOn429And503WithoutJitter() {
        let jittered = RetryPolicy(randomFraction: { 0 })
        for status in [429, 503] {
            #expect(outcome(jittered, Fixture.response(status, headers: ["Retry-After": "3"])) == .retryAfter(.seconds(3)))
            #expect(outcome(jittered, Fixture.response(status, headers: ["Retry-After": " 0 "])) == .retry)
        }
        // Retry-After on a status outside retryAfterStatusCodes is not read: the backoff applies.
        #expect(outcome(steady, Fixture.response(500, headers: ["Retry-After": "3"])) == .retryAfter(.milliseconds(500)))
        #expect(outcome(steady, Fixture.response(429, headers: ["Retry-After": "3", "retry-after": "3"])) == .retryAfter(.seconds(3)))
    }

    @Test func honoursRetryAfterDates() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let in10 = Fixture.httpDate(now.addingTimeInterval(10))
        #expect(outcome(steady, Fixture.response(429, headers: ["Retry-After": in10]), now: now) == .retryAfter(.seconds(10)))
        let past = Fixture.httpDate(now.addingTimeInterval(-3600))
        #expect(outcome(steady, Fixture.response(503, headers: ["Retry-After": past]), now: now) == .retry)
        #expect(outcome(steady, Fixture.response(429, headers: ["Retry-After": past]), now: now) == .retry)
        let far = Fixture.httpDate(now.addingTimeInterval(86_400 * 365 * 100))
        #expect(outcome(steady, Fixture.response(503, headers: ["Retry-After": far]), now: now) == .retryAfter(.seconds(60)))
    }

    @Test func capsRetryAfterAtTheMaximumDelay() {
        #expect(outcome(steady, Fixture.response(503, headers: ["Retry-After": "3600"])) == .retryAfter(.seconds(60)))
        let tiny = RetryPolicy(maximumDelay: .milliseconds(50), jitter: false)
        #expect(outcome(tiny, Fixture.response(429, headers: ["Retry-After": "1"])) == .retryAfter(.milliseconds(50)))
        #expect(outcome(tiny, Fixture.response(503)) == .retryAfter(.milliseconds(50)))
        let largest = String(Int.max)
        #expect(outcome(steady, Fixture.response(429, headers: ["Retry-After": largest])) == .retryAfter(.seconds(60)))
        // More seconds than an integer holds is the longest wait there is: not an
        // absurd value to ignore (a 503 would then be retried after the short backoff).
        for status in [429, 503] {
            #expect(outcome(steady, Fixture.response(status, headers: ["Retry-After": "99999999999999999999"])) == .retryAfter(.seconds(60)))
        }
    }

    @Test func ignoresAbsurdRetryAfter() {
        let absurd = ["-1", "soon", "1.5", "+5", "", "0x10", "٣", "3\u{0}", "Sun, 06 Nov 1994 08:49:37 PST"]
        for value in absurd {
            #expect(outcome(steady, Fixture.response(503, headers: ["Retry-After": value])) == .retryAfter(.milliseconds(500)), "\(value)")
            #expect(outcome(steady, Fixture.response(429, headers: ["Retry-After": value])) == .doNotRetry, "\(value)")
        }
        let conflicting: HTTPHeaders = ["Retry-After": "1", "Retry-After": "2"]
        #expect(outcome(steady, Fixture.response(429, headers: conflicting)) == .doNotRetry)
        #expect(outcome(steady, Fixture.response(429)) == .doNotRetry)
    }

    @Test func jittersTheBackoffWithItsRandomSource() {
        let quarter = RetryPolicy(randomFraction: { 0.25 })
        #expect(outcome(quarter, Fixture.response(503, retryCount: 1)) == .retryAfter(.milliseconds(250)))
        #expect(outcome(RetryPolicy(randomFraction: { 0 }), Fixture.response(503)) == .retry)
        for wild in [7, .nan, .infinity] {
            #expect(outcome(RetryPolicy(randomFraction: { wild }), Fixture.response(503)) == .retryAfter(.milliseconds(500)))
        }
        #expect(outcome(RetryPolicy(randomFraction: { -1 }), Fixture.response(503)) == .retry)
        let random = RetryPolicy()
        for _ in 0..<100 {
            guard case .retryAfter(let delay) = random.decision(for: Fixture.response(503, retryCount: 1)) else { continue }
            #expect(delay >= .zero && delay <= .seconds(1))
        }
    }

    @Test func stopsAtTheTimeBudget() {
        #expect(outcome(steady, Fixture.response(503, elapsed: .seconds(119))) == .retryAfter(.milliseconds(500)))
        #expect(outcome(steady, Fixture.response(503, elapsed: .milliseconds(119_600))) == .doNotRetry)
        #expect(outcome(steady, Fixture.response(503, headers: ["Retry-After": "30"], elapsed: .seconds(100))) == .doNotRetry)
        #expect(outcome(steady, Fixture.response(503, headers: ["Retry-After": "0"], elapsed: .seconds(121))) == .doNotRetry)
        let noBudget = RetryPolicy(maximumTotalTime: .zero, jitter: false)
        #expect(outcome(noBudget, Fixture.response(503, headers: ["Retry-After": "0"])) == .retry)
        #expect(outcome(noBudget, Fixture.response(503)) == .doNotRetry)
    }

    @Test func clampsSettingsOutOfRange() {
        let odd = RetryPolicy(
            retryLimit: -3,
            exponentialBackoffBase: -2,
            exponentialBackoffScale: .seconds(-1),
            maximumDelay: .seconds(-5),
            maximumTotalTime: .seconds(-5)
        )
        #expect(odd.retryLimit == 0)
        #expect(odd.exponentialBackoffBase == 1)
        #expect(odd.exponentialBackoffScale == .zero)
        #expect(odd.maximumDelay == .zero)
        #expect(odd.maximumTotalTime == .zero)
        #expect(outcome(odd, Fixture.response(503)) == .doNotRetry)
        // A delay beyond any a session waits, with a backoff that overflows: the session's longest.
        let endless = RetryPolicy(retryLimit: .max, maximumDelay: .seconds(Int64.max), maximumTotalTime: .seconds(Int64.max), jitter: false)
        #expect(endless.maximumDelay == RetryDecision.maximumDelay)
        #expect(outcome(endless, Fixture.response(503, retryCount: 5000)) == .retryAfter(RetryDecision.maximumDelay))
        #expect(outcome(endless, Fixture.response(503, headers: ["Retry-After": String(Int.max)])) == .retryAfter(RetryDecision.maximumDelay))
        let immediate = RetryPolicy(retryLimit: .max, exponentialBackoffScale: .zero, jitter: false)
        #expect(outcome(immediate, Fixture.response(503, retryCount: 5000)) == .retry)
    }

    @Test func answersTheSameThroughTheInterceptorChain() async throws {
        let chain = Interceptor(interceptors: [steady])
        let decision = try await chain.retry(Fixture.response(503, headers: ["Retry-After": "2"]))
        #expect(DecisionOutcome(decision) == .retryAfter(.seconds(2)))
        #expect(DecisionOutcome(try await steady.retry(Fixture.response(404))) == .doNotRetry)
    }
}
