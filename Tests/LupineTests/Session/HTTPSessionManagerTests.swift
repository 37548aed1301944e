import Foundation
import Lupine
import LupineTestServer
import Testing

/// Every verb through ``HTTPSessionManager`` against the test server, over loopback.
@Suite struct HTTPSessionManagerTests {
    struct Echo: Decodable, Sendable {
        let args: [String: String]
        let url: String
    }

    @Test(arguments: [HTTPMethod.GET, .DELETE])
    func queryMethodsPutParametersInTheURL(method: HTTPMethod) async throws {
        try await withSessionManager { _, manager in
            let path = method == .GET ? "get" : "delete"
            let response = try await manager.request(method, path, parameters: ["a": "1", "b": "x y"], serializer: JSONResponseSerializer())
            let json = try #require(response.value as? [String: any Sendable])
            let args = try #require(json["args"] as? [String: any Sendable])
            #expect(args["a"] as? String == "1")
            #expect(args["b"] as? String == "x y")
            #expect(response.request.url.query?.contains("a=1&b=x%20y") == true)
        }
    }

    @Test(arguments: WireProtocol.allCases) func headPutsParametersInTheURLAndHasNoBody(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            let response = try await manager.head("get", parameters: ["a": "1"])
            #expect(response.head?.statusCode == 200)
            #expect(response.data.isEmpty)
            #expect(response.request.url.query == "a=1")
        }
    }

    @Test(arguments: [HTTPMethod.POST, .PUT, .PATCH])
    func bodyMethodsSendAForm(method: HTTPMethod) async throws {
        try await withSessionManager { _, manager in
            let path = method.rawValue.lowercased()
            let response = try await manager.request(method, path, parameters: ["name": "lupine", "n": 2], serializer: JSONResponseSerializer())
            let json = try #require(response.value as? [String: any Sendable])
            let form = try #require(json["form"] as? [String: any Sendable])
            #expect(form["name"] as? String == "lupine")
            #expect(form["n"] as? String == "2")
            #expect(response.request.url.query == nil)
            let headers = try #require(json["headers"] as? [String: any Sendable])
            #expect((headers["Content-Type"] as? String)?.hasPrefix("application/x-www-form-urlencoded") == true)
        }
    }

    @Test(arguments: WireProtocol.allCases) func jsonRequestSerializerSendsJSON(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            manager.requestSerializer = JSONRequestSerializer()
            let response = try await manager.post("post", parameters: ["n": 1, "s": "x"])
            let json = try #require(response.value as? [String: any Sendable])
            let echoed = try #require(json["json"] as? [String: any Sendable])
            #expect(echoed["s"] as? String == "x")
            #expect((echoed["n"] as? Int) == 1 || (echoed["n"] as? Double) == 1)
        }
    }

    @Test(arguments: WireProtocol.allCases) func decodableResponse(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { server, manager in
            let response = try await manager.get("get", parameters: ["q": "swift"], as: Echo.self)
            #expect(response.value?.args == ["q": "swift"])
            #expect(response.value?.url.hasPrefix(server.baseURL.absoluteString) == true)
        }
    }

    @Test(arguments: WireProtocol.allCases) func stringAndXMLResponses(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            let text = try await manager.request(.GET, "xml", serializer: StringResponseSerializer())
            #expect(text.value?.contains("<slideshow") == true)
            let xml = try await manager.request(.GET, "xml", serializer: XMLParserResponseSerializer())
            #expect(xml.value != nil)
            await #expect {
                _ = try await manager.request(.GET, "json", serializer: XMLParserResponseSerializer())
            } throws: { error in
                guard case LupineError.responseValidationFailed(.unacceptableContentType) = error else { return false }
                return true
            }
        }
    }

    @Test(arguments: WireProtocol.allCases) func propertyListResponse(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            let response = try await manager.request(.GET, "plist", serializer: PropertyListResponseSerializer())
            let root = try #require(response.value as? [String: any Sendable])
            let slideshow = try #require(root["slideshow"] as? [String: any Sendable])
            #expect(slideshow["title"] as? String == "Sample Slide Show")
            let slides = try #require(slideshow["slides"] as? [any Sendable])
            #expect(slides.count == 2)
            let items = (slides.last as? [String: any Sendable])?["items"] as? [any Sendable]
            #expect(items?.first as? String == "Why <em>WonderWidgets</em> are great")
            await #expect {
                _ = try await manager.request(.GET, "xml", serializer: PropertyListResponseSerializer())
            } throws: { error in
                guard case LupineError.responseValidationFailed(.unacceptableContentType) = error else { return false }
                return true
            }
        }
    }

    @Test(arguments: WireProtocol.allCases) func unacceptableStatusCarriesTheBodyAndTheParsedValue(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            let request = try manager.makeRequest(.GET, "status/418", parameters: nil, headers: nil)
            let completion = await withCheckedContinuation { continuation in
                manager.dataTask(with: request, serializer: StringResponseSerializer()) {
                    continuation.resume(returning: $0)
                }.resume()
            }
            guard case .responseValidationFailed(.unacceptableStatusCode(418, _, let body, _)) = completion.error else {
                Issue.record("expected a status error, got \(String(describing: completion.error))")
                return
            }
            #expect(String(decoding: body, as: UTF8.self) == "I'm a teapot\n")
            #expect(completion.serializedObject as? String == "I'm a teapot\n")
        }
    }

    @Test(arguments: WireProtocol.allCases) func invalidJSONIsASerializationError(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            var serializer = JSONResponseSerializer()
            serializer.acceptableContentTypes = nil
            await #expect {
                _ = try await manager.request(.GET, "xml", serializer: serializer)
            } throws: { error in
                guard case LupineError.responseSerializationFailed(.jsonSerializationFailed) = error else { return false }
                return true
            }
        }
    }

    @Test(arguments: WireProtocol.allCases) func callbackStyleSucceedsAndFails(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            let success = await awaitCallback { done in
                manager.get("get", parameters: ["a": "1"], success: { _, value in done(.success(value)) }, failure: { _, error in done(.failure(error)) })
            }
            let json = try #require(try success.get().jsonObject)
            #expect((json["args"] as? [String: any Sendable])?["a"] as? String == "1")

            let failure = await awaitCallback { done in
                manager.get("status/500", success: { _, value in done(.success(value)) }, failure: { _, error in done(.failure(error)) })
            }
            guard case .failure(.responseValidationFailed(.unacceptableStatusCode(500, _, _, _))) = failure else {
                Issue.record("expected a 500 error, got \(failure)")
                return
            }
        }
    }

    @Test(arguments: WireProtocol.allCases) func unbuildableRequestReturnsNilAndCallsFailure(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            let box = Recorder<Bool>()
            let result = await awaitCallback { done in
                let task = manager.get(
                    "http://exa mple.com:abc/%%", success: { _, value in done(.success(value)) },
                    failure: { task, error in
                        #expect(task == nil)
                        done(.failure(error))
                    })
                box.append(task == nil)
            }
            #expect(box.all == [true])
            guard case .failure(.invalidURL) = result else {
                Issue.record("expected an invalid-URL error, got \(result)")
                return
            }
        }
    }

    @Test func baseURLGetsATrailingSlash() throws {
        let manager = HTTPSessionManager(baseURL: URL(string: "http://127.0.0.1:1/api/v1"))
        #expect(manager.baseURL?.absoluteString == "http://127.0.0.1:1/api/v1/")
        let request = try manager.makeRequest(.GET, "users", parameters: nil, headers: ["X-Test": "yes"])
        #expect(request.url.absoluteString == "http://127.0.0.1:1/api/v1/users")
        #expect(request.value(forHTTPHeaderField: "X-Test") == "yes")
        let absolute = try manager.makeRequest(.GET, "/root", parameters: nil, headers: nil)
        #expect(absolute.url.absoluteString == "http://127.0.0.1:1/root")
    }
}
