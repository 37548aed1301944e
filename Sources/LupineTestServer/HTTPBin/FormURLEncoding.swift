import Foundation

/// Parsing of `application/x-www-form-urlencoded` text, used for query strings and form bodies.
enum FormURLEncoding {
    /// Splits `text` into decoded name/value pairs, keeping their order.
    ///
    /// `+` decodes to a space and invalid percent escapes are kept verbatim, as browsers and
    /// httpbin do. A name without `=` gets an empty value.
    static func parse(_ text: some StringProtocol) -> [(name: String, value: String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0])
            let value = parts.count > 1 ? decode(parts[1]) : ""
            return (name, value)
        }
    }

    /// The value of the first pair named `name` in `text`.
    static func firstValue(named name: String, in text: String?) -> String? {
        guard let text else { return nil }
        return parse(text).first { $0.name == name }?.value
    }

    private static func decode(_ component: some StringProtocol) -> String {
        let spaced = component.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
