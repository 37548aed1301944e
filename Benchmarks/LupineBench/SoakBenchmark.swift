import Foundation
import Lupine
import NIOCore
import NIOPosix
import Synchronization

/// `--only soak`: drives the session layer at concurrency 64 for a long run against the test
/// server in a child process, over HTTP/1.1 and then HTTP/2 (h2c), with a mix of what users do
/// and what goes wrong, and watches memory, descriptors and tasks for leaks. Failures the mix
/// injects (cancelled tasks, connections the server cuts) are expected; any other is counted.
enum SoakBenchmark {
    static let concurrency = 64

    /// One operation of the mix, chosen by the request's number so that every run is the same.
    enum Operation: CaseIterable {
        case smallGet, largeBody, upload, redirect, revalidation, retriedAfter503, cancelledMidBody, cutConnection

        /// Out of every 100 requests: small GETs fill what the others leave.
        static func of(_ index: Int) -> Operation {
            switch index % 100 {
            case 0: return .largeBody
            case 1...5: return .upload
            case 6...10: return .redirect
            case 11...20: return .revalidation
            case 21...25: return .retriedAfter503
            case 26: return .cancelledMidBody
            case 27...28: return .cutConnection
            default: return .smallGet
            }
        }

        /// Whether it is meant to fail.
        var isInjectedFailure: Bool { self == .cancelledMidBody || self == .cutConnection }
    }

    static func run(requests: Int) async throws {
        for http2 in [false, true] {
            try await Self.run(requests: requests, http2: http2)
        }
    }

    static func run(requests: Int, http2: Bool) async throws {
        let child = try ServerProcess(http2: http2)
        defer { child.stop() }
        let base = child.baseURL.absoluteString
        let faults = child.faultsURL.absoluteString
        print("\nsoak over \(http2 ? "HTTP/2 (h2c)" : "HTTP/1.1"): \(requests) requests at concurrency \(Self.concurrency), LupineTestServer at \(base) in a child process")
        print(
            "mix per 100: 1 × 1 MiB body, 5 × 64 KiB upload, 5 × two redirects, 10 × revalidation (304), 5 × a 503 then retried, 1 × cancelled mid-body, 2 × connection cut by the server, 71 × small GET"
        )
        // NIO's shared event loops, and libdispatch's timer (a timerfd, opened by the first
        // Task.sleep), open their descriptors when first used: before the count.
        _ = MultiThreadedEventLoopGroup.singleton.next()
        try await Task.sleep(for: .milliseconds(1))
        let startingDescriptors = Self.openDescriptors()
        let described = Self.describedDescriptors()
        let configuration = TransportConfiguration(connectTimeout: .seconds(30), httpVersion: http2 ? .http2PriorKnowledge : .http1)
        let transport = NIOTransport(configuration: configuration)
        let faultTransport = NIOTransport(configuration: TransportConfiguration(connectTimeout: .seconds(30), readTimeout: .seconds(5)))
        let manager = HTTPSessionManager(transport: transport)
        manager.responseSerializer = HTTPResponseSerializer()
        manager.interceptor = RetryPolicy(retryLimit: 2, exponentialBackoffScale: .zero, jitter: false)
        let caching = HTTPSessionManager(transport: transport)
        caching.responseSerializer = HTTPResponseSerializer()
        caching.urlCache = HTTPCache(memoryCapacity: 4 << 20)
        let faulty = HTTPSessionManager(transport: faultTransport)
        faulty.responseSerializer = HTTPResponseSerializer()
        let upload = [UInt8](repeating: UInt8(ascii: "u"), count: 64 << 10)

        let counters = Counters()
        var samples: [(done: Int, rss: Int, descriptors: Int, tasks: Int)] = []
        let tenth = max(1, requests / 10)
        let started = ContinuousClock.now
        for slice in 1...10 {
            let end = slice == 10 ? requests : slice * tenth
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<Self.concurrency {
                    group.addTask {
                        while true {
                            let index = counters.next.add(1, ordering: .relaxed).oldValue
                            guard index < end else {
                                counters.next.subtract(1, ordering: .relaxed)
                                return
                            }
                            let operation = Operation.of(index)
                            do {
                                try await Self.perform(operation, index: index, base: base, faults: faults, manager: manager, caching: caching, faulty: faulty, upload: upload)
                                if operation.isInjectedFailure { counters.injected.add(1, ordering: .relaxed) }
                            } catch {
                                if operation.isInjectedFailure {
                                    counters.injected.add(1, ordering: .relaxed)
                                } else {
                                    counters.unexpected.add(1, ordering: .relaxed)
                                    counters.firstErrors.withLock { if $0.count < 5 { $0.append("\(operation): \(error)") } }
                                }
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let sample = (end, PeakMemory.residentBytes(), Self.openDescriptors(), manager.tasks.count + caching.tasks.count + faulty.tasks.count)
            samples.append(sample)
            print(String(format: "  %3d %%  %9d requests  RSS %7.1f MiB  fds %4d  live tasks %d", slice * 10, sample.0, Double(sample.1) / 1_048_576, sample.2, sample.3))
        }
        let elapsed = ContinuousClock.now - started
        manager.invalidateSession(cancelingTasks: true)
        caching.invalidateSession(cancelingTasks: true)
        faulty.invalidateSession(cancelingTasks: true)
        await transport.shutdown()
        await faultTransport.shutdown()
        let endingDescriptors = Self.openDescriptors()
        let warm = samples.first?.rss ?? 0
        let growth = Double((samples.last?.rss ?? 0) - warm) / 1_048_576
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            String(
                format: "  %.0f requests/s; injected failures %d; descriptors %d before, %d after shutdown", Double(requests) / seconds, counters.injected.load(ordering: .relaxed),
                startingDescriptors,
                endingDescriptors))
        for error in counters.firstErrors.withLock({ $0 }) {
            print("  unexpected: \(error)")
        }
        // A descriptor more or fewer: which.
        let after = Self.describedDescriptors()
        for (descriptor, target) in after.sorted(by: { $0.key < $1.key }) where described[descriptor] != target {
            print("  descriptor \(descriptor) after shutdown: \(target)\(described[descriptor].map { " (was \($0))" } ?? "")")
        }
        for (descriptor, target) in described.sorted(by: { $0.key < $1.key }) where after[descriptor] == nil {
            print("  descriptor \(descriptor) closed: \(target)")
        }
        print(String(format: "soak: %d requests, %d failed, RSS %+.1f MiB, fds %+d", requests, counters.unexpected.load(ordering: .relaxed), growth, endingDescriptors - startingDescriptors))
    }

    static func perform(
        _ operation: Operation,
        index: Int,
        base: String,
        faults: String,
        manager: HTTPSessionManager,
        caching: HTTPSessionManager,
        faulty: HTTPSessionManager,
        upload: [UInt8]
    ) async throws {
        switch operation {
        case .smallGet:
            _ = try await manager.get(base + "/get")
        case .largeBody:
            let response = try await manager.get(base + "/bytes/\(1 << 20)?seed=\(index % 7)")
            guard response.data.count == 1 << 20 else { throw BenchError.unexpected("a 1 MiB body of \(response.data.count) bytes") }
        case .upload:
            guard let url = URL(string: base + "/upload") else { throw BenchError.invalidURL(base) }
            var request = Request(url: url, method: .POST)
            request.body = .bytes(upload)
            _ = try await manager.response(for: request, serializer: HTTPResponseSerializer())
        case .redirect:
            let response = try await manager.get(base + "/redirect/2")
            guard response.redirectChain.count == 2 else { throw BenchError.unexpected("\(response.redirectChain.count) redirects instead of 2") }
        case .revalidation:
            // Sixteen entity tags shared by all workers: after the first, each is a 304.
            _ = try await caching.get(base + "/etag/soak-\(index % 16)")
        case .retriedAfter503:
            // A key of its own: its first request answers 503, the retry 200.
            _ = try await manager.get(base + "/retry/soak-\(index)/fail/1?status=503")
        case .cancelledMidBody:
            let task = Task { try await manager.get(base + "/drip?numbytes=4&duration=2") }
            try await Task.sleep(for: .milliseconds(20))
            task.cancel()
            _ = try await task.value
        case .cutConnection:
            _ = try await faulty.get(faults + "/close-mid-body")
        }
    }

    /// What the workers count, shared among them.
    final class Counters: Sendable {
        /// The next request's number.
        let next = Atomic<Int>(0)
        let unexpected = Atomic<Int>(0)
        let injected = Atomic<Int>(0)
        /// The first few unexpected failures, in words.
        let firstErrors = Mutex<[String]>([])
    }

    /// Descriptors open in this process now.
    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    /// What each descriptor open now refers to (a path, `socket:[…]`, `anon_inode:[eventfd]`).
    static func describedDescriptors() -> [String: String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Dictionary(uniqueKeysWithValues: names.map { ($0, (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) ?? "?") })
    }
}
