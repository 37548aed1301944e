import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `lupine download` writes into, decided before anything is sent, as curl decides it: a
/// symbolic link is followed to the file it names, a directory is an error (nothing in it is
/// touched), a device, FIFO or socket is written into as the body streams (never replaced, never
/// resumed), and a regular file (or none yet) gets the body in place.
enum DownloadTarget: Equatable {
    /// A regular file, or a path where none exists yet (`exists` false).
    case file(URL, exists: Bool)
    /// A device, FIFO or socket.
    case stream(URL)

    /// The target `path` names.
    ///
    /// - Throws: ``DownloadTargetError`` for a directory or a link to nothing.
    static func resolve(_ path: URL) throws(DownloadTargetError) -> DownloadTarget {
        var info = stat()
        var target = path
        if lstat(path.path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            guard let resolved = realpath(path.path, nil) else {
                throw DownloadTargetError(subject: path.path, problem: "is a symbolic link to nothing")
            }
            target = URL(fileURLWithPath: String(cString: resolved))
            free(resolved)
        }
        guard stat(target.path, &info) == 0 else {
            return .file(target, exists: false)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file(target, exists: true)
        case S_IFDIR: throw DownloadTargetError(subject: path.path, problem: "is a directory; name a file inside it with -o")
        default: return .stream(target)
        }
    }
}

/// A download target that cannot be written.
struct DownloadTargetError: Error, CustomStringConvertible {
    /// What is wrong: a path, or the URL's path.
    let subject: String
    let problem: String

    var description: String { "\(self.subject) \(self.problem)" }
}
