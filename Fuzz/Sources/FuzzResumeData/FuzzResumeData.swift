import Foundation
import FuzzSupport

@testable import Lupine

/// Fuzzes `ResumeData(encoded:)`, which reads the opaque bytes a caller hands back to continue
/// a download (JSON, checked for its version and ranges).
///
/// Properties:
/// - bytes it accepts describe a download it may continue: version 1, an `http` or `https` URL
///   without user-info (nor in `originalURL`), a non-negative byte count, a file URL;
/// - round trip: accepted resume data, encoded again, decode to equal resume data, and encoding
///   is stable (the same bytes twice);
/// - `belongs(to:)` accepts the resume data's own URL.
/// The entry point SwiftPM links as `main` (see `runLibFuzzer`).
@_cdecl("FuzzResumeData_main")
public func fuzzResumeDataMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let resumeData = try? ResumeData(encoded: bytes) else { return 0 }
    require(resumeData.version == ResumeData.currentVersion, "version \(resumeData.version) accepted")
    require(["http", "https"].contains(resumeData.url.scheme?.lowercased() ?? ""), "URL \(resumeData.url) accepted")
    require(resumeData.url.user == nil && resumeData.url.password == nil, "user-info kept in \(resumeData.url)")
    require(resumeData.originalURL.map { $0.user == nil && $0.password == nil } ?? true, "user-info kept in the original URL")
    require(resumeData.bytesReceived >= 0, "negative byte count accepted")
    require(resumeData.temporaryFileURL.isFileURL, "a temporary file that is no file URL")

    let encoded = resumeData.encoded()
    require(!encoded.isEmpty, "accepted resume data does not encode")
    require(resumeData.encoded() == encoded, "encoding is not stable")
    do {
        let again = try ResumeData(encoded: encoded)
        require(again == resumeData, "resume data changed through encoding: \(String(decoding: encoded, as: UTF8.self).prefix(300))")
    } catch {
        require(false, "resume data Lupine encoded do not decode: \(error); \(String(decoding: encoded, as: UTF8.self).prefix(300))")
    }
    require(resumeData.belongs(to: resumeData.url), "resume data do not belong to their own URL \(resumeData.url)")
    return 0
}
