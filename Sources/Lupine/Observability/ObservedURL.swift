import Foundation

/// A request's URL as a span carries it (`url.full`): without user name and password, as the
/// session's log shows it (`RequestLogMetadata.loggable(_:)`), and with every query value
/// replaced by `REDACTED` (a query often carries a token, a signature or an API key; its names
/// stay, as OpenTelemetry's HTTP conventions redact values only). The fragment, never sent, is left out.
enum ObservedURL {
    /// What stands in for each query value.
    static let redactedValue = "REDACTED"

    static func full(_ url: URL) -> String {
        let loggable = RequestLogMetadata.loggable(url)
        guard var components = URLComponents(string: loggable) else { return loggable }
        components.fragment = nil
        if let items = components.percentEncodedQueryItems {
            components.percentEncodedQueryItems = items.map { item in
                URLQueryItem(name: item.name, value: item.value == nil ? nil : Self.redactedValue)
            }
        }
        return components.string ?? loggable
    }
}
