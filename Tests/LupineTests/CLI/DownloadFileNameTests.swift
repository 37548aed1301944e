import Foundation
import Testing

@testable import LupineCLI

/// Property test for the names `lupine download` takes from URLs: whatever the path (dot
/// segments plain and encoded, encoded slashes and backslashes, `~`, NUL and other controls,
/// unicode, very long segments), the name is one plain file name inside the working directory.
@Suite struct DownloadFileNameTests {
    /// Pieces paths are built from: the dangerous ones many times over.
    private static let pieces = [
        "/", "/", "/", ".", "..", "%2e", "%2E%2e", ".%2e", "%2f", "%2F", "%5c", "\\", "~", "%7e", "%00", "%01", "%0a",
        "%0D", "%1b", "%7f", "%c2%85", "a", "b.txt", "caf%C3%A9", "%E6%97%A5%E6%9C%AC", "%F0%9F%98%80", "%ff", "%",
        "%zz", ";", "x", String(repeating: "long", count: 80), String(repeating: "%C3%A9", count: 200),
    ]

    @Test func generatedPathsNeverLeaveTheWorkingDirectory() async throws {
        let folder = try temporaryFolder()
        // Thousands of file operations: on a thread of its own, off the concurrency pool.
        let (problems, named, outside) = try await onOwnThread { try Self.nameGeneratedPaths(in: folder) }
        #expect(problems == [])
        #expect(named > 1000)
        #expect(outside == ["work"])
    }

    /// Names 5,000 generated paths and creates each named file in `folder/work`; returns the
    /// paths whose names broke a rule, how many paths had a name, and what `folder` then holds.
    private static func nameGeneratedPaths(in folder: URL) throws -> (problems: [String], named: Int, outside: [String]) {
        defer { try? FileManager.default.removeItem(at: folder) }
        let work = folder.appending(path: "work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        var generator = SplitMix64(seed: 0x5EED)
        var named = 0
        var problems: [String] = []
        for _ in 0..<5000 {
            let count = Int(generator.next() % 12) + 1
            let path = (0..<count).map { _ in Self.pieces[Int(generator.next() % UInt64(Self.pieces.count))] }.joined()
            guard let url = URL(string: "http://example.test" + (path.hasPrefix("/") ? path : "/" + path)) else { continue }
            guard let name = DownloadFileName.name(for: url) else { continue }
            named += 1
            let file = work.appending(path: name)
            let plain =
                !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\\")
                && !name.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
                && name.utf8.count <= DownloadFileName.maximumLength
            let inside = file.deletingLastPathComponent().standardizedFileURL.path == work.standardizedFileURL.path
            // The name really is a file in `work`: creating it there works.
            if !plain || !inside || !FileManager.default.createFile(atPath: file.path, contents: nil) {
                problems.append("\(path) -> \(name)")
            }
        }
        return (problems, named, try FileManager.default.contentsOfDirectory(atPath: folder.path))
    }

    @Test func namesFollowDotSegmentsAndDecoding() throws {
        let cases: [(String, String?)] = [
            ("/a/b.txt", "b.txt"), ("/a/b/..", nil), ("/a/b/../c", "c"), ("/a/%2e%2E/c", "c"), ("/", nil), ("", nil),
            ("/..%2f..%2fetc%2fpasswd", ".._.._etc_passwd"), ("/~", "~"), ("/%7Euser", "~user"), ("/a%00", "a_"),
            ("/dir/", nil), ("/x/.", nil), ("/%ff", "%ff"), ("/r%C3%A9sum%C3%A9.pdf", "résumé.pdf"),
        ]
        for (path, expected) in cases {
            let url = try #require(URL(string: "http://example.test" + path))
            #expect(DownloadFileName.name(for: url) == expected, "\(path)")
        }
        let long = try #require(URL(string: "http://example.test/" + String(repeating: "é", count: 300) + ".tar.gz"))
        let name = try #require(DownloadFileName.name(for: long))
        #expect(name.utf8.count <= 255 && name.hasSuffix(".gz"))
    }
}

/// A small deterministic random number generator, so a failing case can be replayed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
