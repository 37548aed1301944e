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
                do {
                    try StandardOutput.writeLine(status.localizedDescription)
                } catch {
                    throw HTTPExchange.fail(error.description, code: 1)
                }
                throw ExitCode(status == .notReachable ? 1 : 0)
            }
            return
        }
        throw await Self.printChanges(updates)
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

    /// How a watch ends: by a signal, or with output that cannot be written.
    private enum Ending: Sendable {
        case signal(Int32)
        case unwritable(String)
    }

    /// Prints each status but the unknown one, timestamped, until SIGINT or SIGTERM, or until
    /// the output cannot be written (a reader that closed the pipe, a full disk); how to exit.
    private static func printChanges(_ updates: AsyncStream<NetworkReachabilityManager.Status>) async -> ExitCode {
        let (signals, signalled) = AsyncStream.makeStream(of: Int32.self)
        let watch = TerminationSignal.watch { signalled.yield($0) }
        defer { watch.stop() }
        let ending = await withTaskGroup(of: Ending?.self) { group in
            group.addTask {
                for await status in updates where status != .unknown {
                    let stamp = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())
                    do {
                        try StandardOutput.writeLine("\(stamp) \(status.localizedDescription)")
                    } catch {
                        return .unwritable("\(error)")
                    }
                }
                return nil
            }
            // A reader gone (`| head -1`) ends the watch now, not at the next change.
            group.addTask {
                await StandardOutput.readerGone()
                return Task.isCancelled ? nil : .unwritable(OutputError(code: EPIPE).description)
            }
            group.addTask {
                var iterator = signals.makeAsyncIterator()
                return await iterator.next().map { .signal($0) }
            }
            // The first ending ends the group: the status stream lasts as long as the manager.
            while let next = await group.next() {
                if let ending = next {
                    group.cancelAll()
                    return ending
                }
            }
            return Ending.signal(SIGINT)
        }
        switch ending {
        case .signal(let signal): return ExitCode(TerminationSignal.exitStatus(for: signal))
        case .unwritable(let reason): return HTTPExchange.fail(reason, code: 1)
        }
    }
}
