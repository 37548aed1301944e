import Foundation
import NIOConcurrencyHelpers

/// A one-line progress bar on stderr for a transfer: bytes, rate and time left, redrawn at most
/// ten times a second.
final class ProgressBar: Sendable {
    private struct State {
        var started = ContinuousClock.now
        var lastDrawn: ContinuousClock.Instant?
        /// The count at the first reading: bytes a resumed download already had don't count toward the rate.
        var startingCount: Int64?
    }

    private let state = NIOLockedValueBox(State())

    /// Redraws the bar for `progress` (not more often than every 100 ms).
    func update(_ progress: Progress) {
        let completed = progress.completedUnitCount
        let total = progress.totalUnitCount
        let now = ContinuousClock.now
        let line: String? = self.state.withLockedValue { state in
            let startingCount = state.startingCount ?? completed
            state.startingCount = startingCount
            if let last = state.lastDrawn, now - last < .milliseconds(100), completed != total {
                return nil
            }
            state.lastDrawn = now
            let elapsed = (now - state.started).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            let rate = seconds > 0 ? Double(completed - startingCount) / seconds : 0
            return Self.line(completed: completed, total: total > 0 ? total : nil, bytesPerSecond: rate)
        }
        if let line {
            StandardError.write("\r" + line + "\u{1B}[K")
        }
    }

    /// Ends the bar's line, when one was drawn (a download stopped before its body leaves no
    /// empty line before the message saying so).
    func finish() {
        guard self.state.withLockedValue({ $0.lastDrawn != nil }) else { return }
        StandardError.write("\n")
    }

    /// `[#######-------------]  35%  3.5 MiB of 10.0 MiB  1.2 MiB/s  ETA 6s`, or without a total
    /// `3.5 MiB  1.2 MiB/s`.
    static func line(completed: Int64, total: Int64?, bytesPerSecond: Double) -> String {
        let rate = "\(Self.bytes(bytesPerSecond))/s"
        guard let total, total > 0 else {
            return "\(Self.bytes(Double(completed)))  \(rate)"
        }
        let fraction = min(1, max(0, Double(completed) / Double(total)))
        let width = 20
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let percent = String(format: "%3d%%", Int(fraction * 100))
        let remaining = bytesPerSecond > 0 ? "ETA \(Self.duration(Double(total - completed) / bytesPerSecond))" : "ETA --"
        return "[\(bar)] \(percent)  \(Self.bytes(Double(completed))) of \(Self.bytes(Double(total)))  \(rate)  \(remaining)"
    }

    /// `512 B`, `3.5 KiB`, `12.0 MiB`, `1.1 GiB`.
    static func bytes(_ count: Double) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = count
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(Int(value)) B" : "\(String(format: "%.1f", value)) \(units[unit])"
    }

    /// `42s`, `3m05s`, `2h07m`.
    static func duration(_ seconds: Double) -> String {
        // Beyond about 30 years (a huge Content-Length trickling in) there is nothing to show.
        guard seconds.isFinite, seconds >= 0, seconds < 1e9 else { return "--" }
        let whole = Int(seconds.rounded(.up))
        if whole < 60 { return "\(whole)s" }
        if whole < 3600 { return String(format: "%dm%02ds", whole / 60, whole % 60) }
        return String(format: "%dh%02dm", whole / 3600, (whole % 3600) / 60)
    }
}
