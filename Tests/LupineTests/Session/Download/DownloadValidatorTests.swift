import Foundation
import NIOHTTP1
import Testing

@testable import Lupine

/// Which response validators a resumed download may send back in `If-Range` (RFC 9110 §13.1.5).
@Suite struct DownloadValidatorTests {
    private func head(_ fields: [(String, String)]) throws -> ResponseHead {
        ResponseHead(status: .ok, headers: HTTPHeaders(fields), url: try #require(URL(string: "http://127.0.0.1/file")))
    }

    @Test func aStrongEntityTagIsUsedAndAWeakOneIsNot() throws {
        #expect(ResumeData.validator(of: try self.head([("ETag", "\"v1\"")]))?.entityTag == "\"v1\"")
        #expect(ResumeData.validator(of: try self.head([("ETag", "W/\"v1\"")])) == nil)
    }

    @Test func lastModifiedCountsOnlyWhenASecondOlderThanTheResponse() throws {
        let strong = try self.head([("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT"), ("Date", "Sun, 06 Nov 1994 08:49:38 GMT")])
        #expect(ResumeData.validator(of: strong)?.lastModified == "Sun, 06 Nov 1994 08:49:37 GMT")
        let sameSecond = try self.head([("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT"), ("Date", "Sun, 06 Nov 1994 08:49:37 GMT")])
        #expect(ResumeData.validator(of: sameSecond) == nil)
        let undated = try self.head([("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")])
        #expect(ResumeData.validator(of: undated) == nil)
        let garbled = try self.head([("Last-Modified", "yesterday"), ("Date", "Sun, 06 Nov 1994 08:49:38 GMT")])
        #expect(ResumeData.validator(of: garbled) == nil)
    }

    @Test func aServerRefusingRangesGivesNoValidator() throws {
        #expect(ResumeData.validator(of: try self.head([("ETag", "\"v1\""), ("Accept-Ranges", "none")])) == nil)
    }

    /// Ranges count the encoded bytes, and the file holds them inflated: an encoded body cannot
    /// be continued, whatever its validator.
    @Test func anEncodedBodyCannotBeResumed() throws {
        for coding in ["gzip", "deflate", " GZIP ", "br"] {
            let encoded = try self.head([("ETag", "\"v1\""), ("Content-Encoding", coding)])
            #expect(!ResumeData.isResumable(encoded) && ResumeData.validator(of: encoded) == nil, "\(coding)")
        }
        #expect(ResumeData.validator(of: try self.head([("ETag", "\"v1\""), ("Content-Encoding", "identity")]))?.entityTag == "\"v1\"")
    }
}
