import Dispatch
import Foundation

/// Waiting for the signals that ask a long-running command to stop.
enum TerminationSignal {
    /// Suspends until the process receives SIGINT or SIGTERM.
    ///
    /// The signals' default actions are disabled for the rest of the process, so the caller can
    /// shut down cleanly.
    static func wait() async {
        let (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        var iterator = signals.makeAsyncIterator()
        _ = await iterator.next()
        for source in sources {
            source.cancel()
        }
    }
}
