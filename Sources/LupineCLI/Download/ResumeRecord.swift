import Foundation
import Lupine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The resume data `lupine download` keeps beside a file while it is incomplete, in
/// `FILE.lupine-resume`: the URL (without user-info) and the validator of the response whose
/// bytes the file holds, so `--continue` can send `If-Range`. Written as soon as the response
/// head arrives, so a download killed outright (SIGKILL, a power cut) still has it; readable by
/// the owner only (0600), and replaced atomically.
enum ResumeRecord {
    /// Where the record of `file` is kept.
    static func location(of file: URL) -> URL {
        file.deletingLastPathComponent().appending(path: file.lastPathComponent + ".lupine-resume")
    }

    /// The largest record read: resume data are a few hundred bytes.
    static let maximumLength = 64 * 1024

    /// The record of `file`, if there is one: a regular file of resume data (anything else at
    /// that name is not read).
    static func read(for file: URL) -> ResumeData? {
        let record = Self.location(of: file)
        guard Self.isRegularFile(record, atMost: Self.maximumLength), let saved = try? Data(contentsOf: record) else { return nil }
        return try? ResumeData(encoded: Array(saved))
    }

    /// Saves `resumeData` as the record of `file`: written to a new 0600 file beside it, then
    /// renamed over the old record. Returns whether the record was saved; one that was
    /// not only costs `If-Range` on a later `--continue`, which then sends `Range` alone.
    @discardableResult
    static func write(_ resumeData: ResumeData, for file: URL) -> Bool {
        let record = Self.location(of: file)
        // Only a record of ours is ever replaced: a link, FIFO, device or folder of that name, or a
        // file that is not resume data (a user's own `X.lupine-resume`), is left alone.
        var info = stat()
        if lstat(record.path, &info) == 0, Self.read(for: file) == nil {
            return false
        }
        let staging = record.deletingLastPathComponent().appending(path: ".\(record.lastPathComponent).\(UUID().uuidString)")
        let descriptor = open(staging.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, S_IRUSR | S_IWUSR)
        guard descriptor >= 0 else { return false }
        let written = (try? StandardOutput.write(resumeData.encoded(), to: descriptor)) != nil
        close(descriptor)
        guard written, rename(staging.path, record.path) == 0 else {
            unlink(staging.path)
            return false
        }
        return true
    }

    /// Removes the record of `file` (the download is whole) when it is one: a regular file of
    /// resume data, never a user's file that happens to have the name.
    static func remove(for file: URL) {
        if Self.read(for: file) != nil {
            unlink(Self.location(of: file).path)
        }
    }

    /// Whether `url` names a regular file (not through a link) of at most `limit` bytes.
    private static func isRegularFile(_ url: URL, atMost limit: Int) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_size <= limit
    }
}
