import Foundation

extension Error {
    /// The most specific description Foundation gives of a parsing error: its debug
    /// description (which names the offending character or line) when present, else its
    /// localized description.
    var debugReason: String {
        let error = self as NSError
        return error.userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
    }
}
