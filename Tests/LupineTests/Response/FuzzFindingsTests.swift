import Foundation
import Lupine
import LupineTestSupport
import Testing

/// The defects the libFuzzer targets of `Fuzz/` found, each fed back through public API (or the
/// command line) with the input that found it.
@Suite struct FuzzFindingsTests {
    /// A 53-byte binary property list whose top object is a null (marker 0x00): it was handed on
    /// as a value the documentation lists no type for.
    @Test func aPropertyListHoldingANullIsRefusedTyped() throws {
        let hex = "62706c697374303000000035002902025161080d100000000000000101000000000000000300000000000000000000000000000012"
        let bytes = stride(from: 0, to: hex.count, by: 2).compactMap { offset -> UInt8? in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)
        }
        #expect(bytes.count == 53)
        let serialized = PropertyListResponseSerializer(acceptableContentTypes: nil).serialize(head: nil, data: bytes, request: nil)
        guard case .responseSerializationFailed(.propertyListSerializationFailed(let reason))? = serialized.error else {
            Issue.record("not refused: \(String(describing: serialized.value))")
            return
        }
        #expect(reason.contains("null"))
    }

    /// Resume data whose original URL `URLComponents` cannot read (`://v@b.`) kept its user-info,
    /// although resume data never keep credentials.
    @Test func resumeDataDropTheUserInfoOfAURLComponentsCannotRead() throws {
        let encoded = #"{"version": 1, "url": "https://u:p@a", "originalURL": "://v@b.", "bytesReceived": 5, "temporaryFileURL": "file:/f"}"#
        let resumeData = try ResumeData(encoded: Array(encoded.utf8))
        #expect(resumeData.url.user == nil && resumeData.url.password == nil)
        #expect(resumeData.originalURL?.user == nil)
        #expect(resumeData.originalURL?.absoluteString.contains("v@") == false)
        #expect(String(decoding: resumeData.encoded(), as: UTF8.self).contains("v@") == false)
    }

    /// A multipart field name that starts with a combining mark (U+074A) came back from the test
    /// server with its quotes: a quote and the mark were one Character.
    @Test func aFieldNameStartingWithACombiningMarkIsEchoedWithoutQuotes() async throws {
        try await withSessionManager { _, manager in
            let response = try await manager.post("post", parameters: nil) { form in
                form.appendPart(formData: "value", name: "\u{074A}name")
            }
            let echo = try #require(response.value as? [String: any Sendable])
            let form = try #require(echo["form"] as? [String: any Sendable])
            #expect(Array(form.keys) == ["\u{074A}name"])
        }
    }

    /// `pl=` then a combining mark (U+0301) then `=vai`: the `=` joined to the mark was no `=`,
    /// so the item was split at the second one.
    @Test func aRequestItemWhoseSeparatorCarriesACombiningMarkSplitsThere() async throws {
        try await withTestServer { server in
            let run = try await LupineCommandLineTests.lupine(["post", server.baseURL.absoluteString + "/post", "pl=\u{0301}=vai", "--print", "b"])
            #expect(run.status == 0, "\(run.stderr)")
            let echo = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
            let json = try #require(echo?["json"] as? [String: Any])
            #expect(json["pl"] as? String == "\u{0301}=vai")
        }
    }

    /// A cookie-file line whose domain is `..com`: read as the domain `.com` (one dot lost), it
    /// came back from a write and a read as `com`, another cookie. Now the line is refused.
    @Test func aCookieFileDomainWithTwoLeadingDotsIsRefused() {
        let jar = CookieStorage()
        let text = "..com\tFALSE\t/\tFALSE\t0\tv\t\nexample.com\tFALSE\t/\tFALSE\t0\tkept\tyes\n"
        let warnings = jar.importNetscapeText(text)
        #expect(jar.allCookies.map(\.name) == ["kept"])
        #expect(warnings.count == 1)
        let again = CookieStorage()
        _ = again.importNetscapeText(jar.netscapeText())
        #expect(again.allCookies.map(\.domain) == jar.allCookies.map(\.domain))
    }
}
