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

    /// The record of `file`, if there is a readable one.
    static func read(for file: URL) -> ResumeData? {
        guard let saved = try? Data(contentsOf: Self.location(of: file)) else { return nil }
        return try? ResumeData(encoded: Array(saved))
    }

    /// Saves `resumeData` as the record of `file`: written to a new 0600 file beside it, then
    /// renamed over the old record. Best effort: a record that cannot be written only costs
    /// `If-Range` on a later `--continue` (which then sends `Range` alone).
    static func write(_ resumeData: ResumeData, for file: URL) {
        let record = Self.location(of: file)
        let staging = record.deletingLastPathComponent().appending(path: ".\(record.lastPathComponent).\(UUID().uuidString)")
        let descriptor = open(staging.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, S_IRUSR | S_IWUSR)
        guard descriptor >= 0 else { return }
        let written = (try? StandardOutput.write(resumeData.encoded(), to: descriptor)) != nil
        close(descriptor)
        guard written, rename(staging.path, record.path) == 0 else {
            unlink(staging.path)
            return
        }
    }

    /// Removes the record of `file` (the download is whole) when it is a regular file.
    static func remove(for file: URL) {
        let record = Self.location(of: file)
        var info = stat()
        guard lstat(record.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return }
        unlink(record.path)
    }
}
