import Foundation

/// The process's peak resident set size, from `/proc/self/status`, and a way to reset it
/// (writing 5 to `/proc/self/clear_refs`) so each client is measured on its own.
enum PeakMemory {
    static func reset() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// `VmHWM` in bytes, or 0 where `/proc` is not available.
    static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
            return kilobytes * 1024
        }
        return 0
    }
}
