import Foundation
import FuzzSupport

/// Fuzzes the name `lupine download` derives from a URL when no `-o` is given
/// (`DownloadFileName.name(for:)`), the one place Lupine makes a file name from a server's
/// words. (Lupine's library never derives one: a `DownloadTask` writes to a
/// `lupine-download-<UUID>.tmp` file and to the destination its caller names, and nothing reads
/// `Content-Disposition`.)
///
/// `LupineCLI` is an executable target, which no other package can import, so this target
/// compiles the function's own source file (`DownloadFileName.swift`, a symbolic link to
/// Sources/LupineCLI/Download/DownloadFileName.swift) into itself.
///
/// Input: a URL's text; if it does not parse, the input percent-escaped as a path.
///
/// Properties: the name never leaves its directory. It is not empty, `.` or `..`; it holds no
/// `/`, `\`, NUL or other control character; it is at most 255 bytes; and a directory joined
/// with it and standardised is a file directly inside that directory, with that name.
/// The entry point SwiftPM links as `main` (see `runLibFuzzer`).
@_cdecl("FuzzDownloadName_main")
public func fuzzDownloadNameMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var urls: [URL] = []
    if let url = URL(string: text) { urls.append(url) }
    let escaped = text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""
    if let url = URL(string: "https://example.com/" + escaped) { urls.append(url) }
    if let url = URL(string: "https://example.com/" + text.replacingOccurrences(of: "\\", with: "%5C")) { urls.append(url) }

    for url in urls {
        guard let name = DownloadFileName.name(for: url) else { continue }
        require(!name.isEmpty && name != "." && name != "..", "name \(name.debugDescription) for \(url)")
        require(!name.unicodeScalars.contains { $0 == "/" || $0 == "\\" || $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
                "name \(name.debugDescription) holds a separator or control character (from \(url))")
        require(name.utf8.count <= DownloadFileName.maximumLength, "name of \(name.utf8.count) bytes (from \(url))")
        let directory = URL(fileURLWithPath: "/tmp/lupine-fuzz/downloads", isDirectory: true)
        let file = directory.appendingPathComponent(name).standardizedFileURL
        require(file.deletingLastPathComponent().path == directory.path, "\(name.debugDescription) leaves its directory: \(file.path)")
        require(file.lastPathComponent == name, "\(name.debugDescription) is not one path component: \(file.path)")
    }
    return 0
}
