import Logging
import NIOConcurrencyHelpers

/// A log handler that keeps every line it is given, message and metadata rendered as text.
struct CapturingLogHandler: LogHandler {
    /// The captured lines, shared by every copy of the handler.
    final class Lines: Sendable {
        private let lines = NIOLockedValueBox<[String]>([])

        func append(_ line: String) {
            self.lines.withLockedValue { $0.append(line) }
        }

        var all: [String] { self.lines.withLockedValue { $0 } }
    }

    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level = .trace

    func log(event: LogEvent) {
        let metadata = self.metadata.merging(event.metadata ?? [:]) { _, new in new }
        self.lines.append("\(event.level) \(event.message) \(metadata)")
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    /// A logger at `trace` level writing into `lines`.
    static func logger(into lines: Lines) -> Logger {
        Logger(label: "lupine.test") { _ in CapturingLogHandler(lines: lines) }
    }
}
