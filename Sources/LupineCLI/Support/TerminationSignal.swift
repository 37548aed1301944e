import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// The signals that ask a command to stop (SIGINT from Ctrl-C, SIGTERM), taken over so the
/// command can stop cleanly instead of dying with its work half-written.
enum TerminationSignal {
    /// A takeover of SIGINT and SIGTERM, in force until ``stop()``.
    ///
    /// `@unchecked Sendable`: `sources` is set once in `init` and only cancelled afterwards
    /// (dispatch sources are thread-safe); the received signal lives in a lock box.
    final class Watch: @unchecked Sendable {
        private let sources: [any DispatchSourceSignal]
        private let received = NIOLockedValueBox<Int32?>(nil)

        fileprivate init(_ handler: @escaping @Sendable (Int32) -> Void) {
            var sources: [any DispatchSourceSignal] = []
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                sources.append(source)
            }
            self.sources = sources
            for source in sources {
                let number = Int32(source.handle)
                source.setEventHandler { [received] in
                    received.withLockedValue { $0 = $0 ?? number }
                    // A second Ctrl-C ends the process at once, should the clean stop hang
                    // (a write blocked on a FIFO nobody reads).
                    Self.restoreDefaultActions()
                    handler(number)
                }
                source.resume()
            }
        }

        /// The first signal received, if any.
        var receivedSignal: Int32? { self.received.withLockedValue { $0 } }

        /// Ends the takeover: the signals' default actions are back.
        func stop() {
            for source in self.sources {
                source.cancel()
            }
            Self.restoreDefaultActions()
        }

        private static func restoreDefaultActions() {
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
    }

    /// Calls `handler` with the signal's number on each SIGINT or SIGTERM, instead of the
    /// default termination, until the watch is stopped.
    static func watch(_ handler: @escaping @Sendable (Int32) -> Void) -> Watch {
        Watch(handler)
    }

    /// Suspends until the process receives SIGINT or SIGTERM.
    static func wait() async {
        let (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
        let watch = Self.watch { continuation.yield($0) }
        var iterator = signals.makeAsyncIterator()
        _ = await iterator.next()
        watch.stop()
    }

    /// The exit status a shell gives a command killed by `signal` (128 + its number), which a
    /// command that stopped cleanly on it exits with.
    static func exitStatus(for signal: Int32) -> Int32 { 128 + signal }

    /// `SIGINT` or `SIGTERM`.
    static func name(of signal: Int32) -> String { signal == SIGINT ? "SIGINT" : "SIGTERM" }
}
