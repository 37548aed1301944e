import Foundation

extension LupineError {
    /// Why a cookie file could not be read or written.
    public enum CookieFileFailureReason: Sendable {
        /// The path names something other than a regular file, which is neither read nor
        /// replaced; `reason` says what, as a clause ("is a directory").
        case notARegularFile(URL, reason: String)
        /// The file could not be read (permissions, an I/O error); `reason` is the system's.
        case readFailed(URL, reason: String)
        /// The jar could not be written (a missing or read-only folder, a full disk); the file
        /// that was there, if any, is unchanged.
        case writeFailed(URL, reason: String)
    }

    /// The sentence for a cookie file failure.
    static func describe(_ reason: CookieFileFailureReason) -> String {
        switch reason {
        case .notARegularFile(let url, let why):
            return "the cookie file \(MessageText.oneLine(url.path)) \(MessageText.oneLine(why)); give the path of a regular file"
        case .readFailed(let url, let why):
            return "the cookie file \(MessageText.oneLine(url.path)) could not be read: \(MessageText.oneLine(why))"
        case .writeFailed(let url, let why):
            return "the cookies could not be saved to \(MessageText.oneLine(url.path)) (\(MessageText.oneLine(why))); the file there, if any, is unchanged"
        }
    }
}
