import Foundation
import FuzzSupport
import NIOHTTP1

@testable import Lupine
@testable import LupineTestServer

/// Fuzzes the parsing of `Retry-After` (`RetryAfter.delay`, used by `RetryPolicy`) and of byte
/// ranges: the test server's `Range` reader (`ByteRangeRequest`). Lupine's own `Content-Range`
/// reader has a target of its own (`FuzzContentRange`).
///
/// Input: the first line is one or more `Retry-After` values (separated by `|`), the second a
/// `Range` value, the third an `If-Range` value.
///
/// Properties:
/// - a delay is never negative and never above the maximum asked for; repeated different
///   values ask for nothing; delay-seconds of up to 9 digits give exactly that many seconds
///   (below the maximum);
/// - a partial range lies inside the representation and is not empty; an `If-Range` that is
///   not the entity tag gives the whole representation.
/// The entry point SwiftPM links as `main` (see `runLibFuzzer`).
@_cdecl("FuzzRetryAfter_main")
public func fuzzRetryAfterMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let now = Date(timeIntervalSince1970: 1_750_000_000)

    let values = (lines.first ?? "").split(separator: "|", omittingEmptySubsequences: false).prefix(4).map(String.init)
    let headers = HTTPHeaders(values.map { ("Retry-After", $0) })
    for maximum in [Duration.seconds(0), .seconds(30), .seconds(86_400 * 365)] {
        guard let delay = RetryAfter.delay(in: headers, now: now, maximum: maximum) else { continue }
        require(delay >= .zero && delay <= maximum, "Retry-After \(values) gave \(delay) for a maximum of \(maximum)")
        let trimmed = Set(headers["Retry-After"].map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t")) })
        require(trimmed.count == 1, "different Retry-After values \(values) gave \(delay)")
        if let value = trimmed.first, (1...9).contains(value.utf8.count), value.utf8.allSatisfy({ (48...57).contains($0) }), let seconds = Int(value),
            Duration.seconds(seconds) < maximum
        {
            require(delay == .seconds(seconds), "Retry-After \(value) gave \(delay)")
        }
    }

    let range = lines.count > 1 ? lines[1] : nil
    let ifRange = lines.count > 2 ? lines[2] : nil
    for length in [0, 1, 100, Int.max] {
        let request = ByteRangeRequest(range: range, ifRange: ifRange, entityTag: "\"v1\"", length: length)
        switch request {
        case .partial(let bytes):
            require(!bytes.isEmpty && bytes.lowerBound >= 0 && bytes.upperBound <= length, "Range \(String(describing: range)) gave \(bytes) of \(length)")
            require(ifRange.map { $0.trimmingCharacters(in: .whitespaces) == "\"v1\"" } ?? true, "a range served despite If-Range \(String(describing: ifRange))")
        case .unsatisfiable:
            require(range != nil, "unsatisfiable without a Range")
        case .full:
            break
        }
    }
    return 0
}
