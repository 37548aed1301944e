/// Why a file named as a request body (an upload from a file, a multipart file part) could not
/// be sent; the underlying error of ``TransportError/requestBodyFailed(underlying:)``.
public enum RequestBodyFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing is at `path`.
    case notFound(path: String)
    /// `path` names a directory.
    case isDirectory(path: String)
    /// The file at `path` exists but cannot be opened for reading.
    case notReadable(path: String, reason: String)
    /// Reading the file at `path` failed partway.
    case readFailed(path: String, reason: String)

    /// One plain sentence naming the file.
    public var description: String {
        switch self {
        case .notFound(let path):
            return "\(MessageText.oneLine(path)) does not exist"
        case .isDirectory(let path):
            return "\(MessageText.oneLine(path)) is a directory"
        case .notReadable(let path, let reason):
            return "\(MessageText.oneLine(path)) cannot be read: \(reason)"
        case .readFailed(let path, let reason):
            return "reading \(MessageText.oneLine(path)) failed: \(reason)"
        }
    }
}
