import ArgumentParser
import Foundation
import Lupine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `lupine reachability [HOST] [--watch]`: prints whether HOST (a name, an IP address or a URL), or
/// without one the network, is reachable, in AFNetworking's words ("Reachable via WiFi", "Not
/// Reachable", …). With `--watch` it prints the status and then each change, each line after an
/// ISO 8601 timestamp, until Ctrl-C (exit 130) or SIGTERM (exit 143).
struct ReachabilityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reachability",
        abstract: "Print whether HOST, or the network, is reachable; --watch prints each change.",
        discussion: "Exits 0 when reachable, 1 when not (or on an error)."
    )

    @Argument(help: ArgumentHelp("A host name, an IP address or a URL's host; without one, any network.", valueName: "host"))
    var host: String?

    @Flag(help: "Keep printing each change, with a timestamp, until interrupted.")
    var watch = false

    func run() async throws {
        let manager: NetworkReachabilityManager
        do {
            manager = try self.makeManager()
            try manager.startMonitoring()
        } catch {
            throw HTTPExchange.fail(error.description, code: 1)
        }
        defer { manager.stopMonitoring() }
        let updates = manager.statusUpdates
        guard self.watch else {
            for await status in updates where status != .unknown {
                StandardOutput.writeLine(status.localizedDescription)
                throw ExitCode(status == .notReachable ? 1 : 0)
            }
            return
        }
        let signal = await Self.printChanges(updates)
        throw ExitCode(TerminationSignal.exitStatus(for: signal))
    }

    private func makeManager() throws(LupineError) -> NetworkReachabilityManager {
        guard let given = self.host else { return .shared }
        // A URL stands for its host (`http://example.com/x`), and `[::1]` for `::1`.
        let host = URL(string: given).flatMap { $0.scheme == nil ? nil : $0.host(percentEncoded: false) } ?? given
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if let manager = try? NetworkReachabilityManager(address: bare) {
            return manager
        }
        return try NetworkReachabilityManager(domain: host)
    }

    /// Prints each status but the unknown one, timestamped, until SIGINT or SIGTERM; that signal.
    private static func printChanges(_ updates: AsyncStream<NetworkReachabilityManager.Status>) async -> Int32 {
        let (signals, signalled) = AsyncStream.makeStream(of: Int32.self)
        let watch = TerminationSignal.watch { signalled.yield($0) }
        defer { watch.stop() }
        return await withTaskGroup(of: Int32?.self) { group in
            group.addTask {
                for await status in updates where status != .unknown {
                    let stamp = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())
                    StandardOutput.writeLine("\(stamp) \(status.localizedDescription)")
                }
                return nil
            }
            group.addTask {
                var iterator = signals.makeAsyncIterator()
                return await iterator.next()
            }
            // Only the signal ends the group: the status stream lasts as long as the manager.
            while let next = await group.next() {
                if let signal = next {
                    group.cancelAll()
                    return signal
                }
            }
            return SIGINT
        }
    }
}
