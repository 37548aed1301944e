import NIOCore
import Synchronization

/// The event loop's end of one response body: it yields the body's parts to the consumer and
/// ends the body, and it lets the consumer's side tell whether its demand or its leaving needs
/// the event loop at all.
///
/// Telling the event loop means a hop to it, which wakes it when it sleeps. So the consumer's
/// demand hops only when socket reads are held back, and a consumer that stops iterating cancels
/// the request only when the body has not ended. The two sides agree through atomics, never a
/// lock: a consumer that a yield wakes must not find the event loop holding one.
final class ResponseBodyFeed: Sendable {
    /// How many body parts may wait for the consumer: socket reads stop once two wait and resume
    /// once it has taken both. A part is at most one socket read (256 KiB, see
    /// ``ConnectionFactory``) and the kernel's socket buffer holds what the server sends
    /// meanwhile, so a large download keeps well under a MiB of its body in memory however slow
    /// its consumer (a file on a slow disk), and a fast one still finds the next part waiting.
    static let bodyBackPressure = NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark(lowWatermark: 1, highWatermark: 2)

    private let source: ResponseBody.Producer.Source
    private let flow: Flow

    private init(source: ResponseBody.Producer.Source, flow: Flow) {
        self.source = source
        self.flow = flow
    }

    /// A feed and the body it fills, whose `onDemand` runs when the consumer wants more after
    /// reads were held back (on the consumer's thread), and `onAbandon` when the consumer stops
    /// before the body has ended (on the thread that drops the body or cancels its iteration).
    ///
    /// The feed keeps only the producing end: the body is the caller's alone, so that a caller
    /// who drops it without iterating it ends it (and so cancels the request), which a feed
    /// holding it would prevent for as long as the request lives.
    static func make(
        onDemand: @escaping @Sendable () -> Void,
        onAbandon: @escaping @Sendable () -> Void
    ) -> (feed: ResponseBodyFeed, body: ResponseBody) {
        let flow = Flow()
        let delegate = ResponseBodyDelegate(
            onProduceMore: { if flow.consumerWantsMore() { onDemand() } },
            onTerminate: { if !flow.hasEnded { onAbandon() } }
        )
        let sequence = ResponseBody.Producer.makeSequence(
            elementType: ByteBuffer.self,
            failureType: (any Error).self,
            backPressureStrategy: Self.bodyBackPressure,
            finishOnDeinit: false,
            delegate: delegate
        )
        return (ResponseBodyFeed(source: sequence.source, flow: flow), ResponseBody(producer: sequence.sequence))
    }

    /// Hands `part` to the consumer; `true` when socket reads must be held back until the
    /// consumer asks for more.
    func yield(_ part: ByteBuffer) -> Bool {
        self.flow.yielded(full: self.source.yield(part) == .stopProducing)
    }

    /// Ends the body, with `error` when it did not arrive whole.
    func finish(_ error: (any Error)? = nil) {
        self.flow.end()
        if let error {
            self.source.finish(error)
        } else {
            self.source.finish()
        }
    }

    /// Whether reads are held back, as both sides see it.
    ///
    /// The producer asks for more (the consumer's `produceMore`) after a yield that found the
    /// buffer full, but it may ask before the event loop has read that yield's answer: a demand
    /// that finds nothing held is kept, and the event loop, finding it, does not hold reads back.
    /// The producer also asks once when the consumer waits before the first part; that demand
    /// belongs to no full buffer, so at worst one later full buffer is not held back (one more
    /// part buffered, never a stall).
    private final class Flow: Sendable {
        private static let flowing: UInt8 = 0
        private static let held: UInt8 = 1
        private static let demanded: UInt8 = 2

        private let reads = Atomic<UInt8>(0)
        private let ended = Atomic<Bool>(false)

        /// On the event loop, after a yield; `full` when the buffer was full. Returns whether to
        /// hold reads back.
        func yielded(full: Bool) -> Bool {
            guard full else {
                // Demand is outstanding: an earlier demand has nothing left to answer.
                _ = self.reads.compareExchange(expected: Self.demanded, desired: Self.flowing, ordering: .acquiringAndReleasing)
                return false
            }
            let (exchanged, found) = self.reads.compareExchange(expected: Self.flowing, desired: Self.held, ordering: .acquiringAndReleasing)
            if exchanged || found == Self.held {
                return true
            }
            // The demand for this full buffer came first.
            self.reads.store(Self.flowing, ordering: .releasing)
            return false
        }

        /// On the consumer's thread: whether the event loop must be told (reads were held back).
        func consumerWantsMore() -> Bool {
            var current = self.reads.load(ordering: .acquiring)
            while current != Self.demanded {
                // Held reads are released (and the loop told); otherwise the demand is kept.
                let next = current == Self.held ? Self.flowing : Self.demanded
                let (exchanged, found) = self.reads.compareExchange(expected: current, desired: next, ordering: .acquiringAndReleasing)
                if exchanged {
                    return current == Self.held
                }
                current = found
            }
            return false
        }

        func end() {
            self.ended.store(true, ordering: .releasing)
        }

        var hasEnded: Bool { self.ended.load(ordering: .acquiring) }
    }
}
