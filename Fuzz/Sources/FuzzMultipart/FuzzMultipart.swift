import Foundation
import FuzzSupport
import Synchronization

@testable import Lupine


/// Fuzzes the test server's `multipart/form-data` parser (`LupineTestServer.MultipartFormData`
/// with `HeaderValueParameters`, what `/post` and `/anything` echo), on raw bodies and on bodies
/// Lupine's own `MultipartFormData` writes.
///
/// Input: the first byte picks the mode. Even: the first line of the rest is the boundary, the
/// rest the body. Odd: the rest describes form fields and file parts (names, file names, MIME
/// types, contents) that Lupine encodes.
///
/// Properties:
/// - raw bodies never trap the parser, and every part it reports has a name;
/// - round trip: a body Lupine writes parses back to the same parts, in order, with the names
///   and file names as Lupine escapes them (RFC 7578 §4.2: `"` as `%22`, CR and LF as
///   `%0D`/`%0A`) and the contents byte for byte (contents that contain the delimiter, which
///   a real boundary is random to avoid, are left out).
/// The entry point SwiftPM links as `main` (see `runLibFuzzer`).
@_cdecl("FuzzMultipart_main")
public func fuzzMultipartMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    if input.byte() & 1 == 0 {
        let rest = input.rest()
        let newline = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.endIndex
        let boundary = String(decoding: rest[..<newline], as: UTF8.self)
        let body = Array(rest[min(newline + 1, rest.endIndex)...])
        if let parts = serverMultipartParts(body: body, boundary: boundary) {
            require(parts.count <= body.count, "more parts than bytes")
        }
        return 0
    }
    let boundary = "lupine-fuzz-0123456789abcdef"
    var form = Lupine.MultipartFormData(boundary: boundary)
    var expected: [(name: String, filename: String?, content: [UInt8])] = []
    for _ in 0..<input.int(in: 0...5) {
        let name = input.string(maximum: 24)
        let content = input.chunk(maximum: 64)
        guard content.firstRange(of: Array("\r\n--\(boundary)".utf8)) == nil else { continue }
        if input.bool() {
            let fileName = input.string(maximum: 24)
            let mimeType = input.string(maximum: 24)
            form.appendPart(fileData: content, name: name, fileName: fileName, mimeType: mimeType)
            expected.append((Lupine.MultipartFormData.quoted(name), Lupine.MultipartFormData.quoted(fileName), content))
        } else {
            form.appendPart(formData: content, name: name)
            expected.append((Lupine.MultipartFormData.quoted(name), nil, content))
        }
    }
    let body = write(form)
    require(body.count == form.contentLength, "contentLength \(String(describing: form.contentLength)) but \(body.count) bytes written")
    guard let parts = serverMultipartParts(body: body, boundary: boundary) else {
        require(false, "the test server cannot parse a body Lupine wrote: \(String(decoding: body.prefix(400), as: UTF8.self).debugDescription)")
        return 0
    }
    require(parts.count == expected.count, "\(parts.count) parts parsed, \(expected.count) written")
    for (part, want) in zip(parts, expected) {
        require(part.name == want.name, "part name \(part.name.debugDescription), written \(want.name.debugDescription)")
        require(part.filename == want.filename, "file name \(String(describing: part.filename).debugDescription), written \(String(describing: want.filename).debugDescription)")
        require(part.content == want.content, "content of \(want.name.debugDescription) changed: \(hex(part.content.prefix(32))) vs \(hex(want.content.prefix(32)))")
    }
    return 0
}

/// Where the body is written: a file of this process's own (`RequestBodyWriter`, which would
/// collect it in memory, has a `package` initializer no other package can call).
private let scratchFile = URL(fileURLWithPath: NSTemporaryDirectory()).appending(path: "lupine-fuzz-multipart-\(getpid()).bin")

/// The body `form` writes, through `MultipartFileWriter` (what `requestWithMultipartForm`'s
/// file output uses), read back from its file.
private func write(_ form: Lupine.MultipartFormData) -> [UInt8] {
    let done = DispatchSemaphore(value: 0)
    let failure = Mutex<String?>(nil)
    Task {
        do {
            try await MultipartFileWriter.write(form, to: scratchFile)
        } catch {
            failure.withLock { $0 = "\(error)" }
        }
        done.signal()
    }
    done.wait()
    if let failure = failure.withLock({ $0 }) {
        require(false, "MultipartFileWriter failed: \(failure)")
    }
    return (try? Array(Data(contentsOf: scratchFile))) ?? []
}
