import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `lupine download` writes into, decided before anything is sent, as curl decides it: a
/// symbolic link is followed to the file it names, a directory is an error (nothing in it is
/// touched), a device, FIFO or socket is written into as the body streams (never replaced, never
/// resumed), and a regular file (or none yet) gets the body in place. `-o -` is standard output.
enum DownloadTarget: Equatable {
    /// A regular file, or a path where none exists yet (`exists` false).
    case file(URL, exists: Bool)
    /// A device, FIFO or socket.
    case stream(URL)
    /// Standard output (`-o -`).
    case standardOutput

    /// The target as a person names it.
    var name: String {
        switch self {
        case .file(let url, _), .stream(let url): return LocalPath.shown(url)
        case .standardOutput: return "standard output"
        }
    }

    /// The target `path` names.
    ///
    /// A path that ends with `/` names a directory whatever is there, as it does for `open(2)`:
    /// `-o a/` is never the file `a`.
    ///
    /// - Throws: ``DownloadTargetError`` for a directory or a link to nothing.
    static func resolve(_ path: URL) throws(DownloadTargetError) -> DownloadTarget {
        var info = stat()
        let isDirectory = "is a directory; name a file inside it with -o"
        if path.hasDirectoryPath {
            let problem = stat(path.path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR ? isDirectory : "ends with /, so it names a directory; name a file with -o"
            throw DownloadTargetError(subject: path.path.hasSuffix("/") ? path.path : path.path + "/", problem: problem)
        }
        var target = path
        if lstat(path.path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            guard let resolved = realpath(path.path, nil) else {
                // `/dev/stdout` or `/dev/fd/N` on a pipe: a link to no path, but to an open pipe.
                if stat(path.path, &info) == 0, info.st_mode & S_IFMT != S_IFDIR, info.st_mode & S_IFMT != S_IFREG {
                    return .stream(path)
                }
                let problem = errno == ENOENT ? "is a symbolic link to nothing" : "is a symbolic link that cannot be followed: \(String(cString: strerror(errno)))"
                throw DownloadTargetError(subject: path.path, problem: problem)
            }
            target = URL(fileURLWithPath: String(cString: resolved))
            free(resolved)
        }
        guard stat(target.path, &info) == 0 else {
            return .file(target, exists: false)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file(target, exists: true)
        case S_IFDIR: throw DownloadTargetError(subject: path.path, problem: isDirectory)
        default: return .stream(target)
        }
    }
}

/// A download target that cannot be written.
struct DownloadTargetError: Error, CustomStringConvertible {
    /// What is wrong: a path, or the URL's path.
    let subject: String
    let problem: String

    var description: String { "\(LocalPath.shown(self.subject)) \(self.problem)" }
}
