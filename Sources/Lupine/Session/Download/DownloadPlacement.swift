import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Puts a finished download at its destination without ever removing what Lupine did not make
/// unless asked, and never anything but a regular file.
///
/// A symbolic link at the destination is followed (the file it names is the destination, as
/// `curl -o` writes through a link); a link to nothing is refused. A regular file is replaced
/// only with ``DownloadOptions/removePreviousFile``, and then atomically by `rename(2)`, so no
/// moment exists where neither the old nor the new file is there. A directory, device, FIFO or
/// socket is never replaced: the download fails with
/// ``LupineError/DownloadFailureReason/destinationNotReplaceable(_:reason:)``.
enum DownloadPlacement {
    /// Moves `file` (a download's temporary file) to `target`; returns where it ended up.
    static func place(_ file: URL, at target: URL, options: DownloadOptions) throws(LupineError) -> URL {
        let destination = try Self.followingLink(target)
        if options.contains(.createIntermediateDirectories) {
            do {
                try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw .downloadFailed(.cannotMoveFile(from: file, to: destination, reason: error.debugReason))
            }
        }
        switch Self.kind(of: destination) {
        case .missing:
            break
        case .regularFile:
            guard options.contains(.removePreviousFile) else {
                throw .downloadFailed(.cannotMoveFile(from: file, to: destination, reason: "a file already exists there"))
            }
        case .directory:
            throw .downloadFailed(.destinationNotReplaceable(destination, reason: "is a directory"))
        case .other:
            throw .downloadFailed(.destinationNotReplaceable(destination, reason: "is a device, FIFO or socket"))
        }
        try Self.moveAtomically(file, to: destination)
        return destination
    }

    /// What a path names.
    private enum Kind {
        case missing, regularFile, directory, other
    }

    /// The kind of thing at `url`, following symbolic links.
    private static func kind(of url: URL) -> Kind {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regularFile
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    /// `url`, or the path its final symbolic link (and any links that one names) resolves to.
    private static func followingLink(_ url: URL) throws(LupineError) -> URL {
        var info = stat()
        guard lstat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return url }
        guard let resolved = realpath(url.path, nil) else {
            throw .downloadFailed(.destinationNotReplaceable(url, reason: "is a symbolic link to nothing"))
        }
        defer { free(resolved) }
        return URL(fileURLWithPath: String(cString: resolved))
    }

    /// `rename(2)`, which replaces a regular file atomically; across file systems, a copy made
    /// beside the destination first and then renamed over it.
    private static func moveAtomically(_ file: URL, to destination: URL) throws(LupineError) {
        if rename(file.path, destination.path) == 0 {
            return
        }
        let renameError = errno
        guard renameError == EXDEV else {
            throw .downloadFailed(.cannotMoveFile(from: file, to: destination, reason: String(cString: strerror(renameError))))
        }
        let staging = destination.deletingLastPathComponent().appending(path: ".\(DownloadFile.namePrefix)\(UUID().uuidString).\(DownloadFile.nameExtension)")
        do {
            try FileManager.default.copyItem(at: file, to: staging)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw .downloadFailed(.cannotMoveFile(from: file, to: destination, reason: error.debugReason))
        }
        guard rename(staging.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: staging)
            throw .downloadFailed(.cannotMoveFile(from: file, to: destination, reason: reason))
        }
        try? FileManager.default.removeItem(at: file)
    }
}
