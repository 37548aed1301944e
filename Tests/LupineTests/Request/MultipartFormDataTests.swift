import Foundation
import NIOCore
import Testing

@testable import Lupine

/// `MultipartFormData`: RFC 7578 framing, exact lengths, MIME types, escaping, errors before
/// sending, and the body written to a file.
@Suite struct MultipartFormDataTests {
    /// Everything `form` produces, and the sizes of the writes it made.
    private func produce(_ form: MultipartFormData) async throws -> (bytes: [UInt8], writes: [Int]) {
        let chunks = Recorder<ByteBuffer>()
        try await form.write(to: RequestBodyWriter { chunks.append($0) })
        return (chunks.all.flatMap { Array($0.readableBytesView) }, chunks.all.map(\.readableBytes))
    }

    @Test func framingFollowsRFC7578() async throws {
        var form = MultipartFormData(boundary: "XyZ")
        form.appendPart(formData: "1", name: "a")
        form.appendPart(fileData: Array("hi".utf8), name: "f", fileName: "h.txt", mimeType: "text/plain")
        let expected = """
            --XyZ\r
            Content-Disposition: form-data; name="a"\r
            \r
            1\r
            --XyZ\r
            Content-Disposition: form-data; name="f"; filename="h.txt"\r
            Content-Type: text/plain\r
            \r
            hi\r
            --XyZ--\r

            """
        let produced = try await self.produce(form)
        #expect(String(decoding: produced.bytes, as: UTF8.self) == expected)
        #expect(form.contentLength == produced.bytes.count)
        #expect(form.contentType == "multipart/form-data; boundary=XyZ")
    }

    @Test func lengthIsExactForEveryKindOfPart() async throws {
        let file = try temporaryFile((0..<100_000).map { UInt8(truncatingIfNeeded: $0) }, name: "part.bin")
        var form = MultipartFormData()
        form.appendPart(formData: "", name: "empty")
        form.appendPart(formData: "välue", name: "ключ")
        try form.appendPart(fileURL: file, name: "file")
        form.appendPart(fileData: [], name: "nothing", fileName: "empty.dat", mimeType: "application/octet-stream")
        form.appendPart(headers: ["Content-Disposition": "form-data; name=\"raw\"", "X-Extra": "1"], body: [1, 2, 3])
        form.appendPart(
            stream: AsyncStream {
                $0.yield([UInt8](repeating: 7, count: 5000)); $0.finish()
            }, name: "s", fileName: "s.bin", length: 5000, mimeType: "application/octet-stream")
        let produced = try await self.produce(form)
        #expect(form.contentLength == produced.bytes.count)
        #expect(produced.bytes.count > 105_000)
    }

    @Test func aStreamWithoutALengthLeavesTheLengthUnknown() {
        var form = MultipartFormData()
        form.appendPart(stream: AsyncStream<ByteBuffer> { $0.finish() }, name: "s", fileName: "s", length: nil, mimeType: "text/plain")
        #expect(form.contentLength == nil)
    }

    /// Lengths whose sum is beyond `Int` (a sparse file near `Int.max`, a caller's stream) make
    /// the length unknown, sent chunked, instead of an overflow trap (the audit's finding).
    @Test func lengthsBeyondIntLeaveTheLengthUnknown() {
        var form = MultipartFormData()
        form.appendPart(formData: "x", name: "f")
        form.appendPart(stream: AsyncStream<ByteBuffer> { $0.finish() }, name: "s", fileName: "s", length: Int.max, mimeType: "text/plain")
        #expect(form.contentLength == nil)
    }

    @Test func mimeTypesComeFromTheExtension() throws {
        #expect(MIMEType.forFileName("server.cer") == "application/x-x509-ca-cert")
        #expect(MIMEType.forFileName("photo.PNG") == "image/png")
        #expect(MIMEType.forFileName("archive.tar.gz") == "application/gzip")
        #expect(MIMEType.forFileName("notes.unknownext") == "application/octet-stream")
        #expect(MIMEType.forFileName("Makefile") == "application/octet-stream")
        #expect(MIMEType.forFileName(".hidden") == "application/octet-stream")
    }

    @Test func fileNameAndTypeAreTakenFromTheFile() async throws {
        let file = try temporaryFile(Array("-----BEGIN".utf8), name: "root.cer")
        var form = MultipartFormData(boundary: "b")
        try form.appendPart(fileURL: file, name: "certificate")
        let text = String(decoding: try await self.produce(form).bytes, as: UTF8.self)
        #expect(text.contains("Content-Disposition: form-data; name=\"certificate\"; filename=\"root.cer\"\r\nContent-Type: application/x-x509-ca-cert\r\n"))
    }

    @Test func namesAreEscapedAsFormsDoAndKeptInUTF8() async throws {
        var form = MultipartFormData(boundary: "b")
        form.appendPart(fileData: [1], name: "a\"b\r\nc", fileName: "файл 📄.txt", mimeType: "text/plain")
        let text = String(decoding: try await self.produce(form).bytes, as: UTF8.self)
        #expect(text.contains("name=\"a%22b%0D%0Ac\"; filename=\"файл 📄.txt\""))
    }

    @Test func missingFilesAndDirectoriesFailAtAppend() throws {
        var form = MultipartFormData()
        let missing = FileManager.default.temporaryDirectory.appending(path: "lupine-missing-\(UUID().uuidString)")
        #expect {
            try form.appendPart(fileURL: missing, name: "f")
        } throws: { error in
            guard case LupineError.multipartEncodingFailed(.fileNotFound(missing)) = error else { return false }
            return true
        }
        #expect {
            try form.appendPart(fileURL: FileManager.default.temporaryDirectory, name: "f")
        } throws: { error in
            guard case LupineError.multipartEncodingFailed(.fileIsDirectory) = error else { return false }
            return true
        }
        #expect(throws: LupineError.self) { try form.appendPart(fileURL: URL(string: "https://example.com/x")!, name: "f") }
        #expect(form.contentLength == MultipartFormData(boundary: form.boundary).contentLength)
    }

    @Test func aFileThatChangesSizeIsAnErrorNotACorruptBody() async throws {
        let file = try temporaryFile([1, 2, 3], name: "part.bin")
        var form = MultipartFormData()
        try form.appendPart(fileURL: file, name: "f")
        try Data([1, 2, 3, 4, 5]).write(to: file)
        await #expect {
            _ = try await self.produce(form)
        } throws: { error in
            guard case LupineError.multipartEncodingFailed(.fileChangedSize(_, expected: 3, found: 5)) = error else { return false }
            return true
        }
    }

    @Test func aStreamShorterThanDeclaredIsAnError() async throws {
        var form = MultipartFormData()
        form.appendPart(
            stream: AsyncStream {
                $0.yield([1, 2]); $0.finish()
            }, name: "s", fileName: "s", length: 10, mimeType: "text/plain")
        await #expect {
            _ = try await self.produce(form)
        } throws: { error in
            guard case LupineError.multipartEncodingFailed(.streamLengthMismatch("s", declared: 10, produced: 2)) = error else { return false }
            return true
        }
    }

    @Test func throttlingSendsSmallPackets() async throws {
        var form = MultipartFormData()
        form.appendPart(fileData: [UInt8](repeating: 1, count: 1000), name: "f", fileName: "f", mimeType: "text/plain")
        form.throttleBandwidth(packetSize: 64, delay: .milliseconds(1))
        let produced = try await self.produce(form)
        #expect(produced.writes.allSatisfy { $0 <= 64 })
        #expect(produced.bytes.count == form.contentLength)
    }

    @Test func boundariesAreRandom() {
        #expect(MultipartFormData().boundary != MultipartFormData().boundary)
        #expect(MultipartFormData().boundary.count == 39)
    }

    @Test func requestsFlattenParametersAndRefuseGetAndHead() throws {
        let serializer = HTTPRequestSerializer()
        let request = try serializer.multipartFormRequest(
            method: .POST,
            urlString: "http://127.0.0.1/post",
            parameters: ["user": ["name": "x"], "tags": ["a", "b"]]
        ) { form in form.appendPart(formData: "v", name: "extra") }
        guard case .multipart(let form) = request.body else {
            Issue.record("expected a multipart body")
            return
        }
        #expect(request.headers.first(name: "Content-Type") == form.contentType)
        for method in [HTTPMethod.GET, .HEAD] {
            #expect {
                _ = try serializer.multipartFormRequest(method: method, urlString: "http://127.0.0.1/") { _ in }
            } throws: { error in
                guard case LupineError.parameterEncodingFailed(.methodNotAllowed) = error else { return false }
                return true
            }
        }
    }

    @Test func theBodyCanBeWrittenToAFileForAnUploadFromFile() async throws {
        let serializer = HTTPRequestSerializer()
        let request = try serializer.multipartFormRequest(method: .POST, urlString: "http://127.0.0.1/post", parameters: ["k": "v"]) { form in
            form.appendPart(fileData: Array("abc".utf8), name: "f", fileName: "f.txt", mimeType: "text/plain")
        }
        guard case .multipart(let form) = request.body else {
            Issue.record("expected a multipart body")
            return
        }
        let target = FileManager.default.temporaryDirectory.appending(path: "lupine-body-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: target) }
        let written = try await serializer.requestWithMultipartFormRequest(request, writingStreamContentsTo: target)
        guard case .file(let url) = written.body else {
            Issue.record("expected a file body")
            return
        }
        #expect(url == target)
        #expect(Array(try Data(contentsOf: target)) == (try await self.produce(form)).bytes)

        let unwritable = FileManager.default.temporaryDirectory.appending(path: "lupine-no-such-folder-\(UUID().uuidString)/body")
        await #expect(throws: LupineError.self) {
            _ = try await serializer.requestWithMultipartFormRequest(request, writingStreamContentsTo: unwritable)
        }
        #expect(!FileManager.default.fileExists(atPath: unwritable.path))
    }
}
