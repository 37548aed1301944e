import Foundation

/// Reads the Netscape cookie-file format curl's `-b` and `-c` use, fed in pieces of any size:
/// one cookie a line, seven TAB-separated fields (domain, whether subdomains match, path, secure,
/// expiry in seconds since 1970 with 0 for a session cookie, name, value; six when the value is
/// empty), `#` comments, and an `#HttpOnly_` prefix on the domain of an HttpOnly cookie.
///
/// Lines end in LF or CRLF. A line that is too long, not UTF-8, of the wrong shape, or a cookie
/// that could not be sent (a public-suffix or IP-address domain for subdomains, control
/// characters) is skipped with a warning naming its line number, never its content (cookies are
/// credentials). Expired cookies are skipped silently, as curl does. What it keeps goes into a
/// ``CookieJar`` with the storage's limits, so neither a huge file nor a flood of warnings grows
/// without bound (a file over the limits keeps its last lines).
struct NetscapeCookieReader {
    /// The longest line read; a longer one is skipped without being held.
    static let maximumLineBytes = 16_384
    /// The most warnings kept; the rest are counted in one last line.
    static let maximumWarnings = 100

    private(set) var jar: CookieJar
    private let now: Date
    private var line: [UInt8] = []
    private var lineNumber = 0
    private var lineIsTooLong = false
    private var warningLines: [String] = []
    private var unlistedWarnings = 0

    init(into jar: CookieJar, now: Date) {
        self.jar = jar
        self.now = now
    }

    /// The warnings so far, at most ``maximumWarnings`` and a count of the others.
    var warnings: [String] {
        self.warningLines + (self.unlistedWarnings > 0 ? ["\(self.unlistedWarnings) more lines were skipped"] : [])
    }

    /// Reads the next `bytes` of the file.
    mutating func feed(_ bytes: some Collection<UInt8>) {
        var rest = bytes[...]
        while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
            self.append(rest[..<newline])
            self.endLine()
            rest = rest[rest.index(after: newline)...]
        }
        self.append(rest)
    }

    /// Reads the last line, which needs no newline.
    mutating func finish() {
        if !self.line.isEmpty || self.lineIsTooLong {
            self.endLine()
        }
    }

    private mutating func append(_ bytes: some Collection<UInt8>) {
        guard !self.lineIsTooLong else { return }
        if self.line.count + bytes.count > Self.maximumLineBytes {
            self.line = []
            self.lineIsTooLong = true
        } else {
            self.line.append(contentsOf: bytes)
        }
    }

    private mutating func endLine() {
        self.lineNumber += 1
        defer {
            self.line.removeAll(keepingCapacity: true)
            self.lineIsTooLong = false
        }
        if self.lineIsTooLong {
            return self.warn("is longer than \(Self.maximumLineBytes) bytes")
        }
        if self.line.last == UInt8(ascii: "\r") {
            self.line.removeLast()
        }
        guard let text = String(validating: self.line, as: UTF8.self) else {
            return self.warn("is not UTF-8 text")
        }
        switch Self.cookie(in: text, now: self.now) {
        case .cookie(let cookie):
            self.jar.storeOlder(cookie, now: self.now)
        case .nothing:
            break
        case .invalid(let reason):
            self.warn(reason)
        }
    }

    private mutating func warn(_ reason: String) {
        if self.warningLines.count < Self.maximumWarnings {
            self.warningLines.append("line \(self.lineNumber) \(reason); skipped")
        } else {
            self.unlistedWarnings += 1
        }
    }

    /// What one line holds.
    private enum Line {
        case cookie(Cookie)
        /// A comment, a blank line or an expired cookie.
        case nothing
        /// Something else; the reason reads after "line N".
        case invalid(String)
    }

    private static func cookie(in text: String, now: Date) -> Line {
        var text = Substring(text)
        let isHTTPOnly = text.hasPrefix("#HttpOnly_")
        if isHTTPOnly {
            text = text.dropFirst("#HttpOnly_".count)
        } else if text.hasPrefix("#") || text.allSatisfy({ $0 == " " || $0 == "\t" }) {
            return .nothing
        }
        let fields = text.split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count == 7 || fields.count == 6 else {
            return .invalid("has \(fields.count) TAB-separated fields instead of 7")
        }
        guard let matchesSubdomains = Self.flag(fields[1]), let isSecure = Self.flag(fields[3]) else {
            return .invalid("has a subdomain or secure field that is neither TRUE nor FALSE")
        }
        guard let expiry = Self.expiry(fields[4]) else {
            return .invalid("has an expiry that is not a number of seconds")
        }
        if let expiry, expiry <= now {
            return .nothing
        }
        let cookie = Cookie(
            name: String(fields[5]), value: fields.count == 7 ? String(fields[6]) : "", domain: String(fields[0]),
            path: String(fields[2]), expiresAt: expiry, isHostOnly: !matchesSubdomains, isSecure: isSecure,
            isHTTPOnly: isHTTPOnly, createdAt: now
        )
        guard CookieAdmission.isWellFormed(cookie) else {
            return .invalid("is not a cookie that can be sent (an empty name, a malformed domain, a path not starting with /, or a control character)")
        }
        if matchesSubdomains && (PublicSuffixes.contains(cookie.domain) || CookieDomain.isIPAddress(cookie.domain)) {
            return .invalid("sets a cookie for every site under a public suffix or for an IP address's subdomains")
        }
        return .cookie(cookie)
    }

    private static func flag(_ field: Substring) -> Bool? {
        switch field.uppercased() {
        case "TRUE": return true
        case "FALSE": return false
        default: return nil
        }
    }

    /// `nil` inside for a session cookie (0); the outer `nil` when the field is not digits.
    private static func expiry(_ field: Substring) -> Date?? {
        guard !field.isEmpty, field.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        guard let seconds = Int(field), seconds < Int(Date.distantFuture.timeIntervalSince1970) else {
            return .some(.distantFuture)
        }
        return .some(seconds == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
