import Foundation
import Lupine
import Testing

/// The fixed instant the cookie tests store and send at.
let cookieTestNow = Date(timeIntervalSince1970: 1_800_000_000)

/// `string` as a URL; one that is not fails the test and gives `http://invalid.invalid/`.
func cookieURL(_ string: String, sourceLocation: SourceLocation = #_sourceLocation) -> URL {
    guard let url = URL(string: string) else {
        Issue.record("\(string) is not a URL", sourceLocation: sourceLocation)
        return URL(fileURLWithPath: "/").deletingLastPathComponent()
    }
    return url
}

extension CookieStorage {
    /// Stores `values` as set by a response from `url` at `now`.
    func store(_ values: [String], from url: String, now: Date = cookieTestNow) {
        self.storeCookies(fromSetCookieValues: values, for: cookieURL(url), now: now)
    }

    /// The `Cookie` field value for `url` at `now`.
    func header(for url: String, now: Date = cookieTestNow) -> String? {
        self.cookieHeaderValue(for: cookieURL(url), now: now)
    }

    /// `name=value` of every stored cookie, sorted.
    var pairs: [String] {
        self.allCookies.map { "\($0.name)=\($0.value)" }.sorted()
    }
}
