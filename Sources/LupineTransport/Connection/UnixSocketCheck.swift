#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a Unix domain socket's path cannot be connected to, found before a connection is tried,
/// in words a person can act on.
enum UnixSocketCheck {
    /// The longest path a socket address holds (`sun_path` less its terminating NUL).
    #if canImport(Darwin)
    static let maximumPathLength = 103
    #else
    static let maximumPathLength = 107
    #endif

    /// `nil` when `path` names a socket; otherwise what is wrong with it.
    static func problem(with path: String) -> String? {
        if path.isEmpty {
            return "the path is empty"
        }
        if path.utf8.count > Self.maximumPathLength {
            return "its path is \(path.utf8.count) bytes long, longer than the \(Self.maximumPathLength) a socket address holds"
        }
        if path.utf8.contains(0) {
            return "its path holds a NUL byte"
        }
        var status = stat()
        guard stat(path, &status) == 0 else {
            let code = errno
            switch code {
            case ENOENT: return "it does not exist"
            case EACCES: return "permission to reach it is denied"
            case ENOTDIR: return "a part of its path is not a directory"
            default: return String(cString: strerror(code))
            }
        }
        switch status.st_mode & S_IFMT {
        case S_IFSOCK: return nil
        case S_IFDIR: return "it is a directory, not a socket"
        default: return "it is not a socket"
        }
    }
}
