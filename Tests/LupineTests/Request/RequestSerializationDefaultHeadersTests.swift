import Foundation
import Testing

@testable import Lupine

/// The default `Accept-Language` and `User-Agent` header fields.
@Suite struct RequestSerializationDefaultHeadersTests {
    @Test func acceptLanguageListsTheFirstSixLanguagesWithFallingQ() {
        let value = DefaultRequestHeaders.acceptLanguage(preferredLanguages: ["en", "fr", "de", "es", "it", "ja", "zh"])
        #expect(value == "en;q=1, fr;q=0.9, de;q=0.8, es;q=0.7, it;q=0.6, ja;q=0.5")
    }

    @Test func acceptLanguageForOneLanguage() {
        #expect(DefaultRequestHeaders.acceptLanguage(preferredLanguages: ["en-US"]) == "en-US;q=1")
    }

    @Test func preferredLanguagesAreNeverEmpty() {
        #expect(!DefaultRequestHeaders.preferredLanguages.isEmpty)
    }

    @Test func serializerHasAnAcceptLanguageOfTheRightShape() throws {
        let value = try #require(HTTPRequestSerializer().value(forHTTPHeaderField: "Accept-Language"))
        let entries = value.components(separatedBy: ", ")
        #expect((1...6).contains(entries.count))
        for (index, entry) in entries.enumerated() {
            let parts = entry.components(separatedBy: ";q=")
            #expect(parts.count == 2)
            #expect(parts.first?.isEmpty == false)
            #expect(parts.last == (index == 0 ? "1" : "0.\(10 - index)"))
        }
    }

    @Test func userAgentNamesLupineAndTheSystem() throws {
        let built = DefaultRequestHeaders.userAgent(operatingSystem: "Linux", version: "6.1.0")
        #expect(built == "Lupine/\(LupineVersion.current) (Linux 6.1.0)")
        let value = try #require(HTTPRequestSerializer().value(forHTTPHeaderField: "User-Agent"))
        #expect(value.hasPrefix("Lupine/\(LupineVersion.current) ("))
        #expect(value.hasSuffix(")"))
        #expect(value.contains(DefaultRequestHeaders.operatingSystemName))
        #expect(value.allSatisfy { $0.isASCII })
        #if os(Linux)
        #expect(value.hasPrefix("Lupine/\(LupineVersion.current) (Linux "))
        #endif
    }

    @Test func builtRequestsCarryBothDefaults() throws {
        let request = try HTTPRequestSerializer().request(method: .GET, urlString: "http://example.com/")
        #expect(request.value(forHTTPHeaderField: "Accept-Language") != nil)
        #expect(request.value(forHTTPHeaderField: "User-Agent")?.hasPrefix("Lupine/") == true)
    }

    @Test func versionIsSemantic() {
        let parts = LupineVersion.current.split(separator: ".")
        #expect(parts.count == 3)
        #expect(parts.allSatisfy { Int($0) != nil })
    }
}
