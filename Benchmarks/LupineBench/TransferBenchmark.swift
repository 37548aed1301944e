import Foundation
import Lupine

/// Large transfers to and from files: Lupine's download task and multipart upload against curl
/// (`curl -o`, `curl -F`) on the same server in the same run, with Lupine's peak RSS.
enum TransferBenchmark {
    struct Measurement {
        let client: String
        let transfer: String
        let bytes: Int
        let seconds: Double
        /// The peak RSS of this process (Lupine rows only; curl runs in its own process).
        let peakRSSBytes: Int?

        var mebibytesPerSecond: Double { Double(self.bytes) / 1_048_576 / self.seconds }
    }

    /// The bars the transfers must meet: peak RSS and throughput relative to curl.
    static let peakRSSLimit = 64 * 1024 * 1024
    static let minimumRatioToCurl = 0.8
    /// Rounds per client; each row is the round with the median throughput.
    static let rounds = 5

    static func run(base: URL, size: Int) async throws -> [Measurement] {
        let folder = FileManager.default.temporaryDirectory.appending(path: "lupine-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appending(path: "upload.bin")
        try Self.writeFile(at: source, size: size)
        let downloadURL = base.appending(path: "bytes/\(size)")
        let uploadURL = base.appending(path: "upload")

        let manager = SessionManager(configuration: TransportConfiguration(decompressesResponses: false))
        manager.downloadDirectory = folder
        defer { manager.invalidateSession(cancelingTasks: true) }
        var rounds: [[Measurement]] = []
        for _ in 0..<Self.rounds {
            var round: [Measurement] = []
            round.append(try await Self.measure("Lupine download task", "download \(Self.size(size))", bytes: size) {
                let target = folder.appending(path: "lupine-download.bin")
                _ = try await manager.download(Request(url: downloadURL)) { _, _ in (target, [.removePreviousFile]) }
                try FileManager.default.removeItem(at: target)
            })
            round.append(try await Self.measure("curl -o", "download \(Self.size(size))", bytes: size, measuresMemory: false) {
                let target = folder.appending(path: "curl-download.bin")
                try await Self.curl(["-sS", "-f", "-o", target.path, downloadURL.absoluteString])
                try FileManager.default.removeItem(at: target)
            })
            round.append(try await Self.measure("Lupine multipart upload", "upload \(Self.size(size))", bytes: size) {
                var request = try HTTPRequestSerializer().multipartFormRequest(method: .POST, urlString: uploadURL.absoluteString) { form in
                    try form.appendPart(fileURL: source, name: "file")
                }
                request.timeoutInterval = nil
                let completion: TaskCompletion = await withCheckedContinuation { continuation in
                    manager.uploadTask(withStreamedRequest: request) { continuation.resume(returning: $0) }.resume()
                }
                if let error = completion.error { throw error }
                // The server's count proves the whole body arrived.
                let received = (completion.serializedObject as? [String: any Sendable])?["bytes"] as? Int ?? 0
                guard received > size else { throw BenchError.incompleteTransfer(received) }
            })
            round.append(try await Self.measure("curl -F", "upload \(Self.size(size))", bytes: size, measuresMemory: false) {
                try await Self.curl(["-sS", "-f", "-o", "/dev/null", "-F", "file=@\(source.path)", uploadURL.absoluteString])
            })
            rounds.append(round)
        }
        // Per client, the round with the median throughput (rounds alternate Lupine and curl),
        // with the highest peak RSS of all its rounds.
        return (0..<rounds[0].count).map { index in
            let all = rounds.map { $0[index] }
            let median = all.sorted { $0.mebibytesPerSecond < $1.mebibytesPerSecond }[all.count / 2]
            let peak = all.compactMap(\.peakRSSBytes).max()
            return Measurement(client: median.client, transfer: median.transfer, bytes: median.bytes, seconds: median.seconds, peakRSSBytes: peak)
        }
    }

    static func print(_ results: [Measurement]) {
        Swift.print("files on disk, one transfer at a time, median of \(Self.rounds) alternating rounds")
        Swift.print(Self.row(["client", "transfer", "seconds", "MiB/s", "peak RSS MiB"]))
        Swift.print(String(repeating: "-", count: 84))
        for result in results {
            Swift.print(
                Self.row([
                    result.client,
                    result.transfer,
                    String(format: "%.2f", result.seconds),
                    String(format: "%.0f", result.mebibytesPerSecond),
                    result.peakRSSBytes.map { String(format: "%.1f", Double($0) / 1_048_576) } ?? "(own process)",
                ])
            )
        }
        for (lupine, curl) in [(results[0], results[1]), (results[2], results[3])] {
            let ratio = lupine.mebibytesPerSecond / curl.mebibytesPerSecond
            let memoryMet = (lupine.peakRSSBytes ?? 0) <= Self.peakRSSLimit
            Swift.print(
                String(
                    format: "%@: Lupine %.2f× curl's throughput (bar %.1f×: %@), peak RSS %.1f MiB (bar 64 MiB: %@)",
                    lupine.transfer,
                    ratio,
                    Self.minimumRatioToCurl,
                    ratio >= Self.minimumRatioToCurl ? "met" : "NOT met",
                    Double(lupine.peakRSSBytes ?? 0) / 1_048_576,
                    memoryMet ? "met" : "NOT met"
                )
            )
        }
    }

    private static func measure(
        _ client: String,
        _ transfer: String,
        bytes: Int,
        measuresMemory: Bool = true,
        _ body: () async throws -> Void
    ) async throws -> Measurement {
        PeakMemory.reset()
        let started = ContinuousClock.now
        try await body()
        let elapsed = (ContinuousClock.now - started).components
        return Measurement(
            client: client,
            transfer: transfer,
            bytes: bytes,
            seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18,
            peakRSSBytes: measuresMemory ? PeakMemory.peakResidentBytes() : nil
        )
    }

    /// Runs curl on a thread of its own, so waiting never blocks the pool the in-process server uses.
    private static func curl(_ arguments: [String]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread {
                continuation.resume(
                    with: Swift.Result {
                        let process = Process()
                        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                        process.arguments = arguments
                        try process.run()
                        process.waitUntilExit()
                        guard process.terminationStatus == 0 else { throw BenchError.curlFailed(process.terminationStatus) }
                    }
                )
            }.start()
        }
    }

    private static func writeFile(at url: URL, size: Int) throws {
        FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let chunk = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var written = 0
        while written < size {
            let count = min(chunk.count, size - written)
            try handle.write(contentsOf: chunk.prefix(count))
            written += count
        }
    }

    private static func size(_ bytes: Int) -> String {
        bytes % (1 << 30) == 0 ? "\(bytes >> 30) GiB" : "\(bytes >> 20) MiB"
    }

    private static func row(_ cells: [String]) -> String {
        let widths = [26, 18, 10, 10, 14]
        return zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined()
    }
}
