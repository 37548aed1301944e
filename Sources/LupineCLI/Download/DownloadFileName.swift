import Foundation

/// The file name `lupine download` gives a body when no `-o` says where it goes: the last
/// segment of the URL's path, after dot-segment removal (RFC 3986 §5.2.4) and percent-decoding.
///
/// The name is always one plain name for a file inside the working directory: a `/`, `\`, NUL
/// or other control character in it becomes `_`; `.`, `..` and an empty name are never
/// returned (the path then has no name, and the user is asked for `-o`); a name longer than a
/// file system takes (255 bytes) is cut at a character boundary, keeping its extension when it
/// is short. A `~` is an ordinary character: nothing expands it.
enum DownloadFileName {
    /// The longest name, in UTF-8 bytes, that common file systems accept.
    static let maximumLength = 255

    /// The name for `url`'s body, or `nil` when its path names no file (`/`, `/dir/`, `/a/..`).
    static func name(for url: URL) -> String? {
        guard let last = Self.lastSegment(of: url.path(percentEncoded: true)) else { return nil }
        let decoded = last.removingPercentEncoding ?? last
        let name = Self.shortened(String(String.UnicodeScalarView(decoded.unicodeScalars.map(Self.safe))))
        return name.isEmpty || name == "." || name == ".." ? nil : name
    }

    /// The last segment of `path` once `.` and `..` segments (also percent-encoded) are resolved;
    /// `nil` when the resolved path ends in `/`.
    private static func lastSegment(of path: String) -> String? {
        var segments: [Substring] = []
        var endsInSlash = true
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            switch segment.removingPercentEncoding ?? String(segment) {
            case "", ".":
                endsInSlash = true
            case "..":
                _ = segments.popLast()
                endsInSlash = true
            default:
                segments.append(segment)
                endsInSlash = false
            }
        }
        return endsInSlash ? nil : segments.last.map(String.init)
    }

    /// `scalar`, or `_` for a path separator or control character.
    private static func safe(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2F, 0x5C: return "_"
        default: return scalar
        }
    }

    /// `name` cut to at most ``maximumLength`` bytes, at a character boundary, keeping an
    /// extension of up to 16 bytes.
    private static func shortened(_ name: String) -> String {
        guard name.utf8.count > Self.maximumLength else { return name }
        let dot = name.lastIndex(of: ".")
        let fileExtension = dot.map { String(name[$0...]) }.flatMap { $0.utf8.count <= 16 ? $0 : nil } ?? ""
        var stem = fileExtension.isEmpty ? Substring(name) : name[..<(dot ?? name.endIndex)]
        while stem.utf8.count + fileExtension.utf8.count > Self.maximumLength {
            stem = stem.dropLast()
        }
        return String(stem) + fileExtension
    }
}
