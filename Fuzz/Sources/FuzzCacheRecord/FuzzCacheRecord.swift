import Foundation
import FuzzSupport
import NIOHTTP1

@testable import Lupine

/// Fuzzes the disk cache's file format (`CacheFileFormat`, `CacheRecord`): the head and record
/// reader on arbitrary bytes, and the writer on records built from the input.
///
/// Input: the first byte picks the mode. Even: the rest is a cache file (head, record, body,
/// trailer) as read from disk. Odd: the rest builds a record (key, Vary fields, status,
/// reason, URL, header fields, times).
///
/// Properties:
/// - reading: a record read from a file, written again, gives the same bytes (the format has
///   one encoding per record), and a trailer's length and checksum read back as written;
/// - round trip: a record written by `head(of:)` reads back (`recordLength`, `record`) with the
///   same key, Vary fields, variant, status, reason, URL, header fields and times;
/// - one flipped byte in the record is caught by the checksum (never read as another record).
/// The entry point SwiftPM links as `main` (see `runLibFuzzer`).
@_cdecl("FuzzCacheRecord_main")
public func fuzzCacheRecordMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    if input.byte() & 1 == 0 {
        readFile(input.rest())
    } else {
        roundTrip(&input)
    }
    return 0
}

private func readFile(_ file: [UInt8]) {
    guard file.count >= CacheFileFormat.headSize else { return }
    let head = Array(file[0..<CacheFileFormat.headSize])
    guard let length = CacheFileFormat.recordLength(head: head) else { return }
    require(length <= CacheFileFormat.maximumRecordSize, "record length \(length) over the limit")
    let end = min(file.count, CacheFileFormat.headSize + length)
    let recordBytes = Array(file[CacheFileFormat.headSize..<end])
    if let record = CacheFileFormat.record(head: head, bytes: recordBytes) {
        let again = CacheFileFormat.head(of: record)
        require(again != nil, "a record read back is too large to write")
        if let again, again != head + recordBytes {
            // The reader may only normalise what CacheRecord.init normalises (credentials, unstored fields).
            let reread = CacheFileFormat.record(head: Array(again[0..<20]), bytes: Array(again[20...]))
            require(reread.map { same($0, record) } ?? false, "a record read from a file does not survive being written again")
        }
    }
    if file.count >= CacheFileFormat.trailerSize, let body = CacheFileFormat.bodyDescription(trailer: Array(file.suffix(CacheFileFormat.trailerSize))) {
        require(CacheFileFormat.trailer(length: body.length, checksum: body.checksum) == Array(file.suffix(CacheFileFormat.trailerSize)), "trailer does not round-trip")
    }
}

private func roundTrip(_ input: inout FuzzInput) {
    let primaryKey = input.string(maximum: 80)
    let varyFields = (0..<input.int(in: 0...4)).map { _ in input.string(maximum: 16) }
    let variant = input.string(maximum: 64)
    let status = HTTPResponseStatus(statusCode: input.int(in: 100...999), reasonPhrase: input.string(maximum: 24))
    let urlText = "https://" + input.string(maximum: 16) + "@example.com/" + input.string(maximum: 48)
    guard let url = URL(string: urlText) ?? URL(string: "https://example.com/" + percentEscaped(urlText)) else { return }
    let headers = HTTPHeaders((0..<input.int(in: 0...8)).map { _ in (input.string(maximum: 16), input.string(maximum: 48)) })
    let requestTime = Date(timeIntervalSince1970: Double(Int32(truncatingIfNeeded: UInt32(input.byte()) << 24 | UInt32(input.byte()) << 8)) + Double(input.byte()) / 256)
    let responseTime = requestTime.addingTimeInterval(Double(input.byte()))
    let record = CacheRecord(
        primaryKey: primaryKey, varyFields: varyFields, variant: variant, status: status, headers: headers, url: url,
        requestTime: requestTime, responseTime: responseTime
    )
    guard let file = CacheFileFormat.head(of: record) else { return }
    let head = Array(file[0..<CacheFileFormat.headSize])
    let length = CacheFileFormat.recordLength(head: head)
    require(length == file.count - CacheFileFormat.headSize, "head declares \(String(describing: length)) bytes, record has \(file.count - 20)")
    let bytes = Array(file[CacheFileFormat.headSize...])
    guard let read = CacheFileFormat.record(head: head, bytes: bytes) else {
        require(false, "a record Lupine wrote does not read back: key \(primaryKey.debugDescription), url \(url.absoluteString.debugDescription)")
        return
    }
    require(same(read, record), "a record changed through the file: \(read.url) vs \(record.url), \(read.headers) vs \(record.headers)")

    if !bytes.isEmpty {
        var flipped = bytes
        let index = Int(input.byte()) % flipped.count
        flipped[index] ^= 1 << (input.byte() % 8)
        require(CacheFileFormat.record(head: head, bytes: flipped) == nil, "a damaged record read as a record")
    }
}

private func same(_ a: CacheRecord, _ b: CacheRecord) -> Bool {
    a.primaryKey == b.primaryKey && a.varyFields == b.varyFields && a.variant == b.variant && a.status == b.status
        && a.status.reasonPhrase == b.status.reasonPhrase && a.url.absoluteString == b.url.absoluteString
        && a.headers.map { "\($0.name):\($0.value)" } == b.headers.map { "\($0.name):\($0.value)" }
        && a.requestTime == b.requestTime && a.responseTime == b.responseTime
}
