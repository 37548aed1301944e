import Foundation
import Lupine
import Testing

/// The JSON request serializer takes any JSON object at the top level, as AFNetworking's does:
/// an array as well as a dictionary.
@Suite struct JSONArrayBodyTests {
    @Test func topLevelArrayIsSentAndEchoedAsJSON() async throws {
        try await withSessionManager { server, manager in
            let request = try JSONRequestSerializer().request(
                method: .POST,
                urlString: server.baseURL.appending("/post").absoluteString,
                jsonObject: [["key": "value"]]
            )
            #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
            let response = try await manager.response(for: request, serializer: JSONResponseSerializer())
            let echo = try #require(response.value as? [String: any Sendable])
            let json = try #require(echo["json"] as? [any Sendable])
            #expect(json.count == 1)
            #expect((json.first as? [String: any Sendable])?["key"] as? String == "value")
            #expect(echo["data"] as? String == #"[{"key":"value"}]"#)
        }
    }

    @Test func dictionaryThroughJSONObjectMatchesParameters() throws {
        let serializer = JSONRequestSerializer(writingOptions: .sortedKeys)
        let url = "http://example.com/"
        let viaObject = try serializer.request(method: .POST, urlString: url, jsonObject: ["b": 1, "a": [true]] as [String: any Sendable])
        let viaParameters = try serializer.request(method: .POST, urlString: url, parameters: ["b": 1, "a": [true]])
        #expect(viaObject.bodyText == viaParameters.bodyText)
        #expect(viaObject.bodyText == #"{"a":[true],"b":1}"#)
    }

    @Test func nestedInvalidValueInAnArrayIsNamedByItsPath() throws {
        let error = #expect(throws: LupineError.self) {
            try JSONRequestSerializer().request(method: .POST, urlString: "http://example.com/", jsonObject: [["when": Date()]] as [any Sendable])
        }
        guard case .parameterEncodingFailed(.jsonEncodingFailed(_, let reason)) = error else {
            Issue.record("expected jsonEncodingFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("[0].when"))
    }

    @Test(arguments: ["text" as any Sendable, 42 as any Sendable, NSNull() as any Sendable])
    func topLevelFragmentIsRefused(object: any Sendable) throws {
        let error = #expect(throws: LupineError.self) {
            try JSONRequestSerializer().request(method: .POST, urlString: "http://example.com/", jsonObject: object)
        }
        guard case .parameterEncodingFailed(.jsonEncodingFailed(_, let reason)) = error else {
            Issue.record("expected jsonEncodingFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("neither an array nor a dictionary"))
    }

    @Test func arrayForAMethodWithParametersInTheQueryIsRefused() throws {
        #expect(throws: LupineError.self) {
            try JSONRequestSerializer().request(method: .GET, urlString: "http://example.com/", jsonObject: [1, 2])
        }
        let request = try JSONRequestSerializer().request(method: .GET, urlString: "http://example.com/", jsonObject: ["a": 1])
        #expect(request.url.query == "a=1")
    }
}
