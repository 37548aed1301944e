import Foundation
import Testing

/// The README's Swift examples of one section, for the tests that run them verbatim.
enum ReadmeSection {
    /// The README at the package root.
    static var readmePath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "README.md").path
    }

    /// The file at `path`, as trimmed lines.
    static func lines(of path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The ```` ```swift ```` blocks of the README section headed `heading` (`## Name`), as
    /// trimmed lines; `nil` when the README has no such section.
    static func swiftBlocks(under heading: String) throws -> [[String]]? {
        let readme = try Self.lines(of: Self.readmePath)
        guard let start = readme.firstIndex(of: heading) else { return nil }
        var blocks: [[String]] = []
        var current: [String]?
        for line in readme[start...] {
            if line.hasPrefix("## "), line != heading { break }
            if line == "```swift" {
                current = []
            } else if line == "```", let block = current {
                blocks.append(block)
                current = nil
            } else if current != nil {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The first line of `block` that is not in the file at `path` in the block's order (a test
    /// may put checks between them); `nil` when every line is.
    static func firstMissingLine(of block: [String], inFile path: String) throws -> String? {
        var rest = try Self.lines(of: path)[...]
        return block.first { line in
            guard let found = rest.firstIndex(of: line) else { return true }
            rest = rest[(found + 1)...]
            return false
        }
    }

    /// Expects the README section headed `heading` to have `count` Swift examples, each of them
    /// in the test file at `path` verbatim (its lines in order).
    static func expectExamples(under heading: String, count: Int, inFile path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard let blocks = try Self.swiftBlocks(under: heading) else {
            Issue.record("the README has no section \(heading)", sourceLocation: sourceLocation)
            return
        }
        #expect(blocks.count == count, sourceLocation: sourceLocation)
        for block in blocks {
            let missing = try Self.firstMissingLine(of: block, inFile: path)
            #expect(missing == nil, "not here verbatim: \(missing ?? "")", sourceLocation: sourceLocation)
        }
    }
}
