import Foundation

/// The wait a response's `Retry-After` field asks for (RFC 9110 §10.2.3).
///
/// Both forms are read: delay-seconds (one or more ASCII digits, `120`) and an HTTP-date in any of
/// the three forms a recipient must accept (`HTTPDate`). A date in the past asks for no wait; a
/// number of seconds too large for an integer asks for the longest wait there is (the grammar has
/// no bound: it is the server's "not any time soon"; curl 7.88 reads it as no wait at all). A
/// field that is absent, repeated with different values, or absurd (negative, a fraction, words,
/// an unknown date form) asks for nothing, so the caller falls back to its own delay.
package enum RetryAfter {
    /// The wait `headers` ask for, at most `maximum`, or `nil` when they ask for none usable;
    /// `now` is the instant an HTTP-date is measured from.
    package static func delay(in headers: HTTPHeaders, now: Date, maximum: Duration) -> Duration? {
        let values = headers["Retry-After"].map { $0.trimmingCharacters(in: Self.whitespace) }
        guard let value = values.first, values.allSatisfy({ $0 == value }) else { return nil }
        let maximumSeconds = Self.seconds(of: max(maximum, .zero))
        let seconds: Double
        if let delaySeconds = Self.delaySeconds(value) {
            seconds = Double(delaySeconds)
        } else if let date = HTTPDate.parse(value, now: now) {
            seconds = max(0, date.timeIntervalSince(now))
        } else {
            return nil
        }
        return seconds >= maximumSeconds ? max(maximum, .zero) : .seconds(seconds)
    }

    /// `value` as delay-seconds: only ASCII digits, at least one; `Int.max` when there are more
    /// than an `Int` holds.
    private static func delaySeconds(_ value: String) -> Int? {
        guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int(value) ?? Int.max
    }

    /// A duration as a number of seconds.
    package static func seconds(of duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The optional whitespace around a field value (RFC 9110 §5.6.3).
    private static let whitespace = CharacterSet(charactersIn: " \t")
}
