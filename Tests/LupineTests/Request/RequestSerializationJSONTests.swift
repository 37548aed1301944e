import Foundation
import Testing

@testable import Lupine

/// `JSONRequestSerializer` against AFNetworking's `AFJSONRequestSerializer`.
@Suite struct RequestSerializationJSONTests {
    let serializer = JSONRequestSerializer(writingOptions: .sortedKeys)

    /// A type JSON cannot represent.
    struct Opaque: Sendable {
        var value = 1
    }

    @Test func postParametersBecomeAJSONBody() throws {
        let parameters: [String: any Sendable] = [
            "name": "Lupine",
            "count": 2,
            "ratio": 0.5,
            "enabled": true,
            "nothing": NSNull(),
            "missing": String?.none,
            "nested": ["list": [1, "two"] as [any Sendable]] as [String: any Sendable],
        ]
        let request = try serializer.request(method: .POST, urlString: "http://example.com/post", parameters: parameters)
        #expect(
            request.bodyText
                == #"{"count":2,"enabled":true,"missing":null,"name":"Lupine","nested":{"list":[1,"two"]},"nothing":null,"ratio":0.5}"#
        )
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(request.value(forHTTPHeaderField: "User-Agent") != nil)
    }

    @Test func contentTypeIsSetOnlyIfAbsent() throws {
        var request = Request(url: try #require(URL(string: "http://example.com/")), method: .PUT)
        request.setValue("application/vnd.api+json", forHTTPHeaderField: "Content-Type")
        let serialized = try serializer.serialize(request, parameters: ["a": 1])
        #expect(serialized.headers[canonicalForm: "Content-Type"] == ["application/vnd.api+json"])
        #expect(serialized.bodyText == #"{"a":1}"#)
    }

    @Test(arguments: [HTTPMethod.GET, .HEAD, .DELETE])
    func uriMethodsStillUseTheQuery(method: HTTPMethod) throws {
        let request = try serializer.request(method: method, urlString: "http://example.com/", parameters: ["q": "a b"])
        #expect(request.url.absoluteString == "http://example.com/?q=a%20b")
        #expect(request.hasNoBody)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test func noParametersLeaveTheBodyAndContentTypeAlone() throws {
        let request = try serializer.request(method: .POST, urlString: "http://example.com/", parameters: nil)
        #expect(request.hasNoBody)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test func emptyParametersGiveAnEmptyObject() throws {
        let request = try serializer.request(method: .POST, urlString: "http://example.com/", parameters: [:])
        #expect(request.bodyText == "{}")
    }

    @Test func writingOptionsAreUsed() throws {
        let pretty = JSONRequestSerializer(writingOptions: [.prettyPrinted, .sortedKeys])
        let request = try pretty.request(method: .POST, urlString: "http://example.com/", parameters: ["a": 1])
        #expect(request.bodyText?.contains("\n") == true)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteNumbersAreAnErrorNamingTheParameters(number: Double) throws {
        let error = #expect(throws: LupineError.self) {
            try serializer.request(
                method: .POST,
                urlString: "http://example.com/",
                parameters: ["score": ["value": number] as [String: any Sendable]]
            )
        }
        guard case .jsonEncodingFailed(let parameters, let reason) = try parameterEncodingReason(of: error) else {
            Issue.record("expected jsonEncodingFailed, got \(String(describing: error))")
            return
        }
        #expect(parameters.contains("score"))
        #expect(reason.contains("score.value"))
        #expect(reason.contains("\(number)"))
    }

    @Test func floatNaNIsAnError() throws {
        #expect(throws: LupineError.self) {
            try serializer.request(method: .POST, urlString: "http://example.com/", parameters: ["f": Float.nan])
        }
    }

    @Test(arguments: [
        ("date", Date(timeIntervalSince1970: 0) as any Sendable, "Date"),
        ("opaque", Opaque() as any Sendable, "Opaque"),
        ("set", Set([1, 2]) as any Sendable, "Set"),
        ("keys", [1: "one"] as [Int: String] as any Sendable, "keys must be strings"),
        ("data", Data([1]) as any Sendable, "Data"),
    ])
    func invalidValuesAreAnErrorNamingThem(key: String, value: any Sendable, mention: String) throws {
        let error = #expect(throws: LupineError.self) {
            try serializer.request(method: .POST, urlString: "http://example.com/", parameters: ["list": [value] as [any Sendable]])
        }
        guard case .jsonEncodingFailed(let parameters, let reason) = try parameterEncodingReason(of: error) else {
            Issue.record("expected jsonEncodingFailed, got \(String(describing: error))")
            return
        }
        #expect(parameters.contains("list"))
        #expect(reason.contains("list[0]"), "\(key): \(reason)")
        #expect(reason.contains(mention), "\(key): \(reason)")
    }

    @Test func sharesConfigurationThroughBase() throws {
        var serializer = JSONRequestSerializer()
        serializer.base.setValue("v", forHTTPHeaderField: "X-Base")
        serializer.setAuthorizationHeaderField(username: "user", password: "password")
        let request = try serializer.request(method: .PATCH, urlString: "http://example.com/", parameters: ["a": 1])
        #expect(request.value(forHTTPHeaderField: "X-Base") == "v")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Basic dXNlcjpwYXNzd29yZA==")
    }
}
