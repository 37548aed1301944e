import Foundation
import Testing

@testable import Lupine

/// Freshness lifetime and age (RFC 9111 §4.2), at fixed instants.
@Suite struct FreshnessTests {
    private let now = CacheFixture.now

    private func freshness(_ fields: [(String, String)], status: Int = 200, requested: TimeInterval = 0) -> Freshness {
        Freshness(status: status, headers: HTTPHeaders(fields), requestTime: self.now.addingTimeInterval(requested), responseTime: self.now)
    }

    @Test func maxAgeWinsOverExpiresAndSharedMaxAgeIsIgnored() {
        #expect(self.freshness([("Cache-Control", "max-age=60"), ("Expires", CacheFixture.httpDate(600))]).lifetime == 60)
        #expect(self.freshness([("Cache-Control", "s-maxage=600")]).lifetime == 0)
    }

    @Test func expiresCountsFromDate() {
        let fields = [("Date", CacheFixture.httpDate(-50)), ("Expires", CacheFixture.httpDate(50))]
        #expect(self.freshness(fields).lifetime == 100)
        #expect(self.freshness([("Expires", CacheFixture.httpDate(30))]).lifetime == 30)
        #expect(self.freshness([("Expires", "Sunday, 06-Nov-94 08:49:37 GMT")]).lifetime == 0)
    }

    @Test func anInvalidExpiresMeansStale() {
        for value in ["0", "-1", "tomorrow", ""] {
            let freshness = self.freshness([("Expires", value), ("Last-Modified", CacheFixture.httpDate(-100_000))])
            #expect(freshness.lifetime == 0, "\(value)")
        }
    }

    @Test func heuristicIsATenthOfTheTimeSinceLastModified() {
        let modified = [("Date", CacheFixture.httpDate(0)), ("Last-Modified", CacheFixture.httpDate(-1000))]
        #expect(self.freshness(modified).lifetime == 100)
        for status in [203, 204, 300, 301, 308, 404, 405, 410, 414, 501] {
            #expect(self.freshness(modified, status: status).lifetime == 100, "\(status)")
        }
        for status in [201, 206, 302, 307, 500, 503] {
            #expect(self.freshness(modified, status: status).lifetime == 0, "\(status)")
        }
        #expect(self.freshness(modified + [("Cache-Control", "public")], status: 500).lifetime == 100)
        #expect(self.freshness([("Last-Modified", CacheFixture.httpDate(500))]).lifetime == 0)
    }

    @Test func theHeuristicIsCappedAtAWeek() {
        let lifetime = self.freshness([("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")]).lifetime
        #expect(lifetime == Freshness.heuristicCap)
    }

    @Test func aDateInTheFarFutureDoesNotMakeAnEntryFreshForever() {
        let future = [("Date", "Fri, 01 Jan 9999 00:00:00 GMT"), ("Last-Modified", CacheFixture.httpDate(-1000))]
        #expect(self.freshness(future).lifetime == 100)
        let expires = [("Date", "Fri, 01 Jan 9999 00:00:00 GMT"), ("Expires", CacheFixture.httpDate(60))]
        #expect(self.freshness(expires).lifetime == 0)
        #expect(self.freshness(future).currentAge(at: self.now) == 0)
    }

    @Test func ageCorrectsForTheDateTheAgeHeaderAndTheResponseDelay() {
        // Sent 2 s before it arrived, dated 10 s before, 5 s old on arrival per Age.
        let dated = self.freshness([("Date", CacheFixture.httpDate(-10)), ("Age", "5")], requested: -2)
        #expect(dated.correctedInitialAge == 10)
        #expect(dated.currentAge(at: self.now.addingTimeInterval(20)) == 30)
        let aged = self.freshness([("Date", CacheFixture.httpDate(-10)), ("Age", "100")], requested: -2)
        #expect(aged.correctedInitialAge == 102)
        let undated = self.freshness([("Age", "garbage")], requested: -3)
        #expect(undated.correctedInitialAge == 3)
        #expect(self.freshness([("Age", "99999999999999")]).correctedInitialAge == 2_147_483_648)
    }

    /// A list in one Age line is read by its first member, as repeated lines are by the first
    /// (cache-tests.fyi's `age-parse-suffix` and `-prefix`).
    @Test func anAgeListIsReadByItsFirstMember() {
        #expect(self.freshness([("Age", "7200, 0")]).correctedInitialAge == 7200)
        #expect(self.freshness([("Age", "0, 7200")]).correctedInitialAge == 0)
        #expect(self.freshness([("Age", " 30 ,0")]).correctedInitialAge == 30)
        #expect(self.freshness([("Age", "7200"), ("Age", "0")]).correctedInitialAge == 7200)
        // Empty members are no members (RFC 9110 §5.6.1).
        #expect(self.freshness([("Age", ", 7200")]).correctedInitialAge == 7200)
        #expect(self.freshness([("Age", " ,, 60, 0")]).correctedInitialAge == 60)
    }

    @Test func theAgeIsNeverNegative() {
        let freshness = self.freshness([("Cache-Control", "max-age=60")])
        #expect(freshness.currentAge(at: self.now.addingTimeInterval(-3600)) == 0)
    }

    @Test func noCacheAndMustRevalidateForbidStaleService() {
        #expect(self.freshness([("Cache-Control", "no-cache")]).mustRevalidate)
        #expect(self.freshness([("Cache-Control", "no-cache=\"Set-Cookie\"")]).noCache)
        #expect(self.freshness([("Cache-Control", "must-revalidate")]).mustRevalidate)
        #expect(!self.freshness([("Cache-Control", "proxy-revalidate")]).mustRevalidate)
    }
}
