import FuzzSupport

@testable import Lupine

/// Fuzzes `ContentRange`, the `Content-Range` reader of resumed downloads (`FileSink`).
///
/// Input: the field's value, as text.
///
/// Properties:
/// - a range read has its first byte at or before its last, and both non-negative;
/// - its end lies past its last byte, unless the complete length says otherwise;
/// - a field written from what was read (`bytes first-last/complete`) reads back the same.
@_cdecl("FuzzContentRange_main")
public func fuzzContentRangeMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let range = ContentRange(text) else { return 0 }
    if let first = range.first, let last = range.last {
        require(first >= 0 && first <= last, "\(text) gave \(first)-\(last)")
        if range.completeLength == nil {
            require(range.end.map { $0 > last } ?? (last == Int.max), "\(text) ends at \(String(describing: range.end))")
        }
        let written = "bytes \(first)-\(last)/\(range.completeLength.map(String.init) ?? "*")"
        require(ContentRange(written) == range, "\(text) was read as \(range), written as \(written), read back differently")
    }
    require(range.completeLength.map { $0 >= 0 } ?? true, "\(text) gave a negative length")
    return 0
}
