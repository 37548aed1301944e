import Foundation
import Testing

@testable import Lupine

/// Secondary keys (RFC 9111 §4.1): a stored variant answers only the requests it varies like.
@Suite struct VaryTests {
    private let cache = HTTPCache(memoryCapacity: 1 << 20)

    private func store(_ request: [(String, String)], vary: String, body: String) {
        let response = CacheFixture.response(200, [("Cache-Control", "max-age=60"), ("Vary", vary)])
        CacheFixture.store(self.cache, CacheFixture.request("a", request), response, body: Array(body.utf8))
    }

    private func body(_ request: [(String, String)]) throws -> String? {
        guard case .fresh(let entry) = self.cache.decision(for: CacheFixture.request("a", request), now: CacheFixture.now) else { return nil }
        return String(decoding: try entry.readBody(), as: UTF8.self)
    }

    @Test func aVariantAnswersOnlyEqualValues() throws {
        self.store([("Accept-Encoding", "gzip, deflate")], vary: "Accept-Encoding", body: "gz")
        #expect(try self.body([("Accept-Encoding", "gzip, deflate")]) == "gz")
        #expect(try self.body([("accept-encoding", "gzip,deflate")]) == "gz")
        #expect(try self.body([("Accept-Encoding", "gzip"), ("Accept-Encoding", " deflate ")]) == "gz")
        #expect(try self.body([("Accept-Encoding", "br")]) == nil)
        #expect(try self.body([("Accept-Encoding", "deflate, gzip")]) == nil)
        #expect(try self.body([]) == nil)
    }

    @Test func severalVariantsLiveSideBySide() throws {
        self.store([("Accept-Language", "en")], vary: "accept-language", body: "hello")
        self.store([("Accept-Language", "fr")], vary: "Accept-Language", body: "bonjour")
        self.store([], vary: "Accept-Language", body: "none")
        self.store([("Accept-Language", "")], vary: "Accept-Language", body: "empty")
        #expect(try self.body([("Accept-Language", "en")]) == "hello")
        #expect(try self.body([("Accept-Language", "fr")]) == "bonjour")
        #expect(try self.body([]) == "none")
        #expect(try self.body([("Accept-Language", "")]) == "empty")
    }

    @Test func aNewVaryReplacesTheVariantsOfTheOldOne() throws {
        self.store([("Accept-Language", "en")], vary: "Accept-Language", body: "old")
        self.store([("Accept-Language", "en"), ("Accept", "text/html")], vary: "Accept, Accept-Language", body: "new")
        #expect(try self.body([("Accept-Language", "en")]) == nil)
        #expect(try self.body([("Accept-Language", "en"), ("Accept", "text/html")]) == "new")
    }

    @Test func namesAreNormalisedAndLinesCombined() {
        let headers = HTTPHeaders([("Vary", "Accept,  ACCEPT-language"), ("Vary", "accept , Cookie")])
        #expect(VaryKey.fields(of: headers) == ["accept", "accept-language", "cookie"])
        #expect(VaryKey.fields(of: HTTPHeaders([("Vary", " , ,")])) == [])
    }

    @Test func aHugeVaryIsNotStoredAndCostsLittle() {
        let huge = (0..<1000).map { "X-Field-\($0)" }.joined(separator: ", ")
        #expect(VaryKey.fields(of: HTTPHeaders([("Vary", huge)])) == nil)
        let response = CacheFixture.response(200, [("Cache-Control", "max-age=60"), ("Vary", huge)])
        #expect(!CacheFixture.store(self.cache, CacheFixture.request(), response))
        let many = (0..<VaryKey.maximumFields).map { "X-Field-\($0)" }.joined(separator: ",")
        #expect(VaryKey.fields(of: HTTPHeaders([("Vary", many)]))?.count == VaryKey.maximumFields)
        let repeated = HTTPHeaders(Array(repeating: ("Vary", "Accept"), count: 10_000))
        #expect(VaryKey.fields(of: repeated) == ["accept"])
    }

    @Test func requestValuesNeverReachTheDisk() throws {
        let directory = try temporaryFolder()
        let cache = try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
        let request = CacheFixture.request("a", [("Authorization", "Bearer hunter2-secret")])
        let response = CacheFixture.response(200, [("Cache-Control", "max-age=60, public"), ("Vary", "Authorization")])
        #expect(CacheFixture.store(cache, request, response))
        let files = CacheFixture.entryFiles(directory)
        #expect(files.count == 1)
        let contents = try Data(contentsOf: directory.appending(path: files[0]))
        #expect(contents.range(of: Data("hunter2".utf8)) == nil)
        guard case .fresh = cache.decision(for: request, now: CacheFixture.now) else {
            Issue.record("the variant should answer the same credentials")
            return
        }
        #expect(CacheFixture.kind(cache.decision(for: CacheFixture.request("a", [("Authorization", "Bearer other")]), now: CacheFixture.now)) == "miss")
    }
}
