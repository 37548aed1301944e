import Foundation

/// The header fields an ``HTTPRequestSerializer`` starts with, built as AFNetworking builds them.
enum DefaultRequestHeaders {
    /// How many preferred languages `Accept-Language` lists: q falls from 1 to 0.5 in steps of 0.1.
    static let maximumLanguageCount = 6

    /// `Accept-Language` and `User-Agent` for this process.
    static var current: HTTPHeaders {
        [
            "Accept-Language": acceptLanguage(preferredLanguages: preferredLanguages),
            "User-Agent": userAgent(operatingSystem: operatingSystemName, version: operatingSystemVersion),
        ]
    }

    /// `"en;q=1, fr;q=0.9, …"` for the first six of `preferredLanguages`.
    static func acceptLanguage(preferredLanguages: [String]) -> String {
        preferredLanguages
            .prefix(maximumLanguageCount)
            .enumerated()
            .map { index, language in
                let tenths = 10 - index
                return "\(language);q=\(tenths == 10 ? "1" : "0.\(tenths)")"
            }
            .joined(separator: ", ")
    }

    /// `"Lupine/<version> (<operating system> <version>)"`.
    static func userAgent(operatingSystem: String, version: String) -> String {
        "Lupine/\(LupineVersion.current) (\(operatingSystem) \(version))"
    }

    /// The user's preferred languages; where the system names none (common on Linux), the
    /// language of the process locale, and English when even that is unknown.
    static var preferredLanguages: [String] {
        let preferred = Locale.preferredLanguages.filter { !$0.isEmpty }
        if !preferred.isEmpty {
            return preferred
        }
        return [Locale.current.language.languageCode?.identifier ?? "en"]
    }

    /// The operating system's name as a person would write it.
    static var operatingSystemName: String {
        #if os(Linux)
        "Linux"
        #elseif os(macOS)
        "macOS"
        #elseif os(iOS)
        "iOS"
        #elseif os(tvOS)
        "tvOS"
        #elseif os(watchOS)
        "watchOS"
        #elseif os(visionOS)
        "visionOS"
        #elseif os(Windows)
        "Windows"
        #else
        "Unknown"
        #endif
    }

    /// The operating system's version as `major.minor.patch` (the kernel's on Linux).
    static var operatingSystemVersion: String {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        return "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
    }
}
