import Foundation
import Lupine
import NIOConcurrencyHelpers

/// Where each part of an exchange goes. `--print` chooses parts for standard output (by default
/// the response head and body on a terminal, the body alone otherwise); `-v` adds the request and
/// response heads on standard error, so the body on standard output stays exact. Heads are shown
/// through ``TerminalText``: a header from a hostile server cannot drive the terminal.
struct ExchangeOutput: Sendable {
    /// Whether standard output is a terminal.
    let terminal: Bool
    private let selection: Set<Character>
    private let verbose: Bool
    /// Whether the transport adds `Accept-Encoding` to a request without one.
    private let asksForEncodings: Bool
    /// The first write of an attempt's request that failed: the event monitor that shows it
    /// cannot throw, so the exchange asks afterwards (``requestWriteFailure``).
    private let attemptFailure = NIOLockedValueBox<OutputError?>(nil)

    /// Why an attempt's request could not be written (`--print H` onto a closed output), if so.
    var requestWriteFailure: OutputError? { self.attemptFailure.withLockedValue { $0 } }

    init(options: RequestOptions, terminal: Bool) {
        self.terminal = terminal
        // With -v the heads are on stderr already; a terminal would show them twice.
        self.selection = Set(options.printSelection ?? (terminal && !options.verbose ? "hb" : "b"))
        self.verbose = options.verbose
        self.asksForEncodings = !options.removesAcceptEncoding
    }

    /// For `download`, whose body goes to a file: only `-v`'s heads on standard error.
    init(headsOnStandardErrorIf verbose: Bool) {
        self.terminal = false
        self.selection = []
        self.verbose = verbose
        self.asksForEncodings = true
    }

    /// Whether the response body goes to standard output.
    var showsBody: Bool { self.selection.contains("b") }

    /// Shows the request's head (`H`) and body (`B`) as selected, and its head on stderr with `-v`.
    func show(_ request: Request) throws {
        try self.show(head: ExchangeFormatter.requestHead(request, asksForEncodings: self.asksForEncodings), selected: self.selection.contains("H"))
        if self.selection.contains("B"), case .bytes(let body) = request.body, !body.isEmpty {
            try StandardOutput.write(body)
            try StandardOutput.write(Array("\n\n".utf8))
        }
    }

    /// Shows each request as the session hands it to the transport, with what the session added
    /// (a resumed download's `Range` and `If-Range`, a revalidation's conditions, the jar's
    /// cookies), as `curl -v` shows the request it sends: once per retry, per redirect followed
    /// and per answer to a challenge. A response from the cache, or a redirect that cannot be
    /// followed, sends nothing, so shows no request.
    /// A request that cannot be written stops the task (``requestWriteFailure``).
    func showRequests(of manager: SessionManager) {
        manager.eventMonitors.append(AttemptNotice(output: self))
    }

    /// Shows each redirect's head, as `curl -v` does; the request sent next shows as it is sent
    /// (``showRequests(of:)``).
    func showRedirects(of manager: SessionManager) {
        let previous = manager.hooks.willPerformRedirection
        manager.hooks.willPerformRedirection = { task, head, next in
            try? self.show(head)
            return previous.map { $0(task, head, next) } ?? next
        }
    }

    /// Shows the response head (`h`) as selected, and on stderr with `-v`.
    func show(_ head: ResponseHead) throws {
        try self.show(head: ExchangeFormatter.responseHead(head), selected: self.selection.contains("h"))
    }

    /// Keeps the first failure of an attempt's request to write.
    fileprivate func noteFailure(_ error: any Error) {
        guard let failure = error as? OutputError else { return }
        self.attemptFailure.withLockedValue { $0 = $0 ?? failure }
    }

    /// Writes a head, made safe for a terminal, to stderr with `-v` and to stdout when `selected`.
    private func show(head: String, selected: Bool) throws {
        let text = TerminalText.sanitized(head) + "\n"
        if self.verbose {
            StandardError.write(text)
        }
        if selected {
            try StandardOutput.write(Array(text.utf8))
        }
    }
}

/// Hands each request as it is sent to ``ExchangeOutput/show(_:)-(Request)``.
private struct AttemptNotice: EventMonitor {
    let output: ExchangeOutput

    func task(_ task: SessionTask, willSend request: Request) {
        do {
            try self.output.show(request)
        } catch {
            self.output.noteFailure(error)
            task.cancel()
        }
    }
}
