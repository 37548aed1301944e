import Foundation

/// Text from outside (a URL someone typed, a reason a server or a library gave) made fit for a
/// one-line error message: credentials hidden, control characters escaped, length bounded.
package enum MessageText {
    /// The most characters of outside text a message quotes.
    package static let maximumLength = 300

    /// `url` as a message shows it: a password in its user-info replaced by `***`, on one line.
    package static func url(_ url: URL) -> String {
        self.url(url.absoluteString)
    }

    /// `string`, meant as a URL, as a message shows it: a password in its user-info replaced by
    /// `***` (`http://u:***@host/`), a user-info without password (often a token) replaced whole
    /// (`http://***@host/`), on one line, at most ``maximumLength`` characters. A string
    /// that is not a URL at all has everything before its last `@` hidden, since it cannot be
    /// told where a password in it ends.
    package static func url(_ string: String) -> String {
        self.oneLine(self.redactingUserInfo(string))
    }

    /// `text` on one line: control and invisible formatting characters escaped (`\n`, `\u{202E}`),
    /// at most ``maximumLength`` characters.
    package static func oneLine(_ text: String) -> String {
        var line = ""
        var count = 0
        for scalar in text.unicodeScalars {
            guard count < self.maximumLength else {
                return line + "…"
            }
            count += 1
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator:
                // Line breaks, and invisible marks that reorder or hide text (bidi overrides).
                line += scalar.escaped(asASCII: true)
            default:
                line.unicodeScalars.append(scalar)
            }
        }
        return line
    }

    private static func redactingUserInfo(_ string: String) -> String {
        let start = string.range(of: "://")?.upperBound ?? string.startIndex
        let rest = string[start...]
        let authorityEnd = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
        if let at = rest[..<authorityEnd].lastIndex(of: "@") {
            let userInfo = rest[..<at]
            guard let colon = userInfo.firstIndex(of: ":") else {
                return String(string[..<start]) + "***" + String(string[at...])
            }
            return String(string[..<rest.index(after: colon)]) + "***" + String(string[at...])
        }
        if URL(string: string) == nil, let at = rest.lastIndex(of: "@") {
            return String(string[..<start]) + "***" + String(string[at...])
        }
        return string
    }
}
