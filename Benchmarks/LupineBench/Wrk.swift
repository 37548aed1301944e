import Foundation

/// wrk, the floor: one thread on the client's core, its req/s and p50 read from `--latency`.
enum Wrk {
    static func run(url: String, concurrency: Int, seconds: Int) throws -> NetworkComparison.Sample {
        guard let wrk = PinnedServer.executable(named: "wrk") else {
            return NetworkComparison.Sample(client: "wrk", requestsPerSecond: .nan, p50Microseconds: .nan)
        }
        let output = Pipe()
        let arguments = ["-t1", "-c\(concurrency)", "-d\(seconds)s", "--latency", url]
        let process = try PinnedServer.pinned(wrk, arguments, core: PinnedServer.clientCore, output: output)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return NetworkComparison.Sample(
            client: "wrk",
            requestsPerSecond: Self.value(after: "Requests/sec:", in: text) ?? .nan,
            p50Microseconds: Self.value(after: "50%", in: text) ?? .nan
        )
    }

    /// The number after `label` on its line, in microseconds when it carries wrk's unit (us, ms, s).
    private static func value(after label: String, in text: String) -> Double? {
        guard let line = text.split(separator: "\n").first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }) else { return nil }
        let field = line.trimmingCharacters(in: .whitespaces).dropFirst(label.count).trimmingCharacters(in: .whitespaces)
        for (unit, scale) in [("us", 1.0), ("ms", 1e3), ("s", 1e6)] where field.hasSuffix(unit) {
            return Double(field.dropLast(unit.count)).map { $0 * scale }
        }
        return Double(field)
    }
}
