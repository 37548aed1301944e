import Foundation
import Lupine
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A spinner on stderr while a request runs, for `lupine get` and `download`: a
/// ``NetworkActivityIndicator`` on the session shows it once the request has lasted its
/// activation delay (1 s), so a quick request never draws it. Only on a terminal: a pipe or
/// file on stderr never gets it.
///
/// It owns the last line of stderr while it is drawn: every stderr message erases it first (see
/// ``StandardError``) and it comes back with the next frame. Whatever else draws on the terminal
/// ends it for good first: a progress bar, and the first write to a standard output that is a
/// terminal (a body there may end in the middle of a line, where a frame would overwrite it).
final class ActivitySpinner: Sendable {
    /// The frames, in ASCII so that every terminal and locale shows them.
    static let frames: [Character] = ["|", "/", "-", "\\"]
    /// The longest label drawn, in characters.
    static let maximumLabelLength = 48
    static let frameInterval: Duration = .milliseconds(100)

    /// What is on stderr: whether a frame is drawn there now, and whether spinners are over for
    /// this process. Every stderr write holds its lock, so nothing lands inside a frame.
    private struct Screen {
        var drawn = false
        var finished = false
    }

    private struct Ticker {
        var task: Task<Void, Never>?
        /// Counts the tickers started, so a stopped one that is still running draws nothing.
        var generation: UInt64 = 0
    }

    private static let screen = NIOLockedValueBox(Screen())

    private let label: String
    private let ticker = NIOLockedValueBox(Ticker())
    private let started = ContinuousClock.now
    /// Kept so the spinner lives as long as the session reports to it.
    private let indicator: NetworkActivityIndicator

    private init(label: String, indicator: NetworkActivityIndicator) {
        self.label = label
        self.indicator = indicator
    }

    /// A spinner for `request` on `manager`'s tasks, when stderr is a terminal; `nil` otherwise.
    static func attach(to manager: SessionManager, for request: Request, stderrIsTerminal: Bool = isatty(STDERR_FILENO) == 1) -> ActivitySpinner? {
        guard stderrIsTerminal else { return nil }
        let indicator = NetworkActivityIndicator()
        let spinner = ActivitySpinner(label: Self.label(for: request), indicator: indicator)
        indicator.setNetworkingActivityAction { [weak spinner] visible in
            if visible { spinner?.start() } else { spinner?.stop() }
        }
        manager.eventMonitors.append(indicator)
        return spinner
    }

    /// `GET example.com:8080` in printable ASCII, one column a character (anything else, a
    /// control or a character a terminal may draw wide, shows as `.`), cut to ``maximumLabelLength``.
    static func label(for request: Request) -> String {
        let port = request.url.port.map { ":\($0)" } ?? ""
        let scalars = "\(request.method.rawValue) \(request.url.host ?? "")\(port)".unicodeScalars
            .map { (0x20..<0x7F).contains($0.value) ? $0 : "." }
        let label = String(String.UnicodeScalarView(scalars))
        return label.count > Self.maximumLabelLength ? String(label.prefix(Self.maximumLabelLength - 3)) + "..." : label
    }

    /// Frame `index` of the spinner for `label`, after `elapsed`: `\r| GET example.com  3s`, then
    /// erasing the rest of the line; cut to fit `columns` (the terminal's width, when known), as
    /// a line that wraps could not be erased.
    static func line(frame index: Int, label: String, elapsed: Duration, columns: Int?) -> String {
        var text = "\(Self.frames[index % Self.frames.count]) \(label)  \(elapsed.components.seconds)s"
        if let columns, columns > 0, text.count >= columns {
            text = String(text.prefix(columns - 1))
        }
        return "\r" + text + "\u{1B}[K"
    }

    /// The width of the terminal on stderr, when it says.
    private static var columns: Int? {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Runs `body` (the request), then ends `spinner` for good, also when `body` throws, so no
    /// frame comes after the command's last message.
    static func running<Value>(_ spinner: ActivitySpinner?, _ body: () async throws -> Value) async rethrows -> Value {
        defer { spinner?.finish() }
        return try await body()
    }

    /// Writes `text` to stderr, first erasing a frame drawn there.
    static func writeAbove(_ text: String) {
        Self.screen.withLockedValue { screen in
            Self.erase(&screen)
            Self.writeRaw(text)
        }
    }

    /// Erases the spinner; no spinner of this process draws again.
    static func finishAll() {
        Self.screen.withLockedValue { screen in
            screen.finished = true
            Self.erase(&screen)
        }
    }

    /// Erases the spinner and ends it for good (and any other of this process).
    func finish() {
        self.stop()
        Self.finishAll()
    }

    /// Draws a frame every ``frameInterval`` until the indicator hides or ``finish()``.
    private func start() {
        self.ticker.withLockedValue { ticker in
            guard ticker.task == nil else { return }
            ticker.generation &+= 1
            let generation = ticker.generation
            ticker.task = Task { [weak self] in
                var frame = 0
                while !Task.isCancelled, let self, self.draw(frame: frame, generation: generation) {
                    frame += 1
                    try? await Task.sleep(for: Self.frameInterval)
                }
            }
        }
    }

    /// Stops drawing and erases the frame: the indicator hid, the request ended.
    private func stop() {
        self.ticker.withLockedValue { ticker in
            ticker.task?.cancel()
            ticker.task = nil
        }
        Self.screen.withLockedValue { Self.erase(&$0) }
    }

    /// Draws frame `frame` unless the ticker of `generation` was stopped or spinners are over;
    /// whether it drew.
    private func draw(frame: Int, generation: UInt64) -> Bool {
        let line = Self.line(frame: frame, label: self.label, elapsed: ContinuousClock.now - self.started, columns: Self.columns)
        return Self.screen.withLockedValue { screen in
            let current = self.ticker.withLockedValue { $0.task != nil && $0.generation == generation }
            guard current, !screen.finished else { return false }
            Self.writeRaw(line)
            screen.drawn = true
            return true
        }
    }

    private static func erase(_ screen: inout Screen) {
        guard screen.drawn else { return }
        Self.writeRaw("\r\u{1B}[K")
        screen.drawn = false
    }

    private static func writeRaw(_ text: String) {
        try? StandardOutput.write(Array(text.utf8), to: STDERR_FILENO)
    }
}
