import Foundation
import Lupine
import LupineImage
import Synchronization

/// `--only images`: 1,000 image downloads of 100 distinct URLs through ``ImageDownloader`` once
/// its cache is warm, so every one is a hit: how long a hit takes (the call, which looks the image
/// up and queues the handler, and the handler's arrival) and how far the process's peak RSS rose
/// above what it was before, next to what the cache holds and may hold.
enum ImageBenchmark {
    static let distinctURLs = 100
    static let downloads = 1_000

    static func run() async throws {
        let child = try ServerProcess(pinnedTo: PinnedServer.serverCore)
        defer { child.stop() }
        _ = PinnedServer.pinClient()
        let manager = SessionManager(configuration: TransportConfiguration())
        manager.urlCache = nil
        let cache = AutoPurgingImageCache()
        let downloader = ImageDownloader(sessionManager: manager, imageCache: cache)
        let requests = (0..<Self.distinctURLs).compactMap { index in
            URL(string: child.baseURL.absoluteString + "/image/png?n=\(index)").map { Request(url: $0) }
        }
        guard !requests.isEmpty else { throw BenchError.invalidURL(child.baseURL.absoluteString) }
        print("\nimage downloader: \(Self.downloads) downloads of \(requests.count) distinct PNGs from LupineTestServer at \(child.baseURL.absoluteString), cache warm")
        for request in requests {
            _ = try await downloader.downloadImage(for: request)
        }

        PeakMemory.reset()
        let residentBefore = PeakMemory.residentBytes()
        let arrivals = HitArrivals(expected: Self.downloads)
        var callNanoseconds: [Int64] = []
        callNanoseconds.reserveCapacity(Self.downloads)
        let clock = ContinuousClock()
        let start = clock.now
        for index in 0..<Self.downloads {
            let request = requests[index % requests.count]
            let called = clock.now
            let receipt = downloader.downloadImage(for: request, success: { _, _, _ in arrivals.arrived() }, failure: { _, _, _ in arrivals.arrived() })
            callNanoseconds.append(Self.nanoseconds(clock.now - called))
            guard receipt == nil else { throw BenchError.cacheMiss(request.url.absoluteString) }
        }
        await arrivals.all()
        let total = clock.now - start
        let peakRise = max(0, PeakMemory.peakResidentBytes() - residentBefore)

        callNanoseconds.sort()
        let p50 = Double(callNanoseconds[callNanoseconds.count / 2]) / 1000
        let p99 = Double(callNanoseconds[callNanoseconds.count * 99 / 100]) / 1000
        let perHit = Double(Self.nanoseconds(total)) / Double(Self.downloads) / 1000
        print(String(format: "cache hit, the call: p50 %.2f µs, p99 %.2f µs; to the last handler: %.2f µs per hit", p50, p99, perHit))
        print(
            "peak RSS \(Self.mebibytes(PeakMemory.peakResidentBytes())) (\(Self.mebibytes(peakRise)) above the start); "
                + "the cache holds \(Self.mebibytes(cache.memoryUsage)) of its \(Self.mebibytes(cache.memoryCapacity)) capacity"
        )
        print("goals: a hit's call under 2 µs; the peak RSS rise under the cache's capacity")
        manager.invalidateSession(cancelingTasks: true)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }

    private static func mebibytes(_ bytes: Int) -> String {
        String(format: "%.2f MiB", Double(bytes) / 1_048_576)
    }
}

/// Counts handler calls from any thread and lets the benchmark await the last one.
private final class HitArrivals: Sendable {
    private let state: Mutex<(count: Int, waiter: CheckedContinuation<Void, Never>?)>
    private let expected: Int

    init(expected: Int) {
        self.expected = expected
        self.state = Mutex((0, nil))
    }

    func arrived() {
        let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.count += 1
            guard state.count == self.expected else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func all() async {
        await withCheckedContinuation { continuation in
            let done = self.state.withLock { state in
                if state.count >= self.expected { return true }
                state.waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
}
