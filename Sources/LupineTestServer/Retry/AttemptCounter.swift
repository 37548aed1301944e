import NIOConcurrencyHelpers

/// How many requests each key of the retry and bearer endpoints received, for tests that check how
/// often a client tried.
///
/// Bounded: at most ``capacity`` keys are kept; counting a new key beyond that forgets the key that
/// was first counted longest ago.
final class AttemptCounter: Sendable {
    private struct State {
        /// Each key's count and the sequence number of its entry in `order`.
        var counts: [String: (count: Int, sequence: Int)] = [:]
        /// Keys in the order they were first counted, with their sequence numbers; entries from
        /// `head` on are live unless their key was reset or counted again under a newer number.
        var order: [(key: String, sequence: Int)] = []
        var head = 0
        var nextSequence = 0
    }

    /// The most keys kept.
    let capacity: Int
    private let state = NIOLockedValueBox(State())

    /// A counter keeping at most `capacity` keys (at least one).
    init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// Counts one more request for `key` and returns its count, this request included.
    func increment(_ key: String) -> Int {
        self.state.withLockedValue { state in
            if let entry = state.counts[key] {
                state.counts[key] = (entry.count + 1, entry.sequence)
                return entry.count + 1
            }
            let sequence = state.nextSequence
            state.nextSequence += 1
            state.counts[key] = (1, sequence)
            state.order.append((key, sequence))
            while state.counts.count > self.capacity, state.head < state.order.count {
                let oldest = state.order[state.head]
                state.head += 1
                if state.counts[oldest.key]?.sequence == oldest.sequence {
                    state.counts[oldest.key] = nil
                }
            }
            Self.compact(&state)
            return 1
        }
    }

    /// How many requests `key` received since it was last reset.
    func count(_ key: String) -> Int {
        self.state.withLockedValue { $0.counts[key]?.count ?? 0 }
    }

    /// Forgets `key`'s count.
    func reset(_ key: String) {
        self.state.withLockedValue { state in
            state.counts[key] = nil
            Self.compact(&state)
        }
    }

    /// Drops the dead entries of `order` once they are the larger part of it, so it stays within
    /// twice the live keys.
    private static func compact(_ state: inout State) {
        guard state.order.count > 64, state.order.count > 2 * state.counts.count else { return }
        let counts = state.counts
        state.order = state.order[state.head...].filter { counts[$0.key]?.sequence == $0.sequence }
        state.head = 0
    }
}
