import Foundation

/// The process's resident set size and its peak, from `/proc/self/status`, and a way to reset
/// the peak to the current size (writing 5 to `/proc/self/clear_refs`) so each transfer is
/// measured against the RSS just before it.
enum PeakMemory {
    static func reset() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// `VmRSS` in bytes (the RSS now), or 0 where `/proc` is not available.
    static func residentBytes() -> Int {
        Self.statusField("VmRSS:")
    }

    /// `RssFile` in bytes (the part of the RSS that maps files: code and read-only data), or 0
    /// where `/proc` is not available.
    static func fileBackedResidentBytes() -> Int {
        Self.statusField("RssFile:")
    }

    /// `VmHWM` in bytes (the peak RSS since the last reset), or 0 where `/proc` is not available.
    static func peakResidentBytes() -> Int {
        Self.statusField("VmHWM:")
    }

    private static func statusField(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
            return kilobytes * 1024
        }
        return 0
    }
}
