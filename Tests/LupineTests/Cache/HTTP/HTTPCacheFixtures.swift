import Foundation
import Testing

@testable import Lupine

/// Requests, responses and stored entries for the HTTP cache's tests, at fixed instants.
enum CacheFixture {
    /// The instant "now" of most tests.
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// `now` moved by `offset` seconds, as an IMF-fixdate.
    static func httpDate(_ offset: TimeInterval) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Self.now.addingTimeInterval(offset))
    }

    static func url(_ path: String = "a") -> URL {
        URL(string: "http://example.test/")?.appending(path: path) ?? URL(fileURLWithPath: "/")
    }

    static func request(_ path: String = "a", method: HTTPMethod = .GET, _ fields: [(String, String)] = []) -> Request {
        Request(url: Self.url(path), method: method, headers: HTTPHeaders(fields))
    }

    static func response(_ status: Int = 200, _ fields: [(String, String)], path: String = "a") -> ResponseHead {
        ResponseHead(status: HTTPResponseStatus(statusCode: status), headers: HTTPHeaders(fields), url: Self.url(path))
    }

    /// Stores `body` for `request` as answered by `response` at `at`, in chunks of `chunk` bytes;
    /// whether a writer was given.
    @discardableResult
    static func store(
        _ cache: HTTPCache, _ request: Request, _ response: ResponseHead, body: [UInt8] = Array("hello".utf8), at: Date = Self.now, chunk: Int = 4096
    ) -> Bool {
        guard let writer = cache.writer(for: request, response: response, requestTime: at, responseTime: at) else { return false }
        for start in stride(from: 0, to: body.count, by: chunk) {
            writer.append(ByteBuffer(bytes: body[start..<min(start + chunk, body.count)]))
        }
        writer.commit()
        return true
    }

    /// A short name for a decision, for comparisons.
    static func kind(_ decision: CacheDecision) -> String {
        switch decision {
        case .fresh: return "fresh"
        case .validate: return "validate"
        case .staleUsable: return "staleUsable"
        case .staleWhileRevalidate: return "staleWhileRevalidate"
        case .miss: return "miss"
        case .unsatisfiable: return "unsatisfiable"
        }
    }

    /// The decision for `request` after storing `response` at `now`, asked `after` seconds later.
    static func decide(response fields: [(String, String)], status: Int = 200, request: [(String, String)] = [], after: TimeInterval) -> CacheDecision {
        let cache = HTTPCache(memoryCapacity: 1 << 20)
        Self.store(cache, Self.request(), Self.response(status, fields))
        return cache.decision(for: Self.request("a", request), now: Self.now.addingTimeInterval(after))
    }

    /// The entry file names in `directory`.
    static func entryFiles(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".lpc") }.sorted()
    }
}
