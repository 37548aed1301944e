import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every path under a folder with its kind, size, inode and modification time (links not
/// followed), so a test can show that nothing it did not mean to touch changed.
struct TreeSnapshot: Equatable, CustomStringConvertible {
    let entries: [String: String]

    /// The tree under `root`, leaving out the paths (relative to `root`) under `excluded`.
    init(_ root: URL, excluding excluded: [String] = []) {
        var entries: [String: String] = [:]
        let relativePaths = (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String]) ?? []
        for relative in [""] + relativePaths where !excluded.contains(where: { relative == $0 || relative.hasPrefix($0 + "/") }) {
            var info = stat()
            guard lstat(root.appending(path: relative).path, &info) == 0 else { continue }
            entries[relative] = "mode \(info.st_mode) inode \(info.st_ino) size \(info.st_size) mtime \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
        self.entries = entries
    }

    var description: String {
        self.entries.keys.sorted().map { "\($0): \(self.entries[$0] ?? "")" }.joined(separator: "\n")
    }
}

/// A sandbox for a command that writes files: `work` is its working directory, and beside it
/// `outside` holds a file that must survive; ``unchangedOutsideWork()`` compares everything but
/// `work` with how it was made.
struct Sandbox {
    let root: URL
    let work: URL
    private let before: TreeSnapshot

    init() throws {
        self.root = try temporaryFolder()
        self.work = self.root.appending(path: "work")
        try FileManager.default.createDirectory(at: self.work, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: self.root.appending(path: "outside"), withIntermediateDirectories: true)
        try Data("keep me\n".utf8).write(to: self.root.appending(path: "outside/precious.txt"))
        self.before = TreeSnapshot(self.root, excluding: ["work"])
    }

    /// Whether everything but `work`'s contents is as it was.
    func unchangedOutsideWork() -> Bool {
        var after = TreeSnapshot(self.root, excluding: ["work"]).entries
        var before = self.before.entries
        // The folders' own size and times change as work's contents do; their identity must not.
        for key in ["", "work"] {
            after[key] = after[key].map(Self.identity)
            before[key] = before[key].map(Self.identity)
        }
        return after == before
    }

    /// The names in `work`, sorted.
    func workContents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: self.work.path).sorted()
    }

    private static func identity(_ entry: String) -> String {
        entry.components(separatedBy: " size").first ?? entry
    }
}
