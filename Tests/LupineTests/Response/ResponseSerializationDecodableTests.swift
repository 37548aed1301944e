import Foundation
import Testing

@testable import Lupine

/// `DecodableResponseSerializer`: decoding, its errors, and the empty bodies of 204, 205 and HEAD.
@Suite struct ResponseSerializationDecodableTests {
    private struct User: Decodable, Sendable, Equatable {
        var id: Int
        var displayName: String
    }

    private struct Acknowledgement: Decodable, Sendable, Equatable, EmptyResponse {
        var accepted: Bool
        static func emptyValue() -> Acknowledgement { Acknowledgement(accepted: true) }
    }

    private func snakeCaseSerializer() -> DecodableResponseSerializer<User> {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return DecodableResponseSerializer(User.self, decoder: decoder)
    }

    @Test func decodesWithTheConfiguredDecoder() throws {
        let result = self.snakeCaseSerializer().serialize(
            head: try ResponseFixture.head(contentType: "application/json"),
            data: ResponseFixture.bytes(#"{"id":7,"display_name":"Ada"}"#),
            request: nil
        )
        #expect(result.error == nil)
        #expect(result.value == User(id: 7, displayName: "Ada"))
    }

    @Test func missingKeyFailsWithItsName() throws {
        let result = DecodableResponseSerializer(User.self).serialize(
            head: try ResponseFixture.head(contentType: "application/json"),
            data: ResponseFixture.bytes(#"{"id":7}"#),
            request: nil
        )
        #expect(result.value == nil)
        #expect(result.error?.serializationFailure == .decoding)
        #expect(result.error?.serializationFailureReason?.contains("displayName") == true)
    }

    @Test func typeMismatchAndInvalidJSONAreDecodingFailures() throws {
        let serializer = DecodableResponseSerializer(User.self)
        let head = try ResponseFixture.head(contentType: "application/json")
        let mismatch = serializer.serialize(head: head, data: ResponseFixture.bytes(#"{"id":"seven","displayName":"Ada"}"#), request: nil)
        #expect(mismatch.error?.serializationFailure == .decoding)
        let invalid = serializer.serialize(head: head, data: ResponseFixture.bytes("{"), request: nil)
        #expect(invalid.error?.serializationFailure == .decoding)
    }

    @Test func notFoundStillDecodesTheBody() throws {
        let result = DecodableResponseSerializer(User.self).serialize(
            head: try ResponseFixture.head(.notFound, contentType: "application/json"),
            data: ResponseFixture.bytes(#"{"id":0,"displayName":"nobody"}"#),
            request: nil
        )
        #expect(result.value == User(id: 0, displayName: "nobody"))
        #expect(result.error?.unacceptableStatus?.code == 404)
    }

    @Test(arguments: [HTTPResponseStatus.noContent, .resetContent])
    func emptyBodyOfNoContentDecodesEmpty(status: HTTPResponseStatus) throws {
        let result = DecodableResponseSerializer(Empty.self).serialize(head: try ResponseFixture.head(status), data: [], request: nil)
        #expect(result.error == nil)
        #expect(result.value == Empty.value)
    }

    @Test func emptyBodyOfHeadRequestDecodesEmpty() throws {
        let result = DecodableResponseSerializer(Empty.self).serialize(
            head: try ResponseFixture.head(.ok),
            data: [],
            request: try ResponseFixture.request(.HEAD)
        )
        #expect(result.error == nil)
        #expect(result.value == Empty.value)
    }

    @Test func customEmptyResponseTypeGivesItsEmptyValue() throws {
        let result = DecodableResponseSerializer(Acknowledgement.self).serialize(head: try ResponseFixture.head(.noContent), data: [], request: nil)
        #expect(result.value == Acknowledgement(accepted: true))
    }

    @Test func emptyBodyOfOrdinaryGetFails() throws {
        let result = DecodableResponseSerializer(Empty.self).serialize(
            head: try ResponseFixture.head(.ok),
            data: [],
            request: try ResponseFixture.request(.GET)
        )
        #expect(result.value == nil)
        #expect(result.error?.serializationFailure == .empty)
    }

    @Test func emptyBodyFailsForTypesWithoutAnEmptyValue() throws {
        let result = DecodableResponseSerializer(User.self).serialize(head: try ResponseFixture.head(.noContent), data: [], request: nil)
        #expect(result.value == nil)
        #expect(result.error?.serializationFailure == .empty)
    }

    @Test func emptyDecodesFromAnEmptyObject() throws {
        let result = DecodableResponseSerializer(Empty.self).serialize(
            head: try ResponseFixture.head(contentType: "application/json"),
            data: ResponseFixture.bytes("{}"),
            request: nil
        )
        #expect(result.value == Empty.value)
    }

    @Test func propertyListDecoderCanBePluggedIn() throws {
        let plist = try PropertyListSerialization.data(fromPropertyList: ["id": 3, "displayName": "Grace"], format: .xml, options: 0)
        let serializer = DecodableResponseSerializer(
            User.self,
            decoder: PropertyListDecoder(),
            acceptableContentTypes: ["application/x-plist"]
        )
        let result = serializer.serialize(head: try ResponseFixture.head(contentType: "application/x-plist"), data: Array(plist), request: nil)
        #expect(result.value == User(id: 3, displayName: "Grace"))
    }
}
