import Foundation
import Lupine

/// Large transfers to and from files: Lupine's download task and multipart upload against curl
/// (`curl -o`, `curl -F`) on the same server in the same run, with how far Lupine's transfers
/// raise the process's RSS above what it was just before them.
///
/// A 64 KiB download and upload run first, measured on their own: a process's first transfer
/// also faults in the code it runs and starts threads, a one-time cost of any size of transfer
/// that would otherwise be counted against the first large one. They are too small to leave
/// large buffers behind for the rounds to reuse.
enum TransferBenchmark {
    struct Measurement {
        let client: String
        let transfer: String
        let bytes: Int
        let seconds: Double
        /// This process's RSS just before the transfer and its peak during it (Lupine rows only;
        /// curl runs in its own process).
        let memory: (before: Int, peak: Int)?
        /// How much the file-backed part of the RSS (mapped code and data) grew over the transfer.
        var fileBackedGrowthBytes: Int? = nil

        var mebibytesPerSecond: Double { Double(self.bytes) / 1_048_576 / self.seconds }
        /// How far the transfer raised the RSS above what it was before.
        var growthBytes: Int? { self.memory.map { $0.peak - $0.before } }
    }

    /// The bars the transfers must meet: RSS growth and throughput relative to curl.
    static let rssGrowthLimit = 4 * 1024 * 1024
    static let minimumRatioToCurl = 0.8
    /// Rounds per client; each row is the round with the median throughput.
    static let rounds = 5
    static let warmUpSize = 64 * 1024

    /// The first transfers of the process (the warm-up) and the rounds.
    struct Results {
        let warmUp: [Measurement]
        let rounds: [Measurement]
    }

    static func run(base: URL, size: Int) async throws -> Results {
        let folder = FileManager.default.temporaryDirectory.appending(path: "lupine-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appending(path: "upload.bin")
        let smallSource = folder.appending(path: "warm-up.bin")
        try Self.writeFile(at: source, size: size)
        try Self.writeFile(at: smallSource, size: Self.warmUpSize)
        let uploadURL = base.appending(path: "upload")

        let manager = SessionManager(configuration: TransportConfiguration(decompressesResponses: false))
        manager.downloadDirectory = folder
        defer { manager.invalidateSession(cancelingTasks: true) }
        let warmUp = [
            try await Self.measure("Lupine download task", "download \(Self.size(Self.warmUpSize))", bytes: Self.warmUpSize) {
                try await Self.download(base.appending(path: "bytes/\(Self.warmUpSize)"), into: folder, with: manager)
            },
            try await Self.measure("Lupine multipart upload", "upload \(Self.size(Self.warmUpSize))", bytes: Self.warmUpSize) {
                try await Self.upload(smallSource, size: Self.warmUpSize, to: uploadURL, with: manager)
            },
        ]
        let downloadURL = base.appending(path: "bytes/\(size)")
        var rounds: [[Measurement]] = []
        for _ in 0..<Self.rounds {
            var round: [Measurement] = []
            round.append(
                try await Self.measure("Lupine download task", "download \(Self.size(size))", bytes: size) {
                    try await Self.download(downloadURL, into: folder, with: manager)
                })
            round.append(
                try await Self.measure("curl -o", "download \(Self.size(size))", bytes: size, measuresMemory: false) {
                    let target = folder.appending(path: "curl-download.bin")
                    try await Self.curl(["-sS", "-f", "-o", target.path, downloadURL.absoluteString])
                    try FileManager.default.removeItem(at: target)
                })
            round.append(
                try await Self.measure("Lupine multipart upload", "upload \(Self.size(size))", bytes: size) {
                    try await Self.upload(source, size: size, to: uploadURL, with: manager)
                })
            round.append(
                try await Self.measure("curl -F", "upload \(Self.size(size))", bytes: size, measuresMemory: false) {
                    try await Self.curl(["-sS", "-f", "-o", "/dev/null", "-F", "file=@\(source.path)", uploadURL.absoluteString])
                })
            rounds.append(round)
        }
        // Per client, the round with the median throughput (rounds alternate Lupine and curl),
        // with the memory of the round that raised the RSS most.
        let medians = (0..<rounds[0].count).map { index in
            let all = rounds.map { $0[index] }
            let median = all.sorted { $0.mebibytesPerSecond < $1.mebibytesPerSecond }[all.count / 2]
            let worst = all.max { ($0.growthBytes ?? 0) < ($1.growthBytes ?? 0) }?.memory
            return Measurement(client: median.client, transfer: median.transfer, bytes: median.bytes, seconds: median.seconds, memory: worst)
        }
        return Results(warmUp: warmUp, rounds: medians)
    }

    private static func download(_ url: URL, into folder: URL, with manager: SessionManager) async throws {
        let target = folder.appending(path: "lupine-download.bin")
        _ = try await manager.download(Request(url: url)) { _, _ in (target, [.removePreviousFile]) }
        try FileManager.default.removeItem(at: target)
    }

    private static func upload(_ source: URL, size: Int, to url: URL, with manager: SessionManager) async throws {
        var request = try HTTPRequestSerializer().multipartFormRequest(method: .POST, urlString: url.absoluteString) { form in
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
    }

    static func print(_ all: Results) {
        let results = all.rounds
        Swift.print("files on disk, one transfer at a time, median of \(Self.rounds) alternating rounds")
        for first in all.warmUp {
            Swift.print(
                "first transfer of the process (warm-up, not in the table): \(first.transfer), RSS growth \(Self.mebibytes(first.growthBytes ?? 0)) MiB"
                    + ", of which file-backed pages (code run for the first time) \(Self.mebibytes(first.fileBackedGrowthBytes ?? 0)) MiB"
            )
        }
        Swift.print("RSS: before the transfer, its peak during it, and the growth (the worst round)")
        Swift.print(Self.row(["client", "transfer", "seconds", "MiB/s", "RSS before", "peak", "growth MiB"]))
        Swift.print(String(repeating: "-", count: 106))
        for result in results {
            let memory = result.memory.map { [Self.mebibytes($0.before), Self.mebibytes($0.peak), Self.mebibytes($0.peak - $0.before)] }
            Swift.print(
                Self.row(
                    [result.client, result.transfer, String(format: "%.2f", result.seconds), String(format: "%.0f", result.mebibytesPerSecond)]
                        + (memory ?? ["(own process)"])
                )
            )
        }
        for (lupine, curl) in [(results[0], results[1]), (results[2], results[3])] {
            let ratio = lupine.mebibytesPerSecond / curl.mebibytesPerSecond
            let growth = lupine.growthBytes ?? 0
            Swift.print(
                String(
                    format: "%@: Lupine %.2f× curl's throughput (bar %.1f×: %@), RSS growth %@ MiB (bar ≤ %d MiB: %@)",
                    lupine.transfer,
                    ratio,
                    Self.minimumRatioToCurl,
                    ratio >= Self.minimumRatioToCurl ? "met" : "NOT met",
                    Self.mebibytes(growth),
                    Self.rssGrowthLimit >> 20,
                    growth <= Self.rssGrowthLimit ? "met" : "NOT met"
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
        let before = PeakMemory.residentBytes()
        let fileBackedBefore = PeakMemory.fileBackedResidentBytes()
        let started = ContinuousClock.now
        try await body()
        let elapsed = (ContinuousClock.now - started).components
        return Measurement(
            client: client,
            transfer: transfer,
            bytes: bytes,
            seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18,
            memory: measuresMemory ? (before, PeakMemory.peakResidentBytes()) : nil,
            fileBackedGrowthBytes: measuresMemory ? PeakMemory.fileBackedResidentBytes() - fileBackedBefore : nil
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
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
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
        if bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
        return bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes >> 10) KiB"
    }

    private static func mebibytes(_ bytes: Int) -> String {
        String(format: "%.1f", Double(bytes) / 1_048_576)
    }

    private static func row(_ cells: [String]) -> String {
        let widths = [26, 18, 10, 10, 14, 14, 14]
        return zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined()
    }
}
