import Foundation

/// File paths typed by the user, as file URLs. Nothing here expands `~`: the shell already did
/// what the user meant, and a `~` that reaches the program (quoted, or from a URL) is a name.
/// Foundation's `URL(fileURLWithPath:)` expands a leading `~`, so a relative path is made
/// absolute against the working directory before it gets there.
enum LocalPath {
    /// The file URL of `path`, relative paths taken from the working directory.
    static func url(_ path: String) -> URL {
        if path.hasPrefix("/") {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appending(path: path)
    }
}
