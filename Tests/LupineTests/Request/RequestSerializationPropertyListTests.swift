import Foundation
import Testing

@testable import Lupine

/// `PropertyListRequestSerializer` against AFNetworking's `AFPropertyListRequestSerializer`.
@Suite struct RequestSerializationPropertyListTests {
    let serializer = PropertyListRequestSerializer()

    @Test func postParametersBecomeAnXMLPropertyList() throws {
        let parameters: [String: any Sendable] = [
            "name": "Lupine",
            "count": 2,
            "enabled": true,
            "when": Date(timeIntervalSince1970: 0),
            "bytes": Data([1, 2]),
            "list": [1.5, 2.5],
        ]
        let request = try serializer.request(method: .POST, urlString: "http://example.com/", parameters: parameters)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-plist")
        let text = try #require(request.bodyText)
        #expect(text.hasPrefix("<?xml"))
        #expect(text.contains("<key>name</key>"))
        #expect(text.contains("<string>Lupine</string>"))
        #expect(text.contains("<date>1970-01-01T00:00:00Z</date>"))
        let decoded = try PropertyListSerialization.propertyList(from: Data(try #require(request.bodyBytes)), format: nil)
        let dictionary = try #require(decoded as? [String: Any])
        #expect(dictionary["name"] as? String == "Lupine")
        #expect(dictionary["count"] as? Int == 2)
        #expect(dictionary["enabled"] as? Bool == true)
        #expect(dictionary["bytes"] as? Data == Data([1, 2]))
        #expect(dictionary["list"] as? [Double] == [1.5, 2.5])
    }

    @Test func binaryFormat() throws {
        let binary = PropertyListRequestSerializer(format: .binary)
        let request = try binary.request(method: .PUT, urlString: "http://example.com/", parameters: ["a": 1])
        #expect(request.bodyBytes?.starts(with: Array("bplist00".utf8)) == true)
    }

    @Test func contentTypeIsSetOnlyIfAbsent() throws {
        var request = Request(url: try #require(URL(string: "http://example.com/")), method: .POST)
        request.setValue("text/xml", forHTTPHeaderField: "Content-Type")
        let serialized = try serializer.serialize(request, parameters: ["a": 1])
        #expect(serialized.headers[canonicalForm: "Content-Type"] == ["text/xml"])
    }

    @Test func uriMethodsStillUseTheQuery() throws {
        let request = try serializer.request(method: .GET, urlString: "http://example.com/", parameters: ["a": 1])
        #expect(request.url.absoluteString == "http://example.com/?a=1")
        #expect(request.hasNoBody)
    }

    @Test func noParametersLeaveTheBodyAlone() throws {
        let request = try serializer.request(method: .POST, urlString: "http://example.com/", parameters: nil)
        #expect(request.hasNoBody)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test(arguments: [
        ("null", NSNull() as any Sendable, "null"),
        ("nil", String?.none as any Sendable, "null"),
        ("keys", [1: "one"] as [Int: String] as any Sendable, "keys must be strings"),
        ("set", Set(["a"]) as any Sendable, "Set"),
        ("url", URL(fileURLWithPath: "/tmp") as any Sendable, "URL"),
    ])
    func invalidValuesAreAnError(key: String, value: any Sendable, mention: String) throws {
        let error = #expect(throws: LupineError.self) {
            try serializer.request(
                method: .POST,
                urlString: "http://example.com/",
                parameters: ["outer": ["inner": value] as [String: any Sendable]]
            )
        }
        guard case .propertyListEncodingFailed(let parameters, let reason) = try parameterEncodingReason(of: error) else {
            Issue.record("expected propertyListEncodingFailed, got \(String(describing: error))")
            return
        }
        #expect(parameters.contains("outer"))
        #expect(reason.contains("outer.inner"), "\(key): \(reason)")
        #expect(reason.contains(mention), "\(key): \(reason)")
    }

    @Test func openStepFormatIsAnErrorNotATrap() throws {
        let openStep = PropertyListRequestSerializer(format: .openStep)
        let error = #expect(throws: LupineError.self) {
            try openStep.request(method: .POST, urlString: "http://example.com/", parameters: ["a": 1])
        }
        guard case .propertyListEncodingFailed(_, let reason) = try parameterEncodingReason(of: error) else {
            Issue.record("expected propertyListEncodingFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("OpenStep"))
    }
}
