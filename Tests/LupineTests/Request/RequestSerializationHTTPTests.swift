import Foundation
import Testing

@testable import Lupine

/// `HTTPRequestSerializer` against AFNetworking's `AFHTTPRequestSerializer`.
@Suite struct RequestSerializationHTTPTests {
    let serializer = HTTPRequestSerializer()

    @Test(arguments: [HTTPMethod.GET, .HEAD, .DELETE])
    func uriMethodsPutParametersInTheQuery(method: HTTPMethod) throws {
        let request = try serializer.request(method: method, urlString: "http://example.com/path", parameters: ["b": "2", "a": 1])
        #expect(request.url.absoluteString == "http://example.com/path?a=1&b=2")
        #expect(request.method == method)
        #expect(request.hasNoBody)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test(arguments: [HTTPMethod.POST, .PUT, .PATCH])
    func bodyMethodsPutParametersInAFormBody(method: HTTPMethod) throws {
        let request = try serializer.request(method: method, urlString: "http://example.com/path", parameters: ["b": "x y", "a": 1])
        #expect(request.url.absoluteString == "http://example.com/path")
        #expect(request.bodyText == "a=1&b=x%20y")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
    }

    @Test func emptyOrNoParametersLeaveNoQuestionMark() throws {
        let empty = try serializer.request(method: .GET, urlString: "http://example.com/get", parameters: [:])
        let none = try serializer.request(method: .GET, urlString: "http://example.com/get", parameters: nil)
        #expect(empty.url.absoluteString == "http://example.com/get")
        #expect(none.url.absoluteString == "http://example.com/get")
    }

    @Test func existingQueryIsExtendedWithAmpersand() throws {
        let request = try serializer.request(method: .GET, urlString: "http://example.com/get?x=1", parameters: ["a": "b"])
        #expect(request.url.absoluteString == "http://example.com/get?x=1&a=b")
    }

    @Test func queryGoesBeforeTheFragment() throws {
        let request = try serializer.request(method: .GET, urlString: "http://example.com/p#top", parameters: ["a": "b"])
        #expect(request.url.absoluteString == "http://example.com/p?a=b#top")
    }

    @Test(arguments: [[:], nil] as [[String: any Sendable]?])
    func postWithoutParametersHasAnEmptyFormBody(parameters: [String: any Sendable]?) throws {
        let request = try serializer.request(method: .POST, urlString: "http://example.com/post", parameters: parameters)
        #expect(request.bodyBytes == [])
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
    }

    @Test func contentTypeIsSetOnlyIfAbsent() throws {
        var request = Request(url: try #require(URL(string: "http://example.com/post")), method: .POST)
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        let serialized = try serializer.serialize(request, parameters: ["a": 1])
        #expect(serialized.headers[canonicalForm: "Content-Type"] == ["text/plain"])
        #expect(serialized.bodyText == "a=1")
    }

    @Test func defaultHeadersAreAppliedOnlyWhereAbsent() throws {
        var request = Request(url: try #require(URL(string: "http://example.com/get")))
        request.setValue("custom/1.0", forHTTPHeaderField: "user-agent")
        let serialized = try serializer.serialize(request, parameters: nil)
        #expect(serialized.headers[canonicalForm: "User-Agent"] == ["custom/1.0"])
        #expect(serialized.value(forHTTPHeaderField: "Accept-Language") == serializer.value(forHTTPHeaderField: "Accept-Language"))
    }

    @Test func headerFieldsCanBeSetReadAndRemoved() throws {
        var serializer = HTTPRequestSerializer()
        serializer.setValue("token", forHTTPHeaderField: "X-Api-Key")
        #expect(serializer.value(forHTTPHeaderField: "x-api-key") == "token")
        #expect(serializer.httpRequestHeaders.contains(name: "X-Api-Key"))
        let request = try serializer.request(method: .GET, urlString: "http://example.com/")
        #expect(request.value(forHTTPHeaderField: "X-Api-Key") == "token")
        serializer.setValue(nil, forHTTPHeaderField: "X-API-KEY")
        #expect(serializer.value(forHTTPHeaderField: "X-Api-Key") == nil)
    }

    @Test func basicAuthorizationHeader() throws {
        var serializer = HTTPRequestSerializer()
        serializer.setAuthorizationHeaderField(username: "user", password: "password")
        #expect(serializer.value(forHTTPHeaderField: "Authorization") == "Basic dXNlcjpwYXNzd29yZA==")
        let request = try serializer.request(method: .GET, urlString: "http://example.com/")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Basic dXNlcjpwYXNzd29yZA==")
        serializer.clearAuthorizationHeader()
        #expect(serializer.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test func basicAuthorizationUsesUTF8() {
        var serializer = HTTPRequestSerializer()
        serializer.setAuthorizationHeaderField(username: "usér", password: "pä:ss")
        let expected = "Basic " + Data("usér:pä:ss".utf8).base64EncodedString()
        #expect(serializer.value(forHTTPHeaderField: "Authorization") == expected)
    }

    @Test func customQueryStringSerializationIsUsed() throws {
        var serializer = HTTPRequestSerializer()
        serializer.setQueryStringSerialization { request, parameters in
            "method=\(request.method.rawValue)&count=\(parameters.count)"
        }
        let get = try serializer.request(method: .GET, urlString: "http://example.com/get", parameters: ["a": 1, "b": 2])
        #expect(get.url.absoluteString == "http://example.com/get?method=GET&count=2")
        let post = try serializer.request(method: .POST, urlString: "http://example.com/post", parameters: ["a": 1])
        #expect(post.bodyText == "method=POST&count=1")
    }

    @Test(arguments: [HTTPMethod.GET, .POST])
    func customQueryStringSerializationErrorIsReportedEvenForEmptyParameters(method: HTTPMethod) throws {
        var serializer = HTTPRequestSerializer()
        serializer.setQueryStringSerialization { _, _ in throw SentinelError(tag: "custom") }
        let error = #expect(throws: LupineError.self) {
            try serializer.request(method: method, urlString: "http://example.com/", parameters: [:])
        }
        guard case .customEncodingFailed(let underlying) = try parameterEncodingReason(of: error) else {
            Issue.record("expected customEncodingFailed, got \(String(describing: error))")
            return
        }
        #expect(underlying as? SentinelError == SentinelError(tag: "custom"))
    }

    @Test func customQueryStringSerializationIsNotCalledWithoutParameters() throws {
        var serializer = HTTPRequestSerializer()
        serializer.setQueryStringSerialization { _, _ in throw SentinelError(tag: "called") }
        let request = try serializer.request(method: .GET, urlString: "http://example.com/get", parameters: nil)
        #expect(request.url.absoluteString == "http://example.com/get")
    }

    @Test func customQueryStringOutsideTheStringEncodingIsAnError() throws {
        var serializer = HTTPRequestSerializer()
        serializer.stringEncoding = .ascii
        serializer.setQueryStringSerialization { _, _ in "café" }
        let error = #expect(throws: LupineError.self) {
            try serializer.request(method: .POST, urlString: "http://example.com/", parameters: [:])
        }
        guard case .customEncodingFailed = try parameterEncodingReason(of: error) else {
            Issue.record("expected customEncodingFailed, got \(String(describing: error))")
            return
        }
    }

    @Test func formBodyUsesTheStringEncoding() throws {
        var serializer = HTTPRequestSerializer()
        serializer.stringEncoding = .utf16BigEndian
        let request = try serializer.request(method: .POST, urlString: "http://example.com/", parameters: ["a": 1])
        #expect(request.bodyBytes == [0, 0x61, 0, 0x3D, 0, 0x31])
    }

    @Test(arguments: ["", "not a url", "http://", "/relative/path", "http://[::1"])
    func invalidURLStringIsAnError(urlString: String) {
        let error = #expect(throws: LupineError.self) {
            try serializer.request(method: .GET, urlString: urlString, parameters: nil)
        }
        guard case .invalidURL(let reported) = error else {
            Issue.record("expected invalidURL, got \(String(describing: error))")
            return
        }
        #expect(reported == urlString)
    }

    @Test func urlStringIsResolvedAgainstBaseURL() throws {
        let base = try #require(URL(string: "http://example.com/api/"))
        let request = try serializer.request(method: .GET, urlString: "users", relativeTo: base, parameters: ["page": 2])
        #expect(request.url.absoluteString == "http://example.com/api/users?page=2")
        let rooted = try serializer.request(method: .GET, urlString: "/status", relativeTo: base)
        #expect(rooted.url.absoluteString == "http://example.com/status")
    }

    @Test func timeoutAndCachePolicyAreGivenToBuiltRequests() throws {
        var serializer = HTTPRequestSerializer()
        #expect(serializer.timeoutInterval == 60)
        serializer.timeoutInterval = 5
        serializer.cachePolicy = .reloadIgnoringLocalCacheData
        let request = try serializer.request(method: .GET, urlString: "http://example.com/")
        #expect(request.timeoutInterval == 5)
        #expect(request.cachePolicy == .reloadIgnoringLocalCacheData)
    }

    @Test func methodsEncodingParametersInURIAreConfigurable() throws {
        var serializer = HTTPRequestSerializer()
        #expect(serializer.httpMethodsEncodingParametersInURI == ["GET", "HEAD", "DELETE"])
        serializer.httpMethodsEncodingParametersInURI = ["GET", "HEAD"]
        let request = try serializer.request(method: .DELETE, urlString: "http://example.com/item", parameters: ["id": 7])
        #expect(request.url.absoluteString == "http://example.com/item")
        #expect(request.bodyText == "id=7")
    }

    @Test func nestedParametersInTheQuery() throws {
        let parameters: [String: any Sendable] = [
            "key": ["nested": "v", "array": [1, 2], "set": Set(["b", "a"])] as [String: any Sendable],
            "flag": true,
            "none": NSNull(),
        ]
        let request = try serializer.request(method: .GET, urlString: "http://example.com/", parameters: parameters)
        #expect(
            request.url.query(percentEncoded: true)
                == "flag=1&key%5Barray%5D%5B%5D=1&key%5Barray%5D%5B%5D=2&key%5Bnested%5D=v&key%5Bset%5D=a&key%5Bset%5D=b&none"
        )
    }

    @Test func existentialSerializerSharesTheHTTPConfiguration() throws {
        var serializer: any RequestSerializer = JSONRequestSerializer()
        serializer.setValue("yes", forHTTPHeaderField: "X-Test")
        serializer.setAuthorizationHeaderField(username: "user", password: "password")
        serializer.timeoutInterval = 9
        serializer.httpMethodsEncodingParametersInURI.insert("POST")
        #expect(serializer.value(forHTTPHeaderField: "X-Test") == "yes")
        #expect(serializer.base.value(forHTTPHeaderField: "X-Test") == "yes")
        let request = try serializer.request(method: .POST, urlString: "http://example.com/", parameters: ["a": 1])
        #expect(request.url.absoluteString == "http://example.com/?a=1")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Basic dXNlcjpwYXNzd29yZA==")
        #expect(request.value(forHTTPHeaderField: "X-Test") == "yes")
        #expect(request.timeoutInterval == 9)
        serializer.clearAuthorizationHeader()
        #expect(serializer.httpRequestHeaders.contains(name: "Authorization") == false)
    }

    @Test func existentialHTTPSerializerForwardsToItself() throws {
        var serializer: any RequestSerializer = HTTPRequestSerializer()
        serializer.setValue("1", forHTTPHeaderField: "X-One")
        serializer.stringEncoding = .isoLatin1
        serializer.cachePolicy = .returnCacheDataElseLoad
        let concrete = try #require(serializer as? HTTPRequestSerializer)
        #expect(concrete.value(forHTTPHeaderField: "X-One") == "1")
        #expect(concrete.stringEncoding == .isoLatin1)
        #expect(concrete.cachePolicy == .returnCacheDataElseLoad)
    }
}
