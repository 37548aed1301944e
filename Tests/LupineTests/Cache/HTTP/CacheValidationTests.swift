import Foundation
import Testing

@testable import Lupine

/// A 304 refreshing a stored response (RFC 9111 §4.3.4) and invalidation by unsafe methods (§4.4).
@Suite struct CacheValidationTests {
    private let stored = [("Cache-Control", "max-age=60"), ("ETag", "\"v1\""), ("Content-Length", "5"), ("Content-Type", "text/plain"), ("X-Old", "1")]

    private func refreshed(_ cache: HTTPCache) throws -> CacheEntry {
        CacheFixture.store(cache, CacheFixture.request(), CacheFixture.response(200, self.stored))
        let later = CacheFixture.now.addingTimeInterval(100)
        guard case .validate(let entry, _, _) = cache.decision(for: CacheFixture.request(), now: later) else {
            throw CancellationError()
        }
        let notModified = CacheFixture.response(
            304,
            [
                ("Cache-Control", "max-age=120"), ("ETag", "\"v1\""), ("Content-Length", "0"), ("Content-Encoding", "gzip"), ("X-New", "2"), ("Set-Cookie", "a=b"),
            ])
        return cache.refresh(entry, with: notModified, requestTime: later, responseTime: later)
    }

    @Test func a304UpdatesTheHeadersButNotTheBodyFraming() throws {
        let cache = HTTPCache(memoryCapacity: 1 << 20)
        let entry = try self.refreshed(cache)
        #expect(entry.head.statusCode == 200)
        #expect(entry.head.headers["Cache-Control"] == ["max-age=120"])
        #expect(entry.head.headers["Content-Length"] == ["5"])
        #expect(entry.head.headers["Content-Encoding"] == [])
        #expect(entry.head.headers["Set-Cookie"] == ["a=b"])
        #expect(entry.head.headers["X-Old"] == ["1"] && entry.head.headers["X-New"] == ["2"])
        #expect(entry.head.headers["Age"] == ["0"])
        #expect(try entry.readBody() == Array("hello".utf8))
        // Stored again: fresh for its new lifetime.
        #expect(CacheFixture.kind(cache.decision(for: CacheFixture.request(), now: CacheFixture.now.addingTimeInterval(200))) == "fresh")
    }

    /// A 304 awaited while another request stored a newer 200 (a background revalidation beside
    /// a foreground request) does not write the older body back over it, in memory or on disk.
    @Test(arguments: [false, true]) func aRefreshDoesNotReplaceANewerResponse(onDisk: Bool) throws {
        let cache =
            onDisk
            ? try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: try temporaryFolder())
            : HTTPCache(memoryCapacity: 1 << 20)
        CacheFixture.store(cache, CacheFixture.request(), CacheFixture.response(200, self.stored), body: Array("old".utf8))
        let later = CacheFixture.now.addingTimeInterval(100)
        guard case .validate(let entry, _, _) = cache.decision(for: CacheFixture.request(), now: later) else {
            Issue.record("expected a validation")
            return
        }
        // Meanwhile a new 200 is stored; then the validation's 304 arrives.
        CacheFixture.store(cache, CacheFixture.request(), CacheFixture.response(200, self.stored), body: Array("new".utf8), at: later)
        let notModified = CacheFixture.response(304, [("Cache-Control", "max-age=120"), ("ETag", "\"v1\"")])
        _ = cache.refresh(entry, with: notModified, requestTime: later.addingTimeInterval(1), responseTime: later.addingTimeInterval(1))
        let kept = try #require(cache.anyStoredEntry(for: CacheFixture.request()))
        #expect(try kept.readBody() == Array("new".utf8))
    }

    @Test func aRefreshedDiskEntrySurvivesReopening() throws {
        let directory = try temporaryFolder()
        let cache = try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
        _ = try self.refreshed(cache)
        let reopened = try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
        guard case .fresh(let entry) = reopened.decision(for: CacheFixture.request(), now: CacheFixture.now.addingTimeInterval(200)) else {
            Issue.record("the refreshed entry should be fresh after reopening")
            return
        }
        #expect(entry.head.headers["X-New"] == ["2"])
        #expect(try entry.readBody() == Array("hello".utf8))
        #expect(CacheFixture.entryFiles(directory).count == 1)
    }

    @Test func unsafeMethodsInvalidateTheTargetAndSameOriginLocations() {
        let cache = HTTPCache(memoryCapacity: 1 << 20)
        for path in ["a", "b", "c", "d"] {
            CacheFixture.store(cache, CacheFixture.request(path), CacheFixture.response(200, self.stored, path: path))
        }
        let other = "http://elsewhere.test/d"
        cache.invalidate(after: CacheFixture.request("a", method: .POST), response: CacheFixture.response(201, [("Location", "/b"), ("Content-Location", other)]))
        #expect(cache.anyStoredEntry(for: CacheFixture.request("a")) == nil)
        #expect(cache.anyStoredEntry(for: CacheFixture.request("b")) == nil)
        #expect(cache.anyStoredEntry(for: CacheFixture.request("c")) != nil)
        cache.invalidate(after: CacheFixture.request("c", method: .DELETE), response: CacheFixture.response(500, []))
        #expect(cache.anyStoredEntry(for: CacheFixture.request("c")) != nil)
        cache.invalidate(after: CacheFixture.request("c", method: .GET), response: CacheFixture.response(200, []))
        #expect(cache.anyStoredEntry(for: CacheFixture.request("c")) != nil)
        cache.invalidate(after: CacheFixture.request("c", method: .PATCH), response: CacheFixture.response(303, [("Location", "http://EXAMPLE.test:80/d")]))
        #expect(cache.anyStoredEntry(for: CacheFixture.request("c")) == nil)
        #expect(cache.anyStoredEntry(for: CacheFixture.request("d")) == nil)
    }
}
