import Foundation
import Testing

@testable import Lupine

/// Parameters given as an `Encodable` value.
@Suite struct RequestSerializationEncodableTests {
    struct User: Encodable, Sendable {
        var name: String
        var age: Int
        var admin: Bool
        var tags: [String]
        var nickname: String?
        var address: Address
    }

    struct Address: Encodable, Sendable {
        var city: String
    }

    let user = User(name: "Ann Lee", age: 30, admin: true, tags: ["a", "b"], nickname: nil, address: Address(city: "Oslo"))

    @Test func encodableParametersGoIntoTheQuery() throws {
        let request = try HTTPRequestSerializer().request(method: .GET, urlString: "http://example.com/", encodableParameters: user)
        #expect(
            request.url.query(percentEncoded: true)
                == "address%5Bcity%5D=Oslo&admin=1&age=30&name=Ann%20Lee&tags%5B%5D=a&tags%5B%5D=b"
        )
    }

    @Test func encodableParametersGoIntoAFormBody() throws {
        let request = try HTTPRequestSerializer().request(method: .POST, urlString: "http://example.com/", encodableParameters: user)
        #expect(request.bodyText == "address%5Bcity%5D=Oslo&admin=1&age=30&name=Ann%20Lee&tags%5B%5D=a&tags%5B%5D=b")
    }

    @Test func encodableParametersGoIntoAJSONBody() throws {
        let serializer = JSONRequestSerializer(writingOptions: .sortedKeys)
        let request = try serializer.request(method: .POST, urlString: "http://example.com/", encodableParameters: user)
        #expect(request.bodyText == #"{"address":{"city":"Oslo"},"admin":true,"age":30,"name":"Ann Lee","tags":["a","b"]}"#)
    }

    @Test func encodableParametersGoIntoAPropertyList() throws {
        let serializer = PropertyListRequestSerializer()
        let request = try serializer.request(method: .POST, urlString: "http://example.com/", encodableParameters: user)
        let decoded = try PropertyListSerialization.propertyList(from: Data(try #require(request.bodyBytes)), format: nil)
        let dictionary = try #require(decoded as? [String: Any])
        #expect(dictionary["name"] as? String == "Ann Lee")
        #expect(dictionary["admin"] as? Bool == true)
        #expect((dictionary["address"] as? [String: Any])?["city"] as? String == "Oslo")
    }

    @Test func topLevelArrayIsAnError() throws {
        let error = #expect(throws: LupineError.self) {
            try HTTPRequestSerializer().request(method: .GET, urlString: "http://example.com/", encodableParameters: [1, 2])
        }
        guard case .jsonEncodingFailed(_, let reason) = try parameterEncodingReason(of: error) else {
            Issue.record("expected jsonEncodingFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("JSON object"))
    }

    /// As Alamofire's `JSONParameterEncoder`: the JSON serializer takes any top-level
    /// `Encodable`, an array of values included (issue 30; it was refused as "not a JSON object").
    @Test func theJSONSerializerTakesATopLevelEncodableArray() throws {
        let serializer = JSONRequestSerializer(writingOptions: .sortedKeys)
        let request = try serializer.request(method: .POST, urlString: "http://example.com/", encodableParameters: [user, user])
        let one = #"{"address":{"city":"Oslo"},"admin":true,"age":30,"name":"Ann Lee","tags":["a","b"]}"#
        #expect(request.bodyText == "[\(one),\(one)]")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        // A GET carries its parameters in the query, which takes only keyed values.
        #expect(throws: LupineError.self) { try serializer.request(method: .GET, urlString: "http://example.com/", encodableParameters: [1, 2]) }
        #expect(throws: LupineError.self) { try serializer.request(method: .POST, urlString: "http://example.com/", encodableParameters: "text") }
    }

    @Test func topLevelStringIsAnError() throws {
        #expect(throws: LupineError.self) {
            try HTTPRequestSerializer().request(method: .GET, urlString: "http://example.com/", encodableParameters: "text")
        }
    }

    @Test func unencodableValueIsAnError() throws {
        struct Score: Encodable, Sendable {
            var value: Double
        }
        let error = #expect(throws: LupineError.self) {
            try JSONRequestSerializer().request(method: .POST, urlString: "http://example.com/", encodableParameters: Score(value: .nan))
        }
        guard case .jsonEncodingFailed(let parameters, _) = try parameterEncodingReason(of: error) else {
            Issue.record("expected jsonEncodingFailed, got \(String(describing: error))")
            return
        }
        #expect(parameters.contains("Score"))
    }
}
