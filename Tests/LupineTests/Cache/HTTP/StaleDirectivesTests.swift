import Foundation
import Testing

@testable import Lupine

/// RFC 5861's `stale-while-revalidate` and `stale-if-error` as the cache parses and decides them,
/// at fixed instants after a response was stored.
@Suite struct StaleDirectivesTests {
    private let validated = [("ETag", "\"v1\"")]

    private func kind(_ control: String, request: [(String, String)] = [], after: TimeInterval, validated: Bool = true) -> String {
        let fields = [("Cache-Control", control)] + (validated ? self.validated : [])
        return CacheFixture.kind(CacheFixture.decide(response: fields, request: request, after: after))
    }

    /// Whether the decision keeps the entry as the `stale-if-error` fallback.
    private func fallsBack(_ control: String, request: [(String, String)] = [], after: TimeInterval, validated: Bool = true) -> Bool {
        let fields = [("Cache-Control", control)] + (validated ? self.validated : [])
        guard case .validate(_, _, let staleIfError) = CacheFixture.decide(response: fields, request: request, after: after) else { return false }
        return staleIfError
    }

    @Test func theDirectivesParseAndTheSmallestRepeatedValueWins() {
        let control = CacheControl(HTTPHeaders([("Cache-Control", "stale-while-revalidate=30, STALE-IF-ERROR=\"600\""), ("Cache-Control", "stale-while-revalidate=90")]))
        #expect(control.staleWhileRevalidate == 30)
        #expect(control.staleIfError == 600)
        // Invalid or missing arguments allow nothing stale.
        let invalid = CacheControl(HTTPHeaders([("Cache-Control", "stale-while-revalidate, stale-if-error=-1")]))
        #expect(invalid.staleWhileRevalidate == nil)
        #expect(invalid.staleIfError == nil)
        #expect(CacheControl(HTTPHeaders([("Cache-Control", "stale-if-error=99999999999")])).staleIfError == CacheControl.saturatedSeconds)
    }

    @Test func staleWhileRevalidateServesWithinItsWindowOnly() {
        let control = "max-age=60, stale-while-revalidate=30"
        #expect(self.kind(control, after: 30) == "fresh")
        #expect(self.kind(control, after: 70) == "staleWhileRevalidate")
        #expect(self.kind(control, after: 90) == "staleWhileRevalidate")
        #expect(self.kind(control, after: 91) == "validate")
        // Without a validator, the background request is unconditional.
        guard case .staleWhileRevalidate(_, let conditions) = CacheFixture.decide(response: [("Cache-Control", control)], after: 70) else {
            Issue.record("expected staleWhileRevalidate")
            return
        }
        #expect(conditions.isEmpty)
        #expect(self.kind(control, after: 91, validated: false) == "miss")
    }

    @Test func staleWhileRevalidateYieldsToEveryStricterDirective() {
        #expect(self.kind("max-age=60, stale-while-revalidate=30, must-revalidate", after: 70) == "validate")
        #expect(self.kind("max-age=60, stale-while-revalidate=30, no-cache", after: 70) == "validate")
        #expect(self.kind("max-age=60, stale-while-revalidate=30", request: [("Cache-Control", "no-cache")], after: 70) == "validate")
        #expect(self.kind("max-age=60, stale-while-revalidate=30", request: [("Pragma", "no-cache")], after: 70) == "validate")
        #expect(self.kind("max-age=60, stale-while-revalidate=30", request: [("Cache-Control", "max-age=65")], after: 70) == "validate")
        #expect(self.kind("max-age=60, stale-while-revalidate=30", request: [("Cache-Control", "min-fresh=1")], after: 70) == "validate")
        #expect(self.kind("max-age=60, stale-while-revalidate=30", request: [("Cache-Control", "max-age=600")], after: 70) == "staleWhileRevalidate")
        #expect(self.kind("max-age=60, stale-while-revalidate=0", after: 60) == "validate")
        // `only-if-cached` sends nothing, not even in the background.
        #expect(self.kind("max-age=60, stale-while-revalidate=30", request: [("Cache-Control", "only-if-cached")], after: 70) == "staleUsable")
    }

    @Test func staleIfErrorKeepsTheEntryFromTheResponseOrTheRequest() {
        #expect(self.fallsBack("max-age=60, stale-if-error=30", after: 90))
        #expect(!self.fallsBack("max-age=60, stale-if-error=30", after: 91))
        #expect(!self.fallsBack("max-age=60", after: 70))
        #expect(self.fallsBack("max-age=60", request: [("Cache-Control", "stale-if-error=30")], after: 70))
        // The larger allowance of the two counts.
        #expect(self.fallsBack("max-age=60, stale-if-error=5", request: [("Cache-Control", "stale-if-error=30")], after: 80))
        // A fresh entry the request wants validated is stale by nothing.
        #expect(self.fallsBack("max-age=60, stale-if-error=1", request: [("Cache-Control", "max-age=0")], after: 10))
        // Without a validator the request goes unconditional, the entry kept for a failure.
        guard case .validate(_, let conditions, true) = CacheFixture.decide(response: [("Cache-Control", "max-age=60, stale-if-error=30")], after: 70) else {
            Issue.record("expected a validation with the entry as fallback")
            return
        }
        #expect(conditions.isEmpty)
        #expect(self.kind("max-age=60, stale-if-error=30", after: 91, validated: false) == "miss")
    }

    @Test func mustRevalidateAndNoCacheWinOverStaleIfError() {
        #expect(!self.fallsBack("max-age=60, stale-if-error=30, must-revalidate", after: 70))
        #expect(!self.fallsBack("max-age=60, stale-if-error=30, no-cache", after: 70))
        #expect(!self.fallsBack("max-age=60, stale-if-error=30", request: [("Cache-Control", "no-cache")], after: 70))
        #expect(!self.fallsBack("max-age=60, stale-if-error=30", request: [("Pragma", "no-cache")], after: 70))
        #expect(self.kind("max-age=60, stale-if-error=30, must-revalidate", after: 70, validated: false) == "miss")
    }

    @Test func aResponseUsableOnlyStaleIsStored() {
        let cache = HTTPCache(memoryCapacity: 1 << 20)
        let request = CacheFixture.request()
        #expect(CacheFixture.store(cache, request, CacheFixture.response(200, [("Cache-Control", "max-age=0, stale-if-error=60")])))
        #expect(CacheFixture.store(cache, request, CacheFixture.response(200, [("Cache-Control", "max-age=0, stale-while-revalidate=60")])))
        #expect(!CacheFixture.store(cache, request, CacheFixture.response(200, [("Cache-Control", "max-age=0, stale-if-error=60, must-revalidate")])))
        #expect(!CacheFixture.store(cache, request, CacheFixture.response(200, [("Cache-Control", "max-age=0, stale-if-error=0")])))
    }
}
