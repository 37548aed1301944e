import Foundation
import Testing

@testable import Lupine

/// `PropertyListResponseSerializer`: XML and binary lists made Sendable, and invalid bodies.
@Suite struct ResponseSerializationPropertyListTests {
    private func serialize(_ bytes: [UInt8], contentType: String = "application/x-plist") throws -> SerializedResponse<any Sendable> {
        PropertyListResponseSerializer().serialize(head: try ResponseFixture.head(contentType: contentType), data: bytes, request: nil)
    }

    @Test func xmlPropertyListBecomesSendableValues() throws {
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
            <key>count</key><integer>3</integer>
            <key>ratio</key><real>0.5</real>
            <key>enabled</key><true/>
            <key>name</key><string>lupine</string>
            <key>blob</key><data>AAE=</data>
            <key>when</key><date>2020-01-01T00:00:00Z</date>
            <key>tags</key><array><string>a</string><false/></array>
            </dict></plist>
            """
        let result = try self.serialize(ResponseFixture.bytes(plist))
        #expect(result.error == nil)
        let object = try #require(result.value as? [String: any Sendable])
        #expect(object["count"] as? Int == 3)
        #expect(object["ratio"] as? Double == 0.5)
        #expect(object["enabled"] as? Bool == true)
        #expect(object["name"] as? String == "lupine")
        #expect(object["blob"] as? Data == Data([0, 1]))
        #expect(object["when"] as? Date == Date(timeIntervalSince1970: 1_577_836_800))
        let tags = try #require(object["tags"] as? [any Sendable])
        #expect(tags.first as? String == "a")
        #expect(tags.last as? Bool == false)
    }

    @Test func binaryPropertyListParses() throws {
        let binary = try PropertyListSerialization.data(fromPropertyList: ["list": [1, 2]], format: .binary, options: 0)
        let object = try #require(try self.serialize(Array(binary)).value as? [String: any Sendable])
        #expect((object["list"] as? [any Sendable])?.compactMap { $0 as? Int } == [1, 2])
    }

    @Test func invalidPropertyListFails() throws {
        let result = try self.serialize(ResponseFixture.bytes("<plist><dict><key>a</key></plist"))
        #expect(result.value == nil)
        #expect(result.error?.serializationFailure == .propertyList)
    }

    @Test func acceptsOnlyThePropertyListContentType() throws {
        #expect(PropertyListResponseSerializer().acceptableContentTypes == ["application/x-plist"])
        let result = try self.serialize(ResponseFixture.bytes("<plist/>"), contentType: "application/xml")
        #expect(result.value == nil)
        #expect(result.error?.unacceptableContentType != nil)
    }

    @Test func emptyBodyIsNoValueAndNoError() throws {
        let result = try self.serialize([])
        #expect(result.value == nil)
        #expect(result.error == nil)
    }
}
