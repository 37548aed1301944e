import Foundation
import FuzzSupport

@testable import Lupine

/// Fuzzes the `Set-Cookie` parser (`SetCookie.parse`, RFC 6265 §5.2), the cookie-date
/// algorithm (`CookieDate`, §5.1.1) and the storage model behind `CookieStorage`
/// (Sources/Lupine/Cache/Cookies).
///
/// Input: the first line is the request URL, every further line one `Set-Cookie` value; the
/// whole input is also read as one `Set-Cookie` value and one cookie date.
///
/// Properties:
/// - a parsed cookie has a non-empty name, no control character but the tab anywhere, and a
///   name and value of at most 4096 bytes together; a `path` starts with `/`;
/// - a cookie date is in range (year ≥ 1601, a whole second) and, written again as an
///   IMF-fixdate, reads back as the same instant;
/// - a stored cookie is well formed (`CookieAdmission.isWellFormed`), domain-matches the
///   request's host and is not for a public suffix; the `Cookie` header sent back holds no CR,
///   LF or NUL and one `name=value` per cookie.
/// The entry point SwiftPM links as `main` (see `runLibFuzzer`).
@_cdecl("FuzzSetCookie_main")
public func fuzzSetCookieMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let now = Date(timeIntervalSince1970: 1_750_000_000)

    checkParsed(text, now: now)
    checkCookieDate(text)

    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let urlText = lines.isEmpty ? "" : lines.removeFirst()
    let url = URL(string: urlText) ?? URL(string: "https://www.example.com/a/b")!
    for line in lines.prefix(16) {
        checkParsed(line, now: now)
    }
    let storage = CookieStorage(maximumCookiesPerDomain: 8, maximumCookies: 16)
    storage.storeCookies(fromSetCookieValues: Array(lines.prefix(16)), for: url, now: now)
    let host = CookieDomain.host(of: url)
    for cookie in storage.allCookies {
        require(CookieAdmission.isWellFormed(cookie), "a stored cookie is not well formed: \(cookie)")
        require(host.map { CookieDomain.matches($0, domain: cookie.domain) } ?? false, "cookie for \(cookie.domain) stored from host \(String(describing: host))")
        if !cookie.isHostOnly {
            require(!PublicSuffixes.contains(cookie.domain), "a domain cookie for the public suffix \(cookie.domain)")
        }
    }
    let sent = storage.cookies(for: url, now: now)
    if let header = storage.cookieHeaderValue(for: url, now: now) {
        require(!header.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }), "Cookie header with CR, LF or NUL: \(header.debugDescription)")
        // Counted in bytes: a name may start with a combining mark, which joins "; " as one Character.
        let separators = zip(header.utf8, header.utf8.dropFirst()).filter { $0 == (59, 32) }.count
        require(separators + 1 == sent.count, "Cookie header \(header.debugDescription) for \(sent.count) cookies")
    }
    return 0
}

private func checkParsed(_ value: String, now: Date) {
    guard let cookie = SetCookie.parse(value, now: now) else { return }
    require(!cookie.name.isEmpty, "empty cookie name from \(value.debugDescription)")
    require(cookie.name.utf8.count + cookie.value.utf8.count <= SetCookie.maximumNameValueBytes, "name and value over 4096 bytes")
    let controls = (cookie.name + cookie.value).unicodeScalars.contains { $0 != "\t" && $0.properties.generalCategory == .control }
    require(!controls, "a control character kept in \(cookie.name.debugDescription)=\(cookie.value.debugDescription)")
    if let path = cookie.path {
        require(path.hasPrefix("/"), "path \(path.debugDescription) kept")
    }
    if let expiry = cookie.expiresAt {
        require(!expiry.timeIntervalSince1970.isNaN, "NaN expiry")
    }
}

private let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

private func checkCookieDate(_ text: String) {
    guard let date = CookieDate.parse(text) else { return }
    let seconds = date.timeIntervalSince1970
    require(seconds == seconds.rounded(.down), "a cookie date with a fraction: \(text.debugDescription)")
    require(seconds >= -11_644_473_600, "a cookie date before 1601: \(date) from \(text.debugDescription)")
    let whole = Int(seconds)
    let days = Int((seconds / 86_400).rounded(.down))
    let secondOfDay = whole - days * 86_400
    let (year, month, day) = civil(fromDays: days)
    guard year <= 9999 else { return }
    let pad = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
    let written = "Sun, \(pad(day)) \(monthNames[month - 1]) \(year) \(pad(secondOfDay / 3600)):\(pad(secondOfDay / 60 % 60)):\(pad(secondOfDay % 60)) GMT"
    require(CookieDate.parse(written) == date, "\(text.debugDescription) read as \(date), but \(written) does not")
}
