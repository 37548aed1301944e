import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Puts a file Lupine made (a finished download, a written multipart body) at a path the caller
/// chose, without ever removing what Lupine did not make unless asked, and never anything but a
/// regular file.
///
/// The path must be a file URL that does not end in `/` (a URL of another scheme, or a relative
/// one, would name a file in the working directory). A symbolic link at the path is followed (the
/// file it names is the destination, as `curl -o` writes through a link); a link to nothing is
/// refused. A regular file is replaced only when the caller asked, and then atomically by
/// `rename(2)`, so there is no moment where neither the old nor the new file is there; otherwise
/// the file arrives by `link(2)`, which fails if anything got there first, so two downloads sent
/// to one path never replace each other. A directory, device, FIFO or socket is never replaced.
enum FilePlacement {
    /// Why a file was not placed.
    enum Failure: Error {
        /// The destination is not something that may be replaced.
        case notReplaceable(URL, reason: String)
        /// The move itself failed (a regular file exists and may not be replaced, a missing
        /// folder, permissions, a full disk).
        case failed(URL, reason: String)
    }

    /// Moves `file` to `target`, creating missing folders when asked; returns where it ended up.
    static func place(_ file: URL, at target: URL, replacing: Bool, creatingFolders: Bool = false) throws(Failure) -> URL {
        guard target.isFileURL else {
            throw .notReplaceable(target, reason: "is not a file URL")
        }
        guard !target.hasDirectoryPath else {
            throw .notReplaceable(target, reason: "ends with /, so it names a directory")
        }
        let destination = try Self.followingLink(target)
        if creatingFolders {
            do {
                try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw .failed(destination, reason: error.debugReason)
            }
        }
        var info = stat()
        if stat(destination.path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG where replacing: break
            case S_IFREG: throw .failed(destination, reason: "a file already exists there")
            case S_IFDIR: throw .notReplaceable(destination, reason: "is a directory")
            default: throw .notReplaceable(destination, reason: "is a device, FIFO or socket")
            }
        }
        if replacing {
            try Self.moveAtomically(file, to: destination)
        } else {
            try Self.moveWithoutReplacing(file, to: destination)
        }
        return destination
    }

    /// `url`, or the path its final symbolic link (and any links that one names) resolves to.
    private static func followingLink(_ url: URL) throws(Failure) -> URL {
        var info = stat()
        guard lstat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return url }
        guard let resolved = realpath(url.path, nil) else {
            throw .notReplaceable(url, reason: errno == ENOENT ? "is a symbolic link to nothing" : "is a symbolic link that cannot be followed")
        }
        defer { free(resolved) }
        return URL(fileURLWithPath: String(cString: resolved))
    }

    /// `rename(2)`; across file systems, a copy made beside the destination first and then
    /// renamed over it.
    private static func moveAtomically(_ file: URL, to destination: URL) throws(Failure) {
        if rename(file.path, destination.path) == 0 {
            return
        }
        let renameError = errno
        guard renameError == EXDEV else {
            throw .failed(destination, reason: String(cString: strerror(renameError)))
        }
        let staging = try Self.copy(file, beside: destination)
        guard rename(staging.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: staging)
            throw .failed(destination, reason: reason)
        }
        try? FileManager.default.removeItem(at: file)
    }

    /// `link(2)` then `unlink(2)` of the old name: the new name appears only if nothing is there,
    /// in one step. Across file systems the copy made beside the destination is linked; a file
    /// system without hard links gets `rename(2)` after the check `place` made.
    private static func moveWithoutReplacing(_ file: URL, to destination: URL) throws(Failure) {
        if link(file.path, destination.path) == 0 {
            unlink(file.path)
            return
        }
        switch errno {
        case EEXIST:
            throw .failed(destination, reason: "a file already exists there")
        case EXDEV:
            let staging = try Self.copy(file, beside: destination)
            defer { unlink(staging.path) }
            guard link(staging.path, destination.path) == 0 else {
                throw .failed(destination, reason: errno == EEXIST ? "a file already exists there" : String(cString: strerror(errno)))
            }
            try? FileManager.default.removeItem(at: file)
        case EPERM, EOPNOTSUPP, ENOSYS:
            try Self.moveAtomically(file, to: destination)
        case let linkError:
            throw .failed(destination, reason: String(cString: strerror(linkError)))
        }
    }

    /// A copy of `file` in `destination`'s folder, under a name of its own.
    private static func copy(_ file: URL, beside destination: URL) throws(Failure) -> URL {
        let staging = destination.deletingLastPathComponent().appending(path: ".lupine-\(UUID().uuidString).tmp")
        do {
            try FileManager.default.copyItem(at: file, to: staging)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw .failed(destination, reason: error.debugReason)
        }
        return staging
    }
}
