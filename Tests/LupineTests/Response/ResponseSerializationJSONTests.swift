import Foundation
import Testing

@testable import Lupine

/// `JSONResponseSerializer`: Sendable conversion, AFNetworking's empty-body rule, errors,
/// status failures that still parse, and `removesKeysWithNullValues`.
@Suite struct ResponseSerializationJSONTests {
    private func serialize(
        _ json: String,
        status: HTTPResponseStatus = .ok,
        contentType: String = "application/json",
        with serializer: JSONResponseSerializer = JSONResponseSerializer()
    ) throws -> SerializedResponse<any Sendable> {
        serializer.serialize(
            head: try ResponseFixture.head(status, contentType: contentType),
            data: ResponseFixture.bytes(json),
            request: nil
        )
    }

    @Test func acceptsTheJSONContentTypes() throws {
        let serializer = JSONResponseSerializer()
        #expect(serializer.acceptableContentTypes == ["application/json", "text/json", "text/javascript"])
        for contentType in ["application/json", "text/json", "text/javascript"] {
            #expect(try self.serialize("{}", contentType: contentType).error == nil)
        }
    }

    @Test func convertsToSendableSwiftValues() throws {
        let result = try self.serialize(#"{"int":1,"double":1.5,"whole":2.0,"yes":true,"no":false,"text":"é","none":null,"list":[1,"a"],"object":{"k":0}}"#)
        #expect(result.error == nil)
        let object = try #require(result.value as? [String: any Sendable])
        #expect(object["int"] as? Int == 1)
        #expect(object["double"] as? Double == 1.5)
        #expect(object["whole"] as? Double == 2.0)
        #expect(object["yes"] as? Bool == true)
        #expect(object["no"] as? Bool == false)
        #expect(object["text"] as? String == "é")
        #expect(object["none"] is JSONNull)
        let list = try #require(object["list"] as? [any Sendable])
        #expect(list.count == 2)
        #expect(list.first as? Int == 1)
        #expect(list.last as? String == "a")
        #expect((object["object"] as? [String: any Sendable])?["k"] as? Int == 0)
    }

    @Test func numbersAreNotBooleansAndBooleansAreNotNumbers() throws {
        let list = try #require(try self.serialize("[1, 0, true]").value as? [any Sendable])
        #expect(list[0] is Int)
        #expect(!(list[0] is Bool))
        #expect(list[1] is Int)
        #expect(list[2] is Bool)
        #expect(!(list[2] is Int))
    }

    @Test func unsignedAboveIntMaxStaysExact() throws {
        let list = try #require(try self.serialize("[18446744073709551615, 9223372036854775807]").value as? [any Sendable])
        #expect(list[0] as? UInt64 == UInt64.max)
        #expect(list[1] as? Int == Int.max)
    }

    @Test func deepestNestingJSONSerializationAllowsIsConverted() throws {
        let depth = 512
        var value = try #require(try self.serialize(String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).value)
        var levels = 1
        while let array = value as? [any Sendable], let first = array.first {
            value = first
            levels += 1
        }
        #expect(levels == depth)
    }

    @Test func notFoundWithJSONBodyReturnsObjectAndStatusErrorWithBody() throws {
        let body = #"{"message":"no such user"}"#
        let result = try self.serialize(body, status: .notFound)
        #expect((result.value as? [String: any Sendable])?["message"] as? String == "no such user")
        #expect(result.error?.unacceptableStatus?.code == 404)
        #expect(result.error?.unacceptableStatus?.body == ResponseFixture.bytes(body))
    }

    @Test func unacceptableContentTypeReturnsNoValue() throws {
        let result = try self.serialize(#"{"a":1}"#, contentType: "text/html")
        #expect(result.value == nil)
        #expect(result.error?.unacceptableContentType?.contentType == "text/html")
    }

    @Test(arguments: ["", " "])
    func emptyOrSingleSpaceBodyIsNoValueAndNoError(body: String) throws {
        let result = try self.serialize(body)
        #expect(result.value == nil)
        #expect(result.error == nil)
    }

    @Test func invalidJSONFails() throws {
        let result = try self.serialize(#"{"a":"#)
        #expect(result.value == nil)
        #expect(result.error?.serializationFailure == .json)
        #expect(result.error?.serializationFailureReason?.isEmpty == false)
    }

    @Test func invalidJSONWithUnacceptableStatusReportsTheStatus() throws {
        let result = try self.serialize("<<", status: .internalServerError)
        #expect(result.value == nil)
        #expect(result.error?.unacceptableStatus?.code == 500)
    }

    @Test func fragmentsNeedTheReadingOption() throws {
        #expect(try self.serialize(#""text""#).error?.serializationFailure == .json)
        let allowing = JSONResponseSerializer(readingOptions: .fragmentsAllowed)
        #expect(try self.serialize(#""text""#, with: allowing).value as? String == "text")
        #expect(try self.serialize("42", with: allowing).value as? Int == 42)
    }

    @Test func nullsAreKeptByDefault() throws {
        let object = try #require(try self.serialize(#"{"a":null,"b":[null]}"#).value as? [String: any Sendable])
        #expect(object["a"] is JSONNull)
        #expect((object["b"] as? [any Sendable])?.first is JSONNull)
        #expect(JSONNull().description == "null")
    }

    @Test func removesKeysWithNullValuesRecursively() throws {
        let serializer = JSONResponseSerializer(removesKeysWithNullValues: true)
        let json = #"{"gone":null,"kept":1,"nested":{"gone":null,"deeper":{"gone":null,"kept":"x"}},"list":[null,{"gone":null,"kept":true},[null,2],3,null]}"#
        let object = try #require(try self.serialize(json, with: serializer).value as? [String: any Sendable])
        #expect(Set(object.keys) == ["kept", "nested", "list"])
        let nested = try #require(object["nested"] as? [String: any Sendable])
        #expect(Set(nested.keys) == ["deeper"])
        let deeper = try #require(nested["deeper"] as? [String: any Sendable])
        #expect(Set(deeper.keys) == ["kept"])
        let list = try #require(object["list"] as? [any Sendable])
        #expect(list.count == 3)
        let element = try #require(list[0] as? [String: any Sendable])
        #expect(Set(element.keys) == ["kept"])
        let inner = try #require(list[1] as? [any Sendable])
        #expect(inner.count == 1)
        #expect(inner.first as? Int == 2)
        #expect(list[2] as? Int == 3)
    }

    @Test func utf16BodiesAreReadToo() throws {
        var data: [UInt8] = [0xFF, 0xFE]
        for unit in #"{"a":"é"}"#.utf16 {
            data += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        let result = JSONResponseSerializer().serialize(head: try ResponseFixture.head(.ok, contentType: "application/json"), data: data, request: nil)
        #expect((result.value as? [String: any Sendable])?["a"] as? String == "é")
    }

    @Test func topLevelNullStaysWhenRemovingNulls() throws {
        let serializer = JSONResponseSerializer(readingOptions: .fragmentsAllowed, removesKeysWithNullValues: true)
        #expect(try self.serialize("null", with: serializer).value is JSONNull)
    }
}
