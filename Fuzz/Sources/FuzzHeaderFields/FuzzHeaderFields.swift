import Foundation
import FuzzSupport
import NIOCore
import NIOEmbedded
import NIOHTTP1

import Lupine

/// Fuzzes `HeaderFieldValidation` (LupineTransport), the one check of header fields before they
/// are sent, through `Request.validateHeaders()`: the type itself is `package`, which neither
/// `@testable import` nor another package reaches.
///
/// Input: a name and a value, separated by the first `:` (so a seed reads like a header line).
///
/// Properties:
/// - the verdict matches RFC 9110 written out independently: a name is a non-empty token
///   (`tchar`), a value holds no C0 control but the tab and no DEL; bytes from 0x80 up pass;
/// - the error names the field, and its message carries no control character (names are
///   quoted with escapes, so a hostile name cannot forge log lines);
/// - a field that passes can be sent: NIO's `HTTPRequestEncoder` writes it and NIO's
///   `HTTPRequestDecoder` reads back the same name and value (without surrounding blanks,
///   which NIO's decoder trims only in front).
/// The entry point SwiftPM links as `main` (see `runLibFuzzer`).
@_cdecl("FuzzHeaderFields_main")
public func fuzzHeaderFieldsMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let colon = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
    let name = String(decoding: bytes[..<colon], as: UTF8.self)
    let value = String(decoding: bytes[min(colon + 1, bytes.endIndex)...], as: UTF8.self)

    // Built whole: NIO's `add` traps on a non-ASCII name, which is what is being checked.
    let headers = HTTPHeaders([("Accept", "*/*"), (name, value)])
    let request = Request(url: URL(string: "http://example.com/")!, headers: headers)
    var violation: (name: String, reason: String)?
    do {
        try request.validateHeaders()
    } catch {
        guard case .invalidHeader(let field, let reason) = error else {
            require(false, "validateHeaders threw \(error)")
            return 0
        }
        violation = (field, reason)
    }
    let expected = isToken(name) && value.utf8.allSatisfy { ($0 >= 0x20 || $0 == 0x09) && $0 != 0x7F }
    require((violation == nil) == expected, "HeaderFieldValidation says \(violation?.reason ?? "valid") for \(name.debugDescription): \(value.debugDescription)")
    if let violation {
        require(violation.name == name, "the violation names \(violation.name.debugDescription), not \(name.debugDescription)")
        let message = LupineError.invalidHeader(name: violation.name, reason: violation.reason).localizedDescription
        require(!message.utf8.contains { $0 < 0x20 }, "the error message carries a control character: \(message.debugDescription)")
    }

    if violation == nil {
        checkRoundTrip(name: name, value: value)
    }
    return 0
}

/// `tchar` of RFC 9110 §5.6.2, one or more.
private func isToken(_ name: String) -> Bool {
    let symbols = Set("!#$%&'*+-.^_`|~".utf8)
    return !name.isEmpty && name.utf8.allSatisfy { byte in
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || symbols.contains(byte)
    }
}

/// Sends `name: value` through NIO's encoder and reads it back with NIO's decoder.
private func checkRoundTrip(name: String, value: String) {
    let encoder = EmbeddedChannel(handler: HTTPRequestEncoder())
    defer { _ = try? encoder.finish() }
    var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")
    head.headers.add(name: "Host", value: "example.com")
    head.headers.add(name: name, value: value)
    do {
        try encoder.writeOutbound(HTTPClientRequestPart.head(head))
        try encoder.writeOutbound(HTTPClientRequestPart.end(nil))
    } catch {
        require(false, "NIO's encoder refused a field Lupine accepts: \(name.debugDescription): \(value.debugDescription): \(error)")
        return
    }
    var wire = ByteBuffer()
    while var chunk = try? encoder.readOutbound(as: ByteBuffer.self) {
        wire.writeBuffer(&chunk)
    }
    let decoder = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder()))
    defer { _ = try? decoder.finish() }
    do {
        try decoder.writeInbound(wire)
    } catch {
        require(false, "NIO's decoder refused a field Lupine accepts: \(name.debugDescription): \(value.debugDescription): \(error)")
        return
    }
    guard case .head(let received) = try? decoder.readInbound(as: HTTPServerRequestPart.self) else {
        require(false, "no head decoded for \(name.debugDescription): \(value.debugDescription)")
        return
    }
    let blanks: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
    let trimmed = String(decoding: Array(value.utf8).drop(while: blanks).reversed().drop(while: blanks).reversed(), as: UTF8.self)
    // NIO's decoder drops leading blanks but keeps trailing tabs: compare without either.
    let values = received.headers[name].map { String(decoding: Array($0.utf8).drop(while: blanks).reversed().drop(while: blanks).reversed(), as: UTF8.self) }
    require(values.last == trimmed, "field \(name.debugDescription): \(value.debugDescription) came back as \(values)")
}
