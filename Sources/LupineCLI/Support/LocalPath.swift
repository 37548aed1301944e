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

    /// `url`'s path as a message shows it: control characters (a line feed, a carriage return
    /// and a tab too: a
    /// name is one line), bidirectional overrides and bytes that are not UTF-8 become `.`, as
    /// text from the network does (``TerminalText``), so a name cannot rewrite the terminal.
    static func shown(_ url: URL) -> String {
        Self.shown(url.path)
    }

    /// A path as a message shows it (as the `URL` form does).
    static func shown(_ path: String) -> String {
        var shown = String.UnicodeScalarView()
        for scalar in TerminalText.sanitized(path).unicodeScalars {
            // By scalars: "\r\n" is one Character, which no Character comparison splits.
            shown.append(["\n", "\t", "\r"].contains(scalar) ? "." : scalar)
        }
        return String(shown)
    }
}
