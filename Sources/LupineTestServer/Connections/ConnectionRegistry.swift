import NIOCore
import NIOConcurrencyHelpers

/// Tracks every connection accepted by the test server's listeners.
///
/// Each accepted channel gets a per-server increasing identifier (sent back to clients as
/// `X-Lupine-Connection-ID`), is counted in the ``ConnectionStatistics``, and is remembered until it
/// closes so that ``closeAll()`` can tear down stalled connections when the server stops. A channel
/// accepted while `maximumOpen` connections are open is closed at once.
final class ConnectionRegistry: Sendable {
    private struct Entry {
        let identifier: Int
        let channel: any Channel
        var openStreams = 0
    }

    private struct State {
        var nextIdentifier = 1
        var entries: [ObjectIdentifier: Entry] = [:]
        var statistics = ConnectionStatistics()
        var isClosed = false
    }

    private let state = NIOLockedValueBox(State())
    private let maximumOpen: Int

    init(maximumOpen: Int) {
        self.maximumOpen = maximumOpen
    }

    /// Registers a freshly accepted channel and returns its connection identifier.
    ///
    /// A channel accepted after ``closeAll()``, or while `maximumOpen` connections are open, is
    /// closed straight away.
    func register(_ channel: any Channel) -> Int {
        let (identifier, closesNow) = state.withLockedValue { state in
            let identifier = state.nextIdentifier
            guard state.statistics.open < maximumOpen else {
                state.statistics.refused += 1
                return (identifier, true)
            }
            state.nextIdentifier += 1
            state.entries[ObjectIdentifier(channel)] = Entry(identifier: identifier, channel: channel)
            state.statistics.accepted += 1
            state.statistics.open += 1
            state.statistics.peakOpen = max(state.statistics.peakOpen, state.statistics.open)
            return (identifier, state.isClosed)
        }
        channel.closeFuture.whenComplete { _ in
            self.unregister(channel)
        }
        if closesNow {
            channel.close(promise: nil)
        }
        return identifier
    }

    /// The identifier assigned to `channel` when it was accepted, if it is still open.
    func connectionIdentifier(of channel: any Channel) -> Int? {
        state.withLockedValue { $0.entries[ObjectIdentifier(channel)]?.identifier }
    }

    /// A snapshot of the connection counts.
    var statistics: ConnectionStatistics {
        state.withLockedValue { $0.statistics }
    }

    /// Restarts `accepted` from zero and `peakOpen` from the connections open now.
    func resetStatistics() {
        state.withLockedValue { state in
            state.statistics.accepted = 0
            state.statistics.peakOpen = state.statistics.open
        }
    }

    /// Closes every open connection and any connection registered from now on.
    func closeAll() async {
        let channels = state.withLockedValue { state in
            state.isClosed = true
            return state.entries.values.map(\.channel)
        }
        for channel in channels {
            channel.close(promise: nil)
        }
        for channel in channels {
            try? await channel.closeFuture.get()
        }
    }

    /// Counts an HTTP/2 stream opened on `connection` (on listeners that count streams).
    func streamOpened(on connection: any Channel) {
        state.withLockedValue { state in
            guard let open = state.entries[ObjectIdentifier(connection)]?.openStreams else { return }
            state.entries[ObjectIdentifier(connection)]?.openStreams = open + 1
            state.statistics.peakOpenStreams = max(state.statistics.peakOpenStreams, open + 1)
        }
    }

    /// Counts an HTTP/2 stream of `connection` closed.
    func streamClosed(on connection: any Channel) {
        state.withLockedValue { state in
            state.entries[ObjectIdentifier(connection)]?.openStreams -= 1
        }
    }

    private func unregister(_ channel: any Channel) {
        state.withLockedValue { state in
            if state.entries.removeValue(forKey: ObjectIdentifier(channel)) != nil {
                state.statistics.open -= 1
            }
        }
    }
}
