import Foundation
import FuzzSupport

@testable import Lupine

/// Fuzzes the Netscape cookie-file reader (`NetscapeCookieReader`, through
/// `CookieStorage.importNetscapeText`) and writer (`netscapeText`).
///
/// Input: a cookie file's text, read whole and also fed to the reader in pieces; its lines
/// without a tab are also stored as `Set-Cookie` values from `https://www.example.co.uk/a/b`.
///
/// Properties:
/// - the reader is streaming: the file fed in pieces of any size gives the same cookies and
///   warnings as the file fed whole;
/// - warnings are bounded (at most 100 and one count) and never quote the file (cookies are
///   credentials): no warning contains a cookie's value;
/// - round trip: a jar written as a cookie file and read back keeps its cookies (name, value,
///   domain, path, host-only, secure, HttpOnly, and the expiry to the second), and writing the
///   jar read back gives the same text.
/// The entry point SwiftPM links as `main` (see `runLibFuzzer`).
@_cdecl("FuzzNetscapeCookies_main")
public func fuzzNetscapeCookiesMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let now = Date(timeIntervalSince1970: 1_750_000_000)

    // The file read whole, then in pieces of a size the input picks.
    let storage = CookieStorage(maximumCookiesPerDomain: 20, maximumCookies: 200)
    var whole = NetscapeCookieReader(into: storage.emptyCopy(), now: now)
    whole.feed(bytes)
    whole.finish()
    let piece = 1 + Int(bytes.first ?? 0) % 17
    var pieces = NetscapeCookieReader(into: storage.emptyCopy(), now: now)
    var offset = 0
    while offset < bytes.count {
        pieces.feed(bytes[offset..<min(bytes.count, offset + piece)])
        offset += piece
    }
    pieces.finish()
    require(whole.warnings == pieces.warnings, "warnings depend on how the file is fed: \(whole.warnings) vs \(pieces.warnings)")
    require(Set(whole.jar.all.map(Snapshot.init)) == Set(pieces.jar.all.map(Snapshot.init)), "cookies depend on how the file is fed")
    require(whole.warnings.count <= NetscapeCookieReader.maximumWarnings + 1, "\(whole.warnings.count) warnings")

    // The storage's own import, then the round trip.
    let text = String(decoding: bytes, as: UTF8.self)
    let warnings = storage.importNetscapeText(text, now: now)
    // Lines without a tab are also Set-Cookie values from a site, so cookies the file format
    // cannot express directly (any admitted value) reach the writer too.
    let setCookies = text.split(separator: "\n").filter { !$0.contains("\t") }.prefix(16).map(String.init)
    storage.storeCookies(fromSetCookieValues: setCookies, for: URL(string: "https://www.example.co.uk/a/b")!, now: now)
    for cookie in storage.allCookies where cookie.value.utf8.count >= 8 {
        require(!warnings.contains { $0.contains(cookie.value) }, "a warning quotes a cookie's value")
    }
    let written = storage.netscapeText(now: now)
    let reread = CookieStorage(maximumCookiesPerDomain: 20, maximumCookies: 200)
    let rereadWarnings = reread.importNetscapeText(written, now: now)
    require(rereadWarnings.isEmpty, "a file Lupine wrote reads with warnings: \(rereadWarnings)\n\(written.prefix(400))")
    let before = Set(storage.allCookies.filter { !$0.isExpired(at: now) }.map(Snapshot.init))
    let after = Set(reread.allCookies.map(Snapshot.init))
    require(before == after, "cookies lost or changed by a write and read: \(before.subtracting(after)) became \(after.subtracting(before))")
    require(reread.netscapeText(now: now) == written, "writing the jar read back gives other text")
    return 0
}

/// What a cookie file keeps of a cookie.
private struct Snapshot: Hashable, CustomStringConvertible {
    let name, value, domain, path: String
    let isHostOnly, isSecure, isHTTPOnly: Bool
    let expiry: Double?

    init(_ cookie: Cookie) {
        (self.name, self.value, self.domain, self.path) = (cookie.name, cookie.value, cookie.domain, cookie.path)
        (self.isHostOnly, self.isSecure, self.isHTTPOnly) = (cookie.isHostOnly, cookie.isSecure, cookie.isHTTPOnly)
        self.expiry = cookie.expiresAt.map { min($0.timeIntervalSince1970.rounded(.up), Date.distantFuture.timeIntervalSince1970.rounded(.down)) }
    }

    var description: String { "\(name)=\(value.prefix(20)) \(domain)\(path) host-only \(isHostOnly) secure \(isSecure) http-only \(isHTTPOnly) \(expiry.map { String($0) } ?? "session")" }
}
