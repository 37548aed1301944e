import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// Drives one client: a warm-up, then `requests` requests spread over `concurrency` workers,
/// recording each request's latency.
enum LoadRunner {
    /// Runs `request` from `concurrency` async workers.
    static func run(
        client: String,
        concurrency: Int,
        requests: Int,
        warmUp: Int,
        request: @escaping @Sendable () async throws -> Void
    ) async throws -> BenchmarkResult {
        for _ in 0..<warmUp {
            try await request()
        }
        PeakMemory.reset()
        let usage = ResourceUsage.now()
        let started = ContinuousClock.now
        let latencies = try await withThrowingTaskGroup(of: [UInt64].self) { group in
            for worker in 0..<concurrency {
                let share = requests / concurrency + (worker < requests % concurrency ? 1 : 0)
                group.addTask {
                    var samples: [UInt64] = []
                    samples.reserveCapacity(share)
                    for _ in 0..<share {
                        let start = NIODeadline.now()
                        try await request()
                        samples.append((NIODeadline.now() - start).nanoseconds.magnitude)
                    }
                    return samples
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        return BenchmarkResult(
            client: client,
            concurrency: concurrency,
            seconds: (ContinuousClock.now - started).seconds,
            latencies: latencies,
            peakRSSBytes: PeakMemory.peakResidentBytes(),
            usage: ResourceUsage.now() - usage
        )
    }

    /// Runs `request` from `concurrency` chains of futures, never leaving the event loops.
    static func runFutures(
        client: String,
        concurrency: Int,
        requests: Int,
        warmUp: Int,
        eventLoop: any EventLoop,
        request: @escaping @Sendable () -> EventLoopFuture<Void>
    ) async throws -> BenchmarkResult {
        for _ in 0..<warmUp {
            try await request().get()
        }
        PeakMemory.reset()
        let usage = ResourceUsage.now()
        let samples = NIOLockedValueBox<[UInt64]>([])
        let started = ContinuousClock.now
        let chains = (0..<concurrency).map { worker in
            let share = requests / concurrency + (worker < requests % concurrency ? 1 : 0)
            return Self.chain(remaining: share, eventLoop: eventLoop, samples: samples, request: request)
        }
        try await EventLoopFuture.andAllSucceed(chains, on: eventLoop).get()
        return BenchmarkResult(
            client: client,
            concurrency: concurrency,
            seconds: (ContinuousClock.now - started).seconds,
            latencies: samples.withLockedValue { $0 },
            peakRSSBytes: PeakMemory.peakResidentBytes(),
            usage: ResourceUsage.now() - usage
        )
    }

    private static func chain(
        remaining: Int,
        eventLoop: any EventLoop,
        samples: NIOLockedValueBox<[UInt64]>,
        request: @escaping @Sendable () -> EventLoopFuture<Void>
    ) -> EventLoopFuture<Void> {
        guard remaining > 0 else { return eventLoop.makeSucceededVoidFuture() }
        let start = NIODeadline.now()
        return request().flatMap {
            let elapsed = (NIODeadline.now() - start).nanoseconds.magnitude
            samples.withLockedValue { $0.append(elapsed) }
            return Self.chain(remaining: remaining - 1, eventLoop: eventLoop, samples: samples, request: request)
        }
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let parts = self.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
