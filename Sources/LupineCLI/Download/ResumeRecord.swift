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

    /// The record of `file`, if there is one: a regular file of resume data whose validator can
    /// travel in a header (anything else at that name is not read).
    static func read(for file: URL) -> ResumeData? {
        let record = Self.location(of: file)
        guard Self.isRegularFile(record, atMost: Self.maximumLength), let saved = try? Data(contentsOf: record),
            let resumeData = try? ResumeData(encoded: Array(saved))
        else { return nil }
        let validators = [resumeData.entityTag, resumeData.lastModified].compactMap { $0 }
        return validators.allSatisfy { $0.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F } } ? resumeData : nil
    }

    /// Saves `resumeData` as the record of `file`: written to a new 0600 file beside it, then
    /// renamed over the old record. Returns whether the record was saved; one that was
    /// not only costs `If-Range` on a later `--continue`, which then sends `Range` alone.
    @discardableResult
    static func write(_ resumeData: ResumeData, for file: URL) -> Bool {
        let record = Self.location(of: file)
        // Only a record of ours is ever replaced: a link, FIFO, device or folder of that name, or a
        // file that is not resume data (a user's own `X.lupine-resume`), is left alone.
        switch Self.read(for: file) {
        case .some(let saved) where saved.url == resumeData.url && saved.entityTag == resumeData.entityTag && saved.lastModified == resumeData.lastModified:
            // Already saved (a continued body with the same validator): nothing to write, so
            // nothing to fail on a full disk.
            return true
        case .none where Self.exists(for: file):
            return false
        default:
            break
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

    /// Whether anything at all has the name of `file`'s record (a link is not followed).
    static func exists(for file: URL) -> Bool {
        var info = stat()
        return lstat(Self.location(of: file).path, &info) == 0
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
