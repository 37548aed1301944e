#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a file named as a request body is, decided before it is opened for sending: opening a
/// FIFO waits for a writer, and only a regular file can say its length up front.
package enum FileBodyKind: Equatable, Sendable {
    /// A regular file of this many bytes: sent with that length, read by offset.
    case sized(Int)
    /// A file whose length is known only once it is read to its end, sent chunked as curl does:
    /// a FIFO, a character or block device, a socket, or a regular file that reports no size
    /// yet has content (`/proc` files).
    case unsized(isFIFO: Bool)

    /// The kind of the file at `path`, following symbolic links.
    ///
    /// - Throws: ``RequestBodyFileError`` when nothing readable is there, or a directory is.
    package static func of(path: String) throws(RequestBodyFileError) -> FileBodyKind {
        // A NUL would end the C string early and name another file.
        guard !path.isEmpty, !path.utf8.contains(0) else { throw .notFound(path: path) }
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                throw .notFound(path: path)
            }
            throw .notReadable(path: path, reason: TransportErrorWords.systemMessage(code))
        }
        let type = info.st_mode & S_IFMT
        guard type != S_IFDIR else { throw .isDirectory(path: path) }
        guard access(path, R_OK) == 0 else {
            throw .notReadable(path: path, reason: TransportErrorWords.systemMessage(errno))
        }
        guard type == S_IFREG else { return .unsized(isFIFO: type == S_IFIFO) }
        if info.st_size > 0 {
            return .sized(Int(info.st_size))
        }
        return Self.hasContent(path: path) ? .unsized(isFIFO: false) : .sized(0)
    }

    /// Whether a regular file that reports size 0 has content after all (as `/proc` files do).
    /// Reads at most one byte, without waiting: a file that would block counts as having content.
    private static func hasContent(path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return true }
        defer { close(descriptor) }
        var byte: UInt8 = 0
        return read(descriptor, &byte, 1) != 0
    }
}
