import Foundation
import Testing

@testable import Lupine

/// A span's `url.full`: no user-info, query values redacted, names kept, no fragment.
@Suite struct ObservedURLTests {
    private func full(_ string: String) throws -> String {
        ObservedURL.full(try #require(URL(string: string)))
    }

    @Test func userInfoIsLeftOut() throws {
        #expect(try self.full("https://alice:s3cret@example.com:8443/a/b") == "https://example.com:8443/a/b")
        #expect(try self.full("https://alice@example.com/") == "https://example.com/")
    }

    @Test func everyQueryValueIsRedactedAndItsNameKept() throws {
        #expect(try self.full("http://example.com/x?token=abc&page=2&flag") == "http://example.com/x?token=REDACTED&page=REDACTED&flag")
        #expect(try self.full("http://example.com/x?sig=a%20b&empty=") == "http://example.com/x?sig=REDACTED&empty=REDACTED")
    }

    @Test func theFragmentIsLeftOutAndAPlainURLStaysAsItIs() throws {
        #expect(try self.full("http://example.com/x#section") == "http://example.com/x")
        #expect(try self.full("http://127.0.0.1:8080/get") == "http://127.0.0.1:8080/get")
    }
}
