import Foundation
import Testing

@testable import Lupine

/// `StringResponseSerializer`: the charset of `Content-Type`, UTF-8 by default, and the errors of
/// undecodable bytes and unknown charsets.
@Suite struct ResponseSerializationStringTests {
    private func serialize(
        _ bytes: [UInt8],
        contentType: String?,
        with serializer: StringResponseSerializer = StringResponseSerializer()
    ) throws -> SerializedResponse<String> {
        serializer.serialize(head: try ResponseFixture.head(contentType: contentType), data: bytes, request: nil)
    }

    @Test func utf8IsTheDefault() throws {
        let result = try self.serialize(ResponseFixture.bytes("héllo ✓"), contentType: "text/plain")
        #expect(result.error == nil)
        #expect(result.value == "héllo ✓")
    }

    @Test(arguments: ["iso-8859-1", "ISO-8859-1", "latin1", "\"iso-8859-1\""])
    func latin1CharsetIsHonoured(charset: String) throws {
        let result = try self.serialize([0x68, 0xE9], contentType: "text/plain; charset=\(charset)")
        #expect(result.error == nil)
        #expect(result.value == "hé")
    }

    @Test func utf16AndWindows1252CharsetsDecode() throws {
        #expect(try self.serialize([0x41, 0x00, 0xE9, 0x00], contentType: "text/plain; charset=utf-16le").value == "Aé")
        #expect(try self.serialize([0x00, 0x41, 0x00, 0xE9], contentType: "text/plain; charset=UTF-16BE").value == "Aé")
        #expect(try self.serialize([0x80], contentType: "text/plain; charset=windows-1252").value == "€")
        #expect(try self.serialize([0x41], contentType: "text/plain; charset=us-ascii").value == "A")
    }

    @Test func bytesInvalidInTheCharsetFail() throws {
        let result = try self.serialize([0x68, 0xE9], contentType: "text/plain; charset=us-ascii")
        #expect(result.value == nil)
        #expect(result.error?.serializationFailure == .string(encoding: "us-ascii"))
    }

    @Test func invalidUTF8FailsUnderTheDefault() throws {
        let result = try self.serialize([0xFF, 0xFE, 0xFD], contentType: nil)
        #expect(result.error?.serializationFailure == .string(encoding: "utf-8"))
    }

    @Test func unknownCharsetFails() throws {
        let result = try self.serialize(ResponseFixture.bytes("hi"), contentType: "text/plain; charset=x-klingon")
        #expect(result.value == nil)
        #expect(result.error?.serializationFailure == .string(encoding: "x-klingon"))
    }

    @Test func explicitEncodingOverridesTheCharset() throws {
        let serializer = StringResponseSerializer(encoding: .isoLatin1)
        let result = try self.serialize([0xE9], contentType: "text/plain; charset=utf-8", with: serializer)
        #expect(result.value == "é")
    }

    @Test func emptyBodyIsTheEmptyString() throws {
        let result = try self.serialize([], contentType: nil)
        #expect(result.error == nil)
        #expect(result.value == "")
    }
}
