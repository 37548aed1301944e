import Foundation
import FuzzSupport
import NIOHTTP1

@testable import Lupine

/// Fuzzes the HTTP cache's header parsing (Sources/Lupine/Cache/HTTP): `Cache-Control`
/// (`CacheControl`), `Expires`, `Date` and `Last-Modified` (`HTTPDate`), `Age`
/// (`CacheControl.seconds`), `Vary` (`VaryKey`), and `Freshness`, which combines them.
///
/// Input: header lines (`Name: value`, one a line); the input as a whole is also read as one
/// `Cache-Control` value and one HTTP-date.
///
/// Properties:
/// - delta-seconds are digits only and saturate: `seconds` is `nil` or in 0...2^31;
/// - every directive name is non-empty and lower-case; a repeated `max-age` keeps the least;
/// - an HTTP-date that parses, written again as an IMF-fixdate, parses to the same instant;
/// - freshness: the lifetime and corrected initial age are never negative, nor NaN; the current
///   age never decreases with time; the `Age` the cache would deliver is digits in 0...2^31;
/// - `Vary`: fields are lower-case, sorted, unique, at most 64, none `*`; the digest is 64
///   hexadecimal digits and does not depend on the order of the request's fields.
/// The entry point SwiftPM links as `main` (see `runLibFuzzer`).
@_cdecl("FuzzCacheControl_main")
public func fuzzCacheControlMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    let now = Date(timeIntervalSince1970: 1_750_000_000)

    // One Cache-Control value.
    for (name, argument) in CacheControl.directives(text) {
        require(!name.isEmpty && name == name.lowercased(), "directive name \(name.debugDescription)")
        if let argument, let seconds = CacheControl.seconds(argument) {
            require((0...CacheControl.saturatedSeconds).contains(seconds), "seconds \(seconds) for \(argument.debugDescription)")
            require(argument.utf8.allSatisfy { (48...57).contains($0) }, "seconds from a non-digit argument \(argument.debugDescription)")
        }
    }
    if let seconds = CacheControl.seconds(text) {
        require((0...CacheControl.saturatedSeconds).contains(seconds), "seconds \(seconds) out of range")
    }

    // One HTTP-date, written again and reread.
    checkDate(text, now: now)

    // Header lines.
    var fields: [(String, String)] = []
    for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).prefix(32) {
        guard let colon = line.firstIndex(of: ":") else { continue }
        fields.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
    }
    // Built whole: NIO's `add` traps on a non-ASCII name, which a hostile response may have.
    let headers = HTTPHeaders(fields)
    let control = CacheControl(headers)
    let maxAges = headers["Cache-Control"].flatMap(CacheControl.directives).filter { $0.name == "max-age" }
    if !maxAges.isEmpty {
        let least = maxAges.map { $0.argument.flatMap(CacheControl.seconds) ?? 0 }.min()!
        require(control.maxAge == least, "max-age \(String(describing: control.maxAge)), expected the least, \(least)")
    }
    for field in ["Date", "Expires", "Last-Modified"] {
        headers[field].forEach { checkDate($0, now: now) }
    }

    let status = [200, 203, 204, 206, 301, 404, 500][Int(size % 7)]
    let freshness = Freshness(status: status, headers: headers, requestTime: now.addingTimeInterval(-1), responseTime: now)
    require(freshness.lifetime >= 0 && !freshness.lifetime.isNaN, "lifetime \(freshness.lifetime)")
    require(freshness.correctedInitialAge >= 0 && !freshness.correctedInitialAge.isNaN, "corrected initial age \(freshness.correctedInitialAge)")
    let early = freshness.currentAge(at: now.addingTimeInterval(-3600))
    let later = freshness.currentAge(at: now.addingTimeInterval(3600))
    require(early <= freshness.currentAge(at: now) && freshness.currentAge(at: now) <= later, "the age went backwards")
    _ = freshness.isWorthStoring(headers: headers)

    let record = CacheRecord(
        primaryKey: "https://example.com/", varyFields: [], variant: "", status: HTTPResponseStatus(statusCode: status),
        headers: headers, url: URL(string: "https://example.com/")!, requestTime: now.addingTimeInterval(-1), responseTime: now
    )
    for delay in [0.0, 10, 1e9, 1e300] {
        let age = record.head(at: now.addingTimeInterval(delay)).headers["Age"]
        require(age.count == 1, "\(age.count) Age fields delivered")
        let seconds = age.first.flatMap(CacheControl.seconds)
        require(seconds != nil && age.first!.utf8.allSatisfy { (48...57).contains($0) }, "Age \(age) is not delta-seconds")
    }

    if let fields = VaryKey.fields(of: headers) {
        require(fields.count <= VaryKey.maximumFields, "\(fields.count) Vary fields kept")
        require(fields == Array(Set(fields)).sorted(), "Vary fields not sorted and unique: \(fields)")
        require(fields.allSatisfy { $0 == $0.lowercased() && $0 != "*" && !$0.isEmpty }, "Vary field not canonical: \(fields)")
        let digest = VaryKey.digest(fields: fields, request: headers)
        require(digest.utf8.count == 64 && digest.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }, "digest \(digest)")
        let reversed = HTTPHeaders(headers.reversed().map { ($0.name, $0.value) })
        let sameOrder = fields.allSatisfy { reversed[$0].count <= 1 && headers[$0].count <= 1 }
        if sameOrder {
            require(VaryKey.digest(fields: fields, request: reversed) == digest, "the Vary digest depends on the order of unrelated fields")
        }
    }
    return 0
}

private let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
private let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

/// `text` as an HTTP-date: if it parses, its IMF-fixdate form parses to the same instant.
private func checkDate(_ text: String, now: Date) {
    guard let date = HTTPDate.parse(text, now: now) else { return }
    let seconds = Int(date.timeIntervalSince1970)
    require(Double(seconds) == date.timeIntervalSince1970, "a date with a fraction of a second: \(text.debugDescription)")
    let days = Int((Double(seconds) / 86_400).rounded(.down))
    let secondOfDay = seconds - days * 86_400
    let (year, month, day) = civil(fromDays: days)
    guard (1000...9999).contains(year) else { return }
    let pad = { (n: Int, width: Int) in String(repeating: "0", count: max(0, width - String(n).count)) + String(n) }
    let weekday = dayNames[((days % 7) + 7) % 7]
    let written = "\(weekday), \(pad(day, 2)) \(monthNames[month - 1]) \(year) \(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)) GMT"
    require(HTTPDate.parse(written, now: now) == date, "\(text.debugDescription) parsed to \(date), but \(written) does not")
}
