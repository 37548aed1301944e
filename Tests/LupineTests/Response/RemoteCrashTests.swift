import Foundation
import Lupine
import LupineTestSupport
import NIOCore
import NIOHTTP1
import Testing

/// The three inputs with which a fuzzer outside this repository crashed the process through
/// Lupine's public API (issue 29), each fed back through that API: a response header, a response
/// body for the XML serializers and one for the property-list serializer.
@Suite struct RemoteCrashTests {
    /// `Wed, 22 Oct 2015 07:28:00` then the bytes D6 B8 (U+05B8, a combining mark) then `MT`:
    /// Foundation's `DateFormatter` trapped on it ("Incorrect range").
    static let lastModified = String(decoding: Array("Wed, 22 Oct 2015 07:28:00".utf8) + [0xD6, 0xB8] + Array("MT".utf8), as: UTF8.self)

    @Test func aLastModifiedThatTrappedDateFormatterIsNoValidator() throws {
        let url = try #require(URL(string: "http://127.0.0.1/f.bin"))
        let head = ResponseHead(status: .ok, headers: HTTPHeaders([("Last-Modified", Self.lastModified), ("Date", "Thu, 22 Oct 2015 07:28:01 GMT")]), url: url)
        #expect(ResumeData.validator(of: head) == nil)
    }

    /// The crash as it was reported: `lupine download` against a real server that sends that
    /// header. The download completes with the body in the file (before: SIGILL, exit 132, an
    /// empty file).
    @Test func aDownloadWhoseLastModifiedTrappedDateFormatterCompletes() async throws {
        let sandbox = try Sandbox()
        let body = String(repeating: "lupine ", count: 1_000)
        try await ScriptedServer.with { scripted in
            let running = try LupineCommandLineTests.start(["download", scripted.url.absoluteString + "/f.bin", "-o", "f.bin"], in: sandbox.work)
            try await running.whileRunning {
                let connection = try await scripted.nextConnection()
                _ = await connection.readRequestHead()
                var head = ByteBuffer(string: "HTTP/1.1 200 OK\r\nDate: Thu, 22 Oct 2015 07:28:01 GMT\r\nLast-Modified: ")
                head.writeBytes(Array("Wed, 22 Oct 2015 07:28:00".utf8) + [0xD6, 0xB8] + Array("MT".utf8))
                head.writeString("\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                try await connection.write(head)
                await connection.waitForClientClose()
            }
            let outcome = try await running.finish()
            #expect(outcome.status == 0, "\(outcome.stderr)")
        }
        #expect(try Data(contentsOf: sandbox.work.appending(path: "f.bin")) == Data(body.utf8))
        #expect(try sandbox.workContents() == ["f.bin"])
        #expect(sandbox.unchangedOutsideWork())
    }

    /// The bytes that crashed Foundation's XML parsers (minimised by a fuzzer and by hand, issue
    /// 29): names that are not UTF-8 (a trap in `_NSXMLParserStartElementNs`), null pointers
    /// handed to callbacks (a data-less processing instruction, DTD declarations, an entity
    /// hiding such an instruction), and documents `XMLDocument` cannot read at all.
    static let xmlThatCrashedFoundation: [(String, String)] = [
        ("element name not UTF-8", "3c61c0202f3e"),
        ("attribute name not UTF-8", "3c612062c03d2222202f3e"),
        ("namespace prefix not UTF-8", "3c6120786d6c6e733ac03d227522202f3e"),
        ("processing instruction without data", "3c723e3c3f70693f3e3c2f723e"),
        ("notation declaration", "3c21444f43545950452072205b3c214e4f544154494f4e206e2053595354454d202278223e5d3e3c722f3e"),
        ("attribute list declaration", "3c21444f43545950452072205b3c214154544c495354207220642043444154412023494d504c4945443e5d3e3c722f3e"),
        ("unparsed entity", "3c21444f43545950452072205b3c21454e5449545920752053595354454d20227922204e44415441206e3e5d3e3c722f3e"),
        ("entity hiding a processing instruction", "3c21444f43545950452072205b3c21454e5449545920652022262336303b3f743f262336323b223e5d3e3c723e26653b3c2f723e"),
        ("unknown encoding", "3c3f786d6c2076657273696f6e3d22312e302220656e636f64696e673d22626f677573223f3e3c612f3e"),
        ("UTF-16 with a lone surrogate", "fffe00d8"),
        ("UCS-4 guessed from NUL bytes", "0000003c3f3c3f7820760000000000003c3f3c3f7820763f"),
    ]

    @Test(arguments: Self.xmlThatCrashedFoundation)
    func xmlThatCrashedFoundationIsATypedError(name: String, hex: String) throws {
        let body = try #require(Self.bytes(hex: hex))
        let head = try Self.head("application/xml")
        let errors = [
            XMLParserResponseSerializer().serialize(head: head, data: body, request: nil).error,
            XMLDocumentResponseSerializer().serialize(head: head, data: body, request: nil).error,
        ]
        for error in errors {
            guard case .responseSerializationFailed(.xmlParsingFailed)? = error else {
                Issue.record("\(name): \(String(describing: error))")
                continue
            }
        }
    }

    /// What the guard lets through still parses: a document type naming an external DTD (never
    /// loaded), a processing instruction with data, an empty internal subset's neighbours.
    @Test func xmlWithAnExternalDoctypeAndInstructionsStillParses() throws {
        let head = try Self.head("application/xml")
        let documents = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\"><plist><dict/></plist>",
            "<!DOCTYPE html><html><?php echo 1 ?><body a=\"[x]\">é</body></html>",
            "\u{FEFF}<r xmlns:a=\"u\"><a:b c=\"d\"/><!-- <!x --><![CDATA[<?x ?>]]></r>",
            "<?xml version='1.0' encoding='us-ascii'?><slideshow title=\"a\"/>",
        ]
        for document in documents {
            let element = XMLParserResponseSerializer().serialize(head: head, data: Array(document.utf8), request: nil)
            #expect(element.error == nil, "\(document): \(String(describing: element.error))")
            #expect(element.value != nil)
            let parsed = XMLDocumentResponseSerializer().serialize(head: head, data: Array(document.utf8), request: nil)
            #expect(parsed.error == nil, "\(document): \(String(describing: parsed.error))")
            #expect(parsed.value != nil)
        }
    }

    /// Binary property lists that crashed `PropertyListSerialization` (a set anywhere: a SEGV in
    /// Swift's `Set` bridging) or trapped whoever printed the result (a NaN date).
    static let propertyListsThatCrashedFoundation: [(String, String)] = [
        ("a set at the top", "62706c6973743030c1011007080a000000000000010100000000000000020000000000000000000000000000000c"),
        ("a set in an array", "62706c6973743030c101a1021003080a0c000000000000010100000000000000030000000000000000000000000000000e"),
        ("a set in a dictionary", "62706c6973743030d10102516bc1031001080b0d0f0000000000000101000000000000000400000000000000000000000000000011"),
        ("a date that is not a number", "62706c6973743030337ff8000000000000080000000000000101000000000000000100000000000000000000000000000011"),
        ("a trailer past the file", "62706c697374303008" + String(repeating: "ff", count: 32)),
    ]

    @Test(arguments: Self.propertyListsThatCrashedFoundation)
    func propertyListThatCrashedFoundationIsATypedError(name: String, hex: String) throws {
        let body = try #require(Self.bytes(hex: hex))
        let error = PropertyListResponseSerializer().serialize(head: try Self.head("application/x-plist"), data: body, request: nil).error
        guard case .responseSerializationFailed(.propertyListSerializationFailed)? = error else {
            Issue.record("\(name): \(String(describing: error))")
            return
        }
    }

    /// The hostile pass's findings on the guards themselves: a quote in a comment hid an
    /// internal subset's `[`, and a run of `<?` without whitespace made the scan quadratic (a
    /// megabyte of them would not end; it is now one pass).
    @Test func guardFindingsOfTheHostilePass() throws {
        let head = try Self.head("application/xml")
        let hidden = "<!-- <!DOCTYPE it's --><!DOCTYPE r [ <?p d?> <!-- c --> ]><r a='>'/>"
        let error = XMLParserResponseSerializer().serialize(head: head, data: Array(hidden.utf8), request: nil).error
        #expect(error?.description.contains("internal DTD subset") == true, "\(String(describing: error))")
        let run = Array(repeating: Array("<?".utf8), count: 500_000).flatMap { $0 }
        #expect(XMLParserResponseSerializer().serialize(head: head, data: run, request: nil).error != nil)
    }

    /// Shared references Foundation copies once per reference: 33 arrays that each name the next
    /// twice stand for 2^33 objects (a hang, then all memory); one 1,000-byte data object named
    /// 300,000 times stands for 300 MB.
    @Test func propertyListsStandingForTooMuchAreRefused() throws {
        let chain = try #require(Self.bytes(hex: Self.doublingChain))
        let wide = Self.binaryList(referencesToOneData: 300_000, dataLength: 1_000)
        for body in [chain, wide] {
            let error = PropertyListResponseSerializer().serialize(head: try Self.head("application/x-plist"), data: body, request: nil).error
            #expect(error?.description.contains("shared references") == true, "\(String(describing: error))")
        }
        let modest = Self.binaryList(referencesToOneData: 1_000, dataLength: 100)
        let parsed = PropertyListResponseSerializer().serialize(head: try Self.head("application/x-plist"), data: modest, request: nil)
        #expect(parsed.error == nil && (parsed.value as? [any Sendable])?.count == 1_000)
    }

    static let doublingChain =
        "62706c6973743030a20101a20202a20303a20404a20505a20606a20707a20808a20909a20a0aa20b0ba20c0ca20d0da20e0ea20f0fa21010a21111a21212"
        + "a21313a21414a21515a21616a21717a21818a21919a21a1aa21b1ba21c1ca21d1da21e1ea21f1fa220201007080b0e1114171a1d202326292c2f323538"
        + "3b3e4144474a4d505356595c5f626568000000000000010100000000000000210000000000000000000000000000006a"

    /// A binary property list: an array holding `count` references to one data object of
    /// `dataLength` bytes (object 1), references of one byte, offsets of four.
    static func binaryList(referencesToOneData count: Int, dataLength: Int) -> [UInt8] {
        func sized(_ marker: UInt8, _ value: Int) -> [UInt8] {
            [marker | 0x0F, 0x12] + withUnsafeBytes(of: UInt32(value).bigEndian, Array.init)
        }
        var bytes = Array("bplist00".utf8)
        let arrayOffset = bytes.count
        bytes += sized(0xA0, count) + [UInt8](repeating: 1, count: count)
        let dataOffset = bytes.count
        bytes += sized(0x40, dataLength) + [UInt8](repeating: 0x2A, count: dataLength)
        let tableOffset = bytes.count
        for offset in [arrayOffset, dataOffset] {
            bytes += withUnsafeBytes(of: UInt32(offset).bigEndian, Array.init)
        }
        bytes += [0, 0, 0, 0, 0, 0, 4, 1]
        for value in [2, 0, tableOffset] {
            bytes += withUnsafeBytes(of: UInt64(value).bigEndian, Array.init)
        }
        return bytes
    }

    @Test func anOrdinaryBinaryPropertyListStillParses() throws {
        // An array of the integer 1 and the string "x", in the binary format.
        let body = try #require(Self.bytes(hex: "62706c6973743030a2010210015178080b0d000000000000010100000000000000030000000000000000000000000000000f"))
        let serialized = PropertyListResponseSerializer().serialize(head: try Self.head("application/x-plist"), data: body, request: nil)
        #expect(serialized.error == nil)
        let array = try #require(serialized.value as? [any Sendable])
        #expect(array.count == 2 && array[0] as? Int == 1 && array[1] as? String == "x")
    }

    static func head(_ contentType: String) throws -> ResponseHead {
        ResponseHead(status: .ok, headers: HTTPHeaders([("Content-Type", contentType)]), url: try #require(URL(string: "http://127.0.0.1/x")))
    }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        return stride(from: 0, to: digits.count, by: 2).compactMap { UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16) }
    }
}
