import Foundation
import Lupine
import LupineTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A network namespace a test creates (`ip netns add`), holding a veth pair `va`/`vb` both up,
/// 10.9.0.2/24 on `va`, loopback up, and a default route via 10.9.0.1 unless asked otherwise.
/// Nothing of it touches the host's own network. Delete it with ``delete()`` (tests do in a
/// `defer` right after creating it); a namespace outlives no test process anyway, as its only
/// mount is in the test's own mount namespace.
struct NetworkNamespace: Sendable {
    let name: String

    /// Where `ip` keeps it: what the monitor's test seam and `ip netns exec` take.
    var path: String { "/run/netns/\(self.name)" }

    /// Whether namespaces can be made here (root with `ip` and network namespaces); tests that
    /// need one are skipped otherwise.
    static let isSupported: Bool = {
        guard let probe = try? NetworkNamespace(defaultRoute: false) else { return false }
        probe.delete()
        return true
    }()

    /// Creates the namespace and its network; deletes what it made when a step fails.
    init(defaultRoute: Bool = true, loopbackUp: Bool = true) throws {
        self.name = "lupine-" + UUID().uuidString.prefix(12).lowercased()
        try Self.ip(["netns", "add", self.name])
        do {
            try self.ip(["link", "add", "va", "type", "veth", "peer", "name", "vb"])
            try self.ip(["addr", "add", "10.9.0.2/24", "dev", "va"])
            try self.ip(["link", "set", "va", "up"])
            try self.ip(["link", "set", "vb", "up"])
            if loopbackUp {
                try self.ip(["link", "set", "lo", "up"])
            }
            if defaultRoute {
                try self.addDefaultRoute()
            }
        } catch {
            self.delete()
            throw error
        }
    }

    func addDefaultRoute() throws {
        try self.ip(["route", "add", "default", "via", "10.9.0.1", "dev", "va"])
    }

    func deleteDefaultRoute() throws {
        try self.ip(["route", "del", "default"])
    }

    /// Runs `ip -n NAME ARGUMENTS`.
    func ip(_ arguments: [String]) throws {
        try Self.ip(["-n", self.name] + arguments)
    }

    func delete() {
        try? Self.ip(["netns", "del", self.name])
    }

    /// A manager watching `target` inside the namespace (the monitor's thread enters it).
    func manager(_ target: ReachabilityTarget, resolver: DomainResolver = .system) -> NetworkReachabilityManager {
        NetworkReachabilityManager(target, namespacePath: self.path, resolver: resolver)
    }

    /// `ip ARGUMENTS` to its end (a few milliseconds: `posix_spawn` and `waitpid`, without
    /// Foundation's `Process`, whose wait polls a run loop); throws with its stderr when it fails.
    static func ip(_ arguments: [String]) throws {
        let errors = FileManager.default.temporaryDirectory.appending(path: "lupine-ip-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: errors) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errors.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = (["ip"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        guard posix_spawn(&pid, "/usr/sbin/ip", &actions, nil, argv, environ) == 0 else {
            throw WaitTimeout(description: "ip cannot be started")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            let message = String(decoding: (try? Data(contentsOf: errors)) ?? Data(), as: UTF8.self)
            throw WaitTimeout(description: "ip \(arguments.joined(separator: " ")): \(message)")
        }
    }
}

/// The next status `stream` yields within `limit`, or `nil`.
func nextStatus(
    of stream: AsyncStream<NetworkReachabilityManager.Status>,
    within limit: Duration = .seconds(5)
) async -> NetworkReachabilityManager.Status? {
    await withTaskGroup(of: NetworkReachabilityManager.Status?.self) { group in
        group.addTask {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// The first status other than unknown `stream` yields within `limit`.
func firstKnownStatus(of stream: AsyncStream<NetworkReachabilityManager.Status>) async -> NetworkReachabilityManager.Status? {
    // Bounded: unknown comes at most once, first.
    for _ in 0..<2 {
        let status = await nextStatus(of: stream)
        if status != .unknown { return status }
    }
    return nil
}
