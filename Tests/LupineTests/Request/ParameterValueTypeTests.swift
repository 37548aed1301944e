import Foundation
import Lupine
import Testing

/// Parameter values outside the query-string rules: `Data` in a multipart body is sent raw; in a
/// query, a form or a multipart field every other type is a typed error naming the key and the
/// type, never the value's `description` sent in its place.
@Suite struct ParameterValueTypeTests {
    /// Bytes that are not UTF-8 (0xFF) and hold a NUL: nothing textual survives them unchanged.
    static let raw: [UInt8] = [0x72, 0x61, 0x77, 0x00, 0xFF, 0x01]

    /// A type of the caller's own, with a `description` that must never be sent.
    struct Custom: Sendable, CustomStringConvertible {
        var description: String { "SECRET-DESCRIPTION" }
    }

    @Test func multipartDataAndByteArrayParametersRoundTripRaw() async throws {
        try await withSessionManager { _, manager in
            let request = try manager.makeMultipartRequest(
                "post",
                parameters: [
                    "data": Data(Self.raw),
                    "bytes": Self.raw,
                    "nested": ["blob": Data(Self.raw)] as [String: any Sendable],
                    "optional": Data?.some(Data(Self.raw)),
                    "text": "plain",
                ],
                headers: nil
            ) { _ in }
            let response = try await manager.response(for: request, serializer: JSONResponseSerializer())
            let echo = try #require(response.value as? [String: any Sendable])
            let form = try #require(echo["form"] as? [String: any Sendable])
            // The server echoes a field that is not UTF-8 as a base64 data URL, as httpbin does.
            let expected = "data:application/octet-stream;base64,\(Data(Self.raw).base64EncodedString())"
            #expect(form["data"] as? String == expected)
            #expect(form["bytes"] as? String == expected)
            #expect(form["nested[blob]"] as? String == expected)
            #expect(form["optional"] as? String == expected)
            #expect(form["text"] as? String == "plain")
        }
    }

    @Test func multipartDataParameterIsWrittenRawToTheBody() async throws {
        let serializer = HTTPRequestSerializer()
        let request = try serializer.multipartFormRequest(
            method: .POST,
            urlString: "http://example.com/upload",
            parameters: ["data": Data(Self.raw)]
        ) { _ in }
        guard case .multipart(let form) = request.body else {
            Issue.record("expected a multipart body")
            return
        }
        let file = try temporaryFolder().appending(path: "body")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        _ = try await serializer.requestWithMultipartFormRequest(request, writingStreamContentsTo: file)
        let body = try [UInt8](Data(contentsOf: file))
        let expected =
            Array("--\(form.boundary)\r\nContent-Disposition: form-data; name=\"data\"\r\n\r\n".utf8)
            + Self.raw + Array("\r\n--\(form.boundary)--\r\n".utf8)
        #expect(body == expected)
    }

    @Test func byteArrayInAQueryIsAnArrayOfNumbers() throws {
        #expect(try queryString(from: ["b": [UInt8]([1, 255])]) == "b%5B%5D=1&b%5B%5D=255")
    }

    @Test(arguments: [
        ("when", Date(timeIntervalSince1970: 0) as any Sendable, "Date"),
        ("data", Data([0x72, 0x61, 0x77, 0x00, 0xFF, 0x01]) as any Sendable, "Data"),
        ("link", URL(fileURLWithPath: "/tmp") as any Sendable, "URL"),
        ("mine", Custom() as any Sendable, "Custom"),
    ])
    func unsupportedValuesAreTypedErrorsInAQuery(key: String, value: any Sendable, type: String) throws {
        let error = #expect(throws: LupineError.self) { try queryString(from: [key: value]) }
        #expect(Self.unsupported(error) == UnsupportedValue(key: key, type: type))
    }

    @Test func nestedUnsupportedValueNamesItsKeyPath() throws {
        let parameters: [String: any Sendable] = ["user": ["tags": [Custom()]] as [String: any Sendable]]
        let error = #expect(throws: LupineError.self) { try queryString(from: parameters) }
        #expect(Self.unsupported(error) == UnsupportedValue(key: "user[tags][]", type: "Custom"))
        #expect(error?.description.contains("SECRET-DESCRIPTION") == false)
        #expect(error?.description.contains("\"user[tags][]\"") == true)
    }

    @Test func unsupportedDictionaryKeyIsATypedError() throws {
        let parameters: [String: any Sendable] = ["map": [Date(timeIntervalSince1970: 0): "x"] as [Date: String]]
        let error = #expect(throws: LupineError.self) { try queryString(from: parameters) }
        #expect(Self.unsupported(error) == UnsupportedValue(key: "map", type: "Date"))
    }

    @Test(arguments: [HTTPMethod.GET, .POST])
    func queryAndFormSerializationRefuseUnsupportedValues(method: HTTPMethod) throws {
        let error = #expect(throws: LupineError.self) {
            try HTTPRequestSerializer().request(method: method, urlString: "http://example.com/", parameters: ["mine": Custom()])
        }
        #expect(Self.unsupported(error) == UnsupportedValue(key: "mine", type: "Custom"))
    }

    @Test func multipartRefusesUnsupportedValues() throws {
        let error = #expect(throws: LupineError.self) {
            try HTTPRequestSerializer().multipartFormRequest(
                method: .POST,
                urlString: "http://example.com/",
                parameters: ["list": [Custom()]]
            ) { _ in }
        }
        #expect(Self.unsupported(error) == UnsupportedValue(key: "list[]", type: "Custom"))
    }

    @Test func everyDefinedTypeStillEncodes() throws {
        let parameters: [String: any Sendable] = [
            "s": "x", "sub": Substring("y"), "i": Int8(-3), "u": UInt64.max, "d": 0.5, "f": Float(2),
            "dec": Decimal(1.25), "n": NSNumber(value: 7), "b": true, "null": NSNull(),
            "set": Set([1]), "a": [1], "o": Int?.none, "c": Character("z"),
        ]
        #expect(
            try queryString(from: parameters)
                == "a%5B%5D=1&b=1&c=z&d=0.5&dec=1.25&f=2.0&i=-3&n=7&null&o&s=x&set=1&sub=y&u=18446744073709551615"
        )
    }

    // MARK: Helpers

    struct UnsupportedValue: Equatable {
        var key: String
        var type: String
    }

    static func unsupported(_ error: LupineError?) -> UnsupportedValue? {
        guard case .parameterEncodingFailed(.unsupportedValue(let key, let type)) = error else { return nil }
        return UnsupportedValue(key: key, type: type)
    }
}
