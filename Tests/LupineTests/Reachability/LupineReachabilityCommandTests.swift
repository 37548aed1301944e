import Foundation
import LupineTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `lupine reachability` as a real process: on this host, and under `ip netns exec` in a
/// namespace the test builds, where `--watch` must print the change when the route goes away.
@Suite struct LupineReachabilityCommandTests {
    @Test func loopbackAddressesAreReachable() async throws {
        for host in ["127.0.0.1", "::1", "[::1]", "localhost", "http://127.0.0.1:8080/get", "https://[::1]/"] {
            let outcome = try await LupineCommandLineTests.lupine(["reachability", host])
            #expect(outcome.stdout == "Reachable via WiFi\n", "\(host): \(outcome.stderr)")
            #expect(outcome.status == 0)
        }
    }

    @Test(arguments: ["", "bad\nhost", "a b", "x\u{202E}y"])
    func aHostThatIsNoHostIsOneLineOnStderr(host: String) async throws {
        let outcome = try await LupineCommandLineTests.lupine(["reachability", host])
        #expect(outcome.status == 1)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.hasPrefix("lupine: ") && outcome.stderr.split(separator: "\n").count == 1, "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("\u{202E}"))
    }

    @Test func anUnresolvableNameIsNotReachable() async throws {
        let outcome = try await LupineCommandLineTests.lupine(["reachability", "nothing-here.invalid"])
        #expect(outcome.stdout == "Not Reachable\n")
        #expect(outcome.status == 1)
    }

    /// Runs `lupine ARGUMENTS` inside `namespace` (`ip netns exec`, which also puts
    /// `/etc/netns/NAME/hosts` in place of `/etc/hosts`).
    static func start(_ arguments: [String], in namespace: NetworkNamespace) throws -> LupineCommandLineTests.Running {
        let outputs = try temporaryFolder()
        let stdout = outputs.appending(path: "stdout")
        let stderr = outputs.appending(path: "stderr")
        let process = try ChildProcess.start(
            URL(fileURLWithPath: "/usr/sbin/ip"),
            ["netns", "exec", namespace.name, LupineCommandLineTests.executable.path] + arguments,
            in: outputs,
            stdout: stdout,
            stderr: stderr
        )
        return LupineCommandLineTests.Running(process: process, stdout: stdout, stderr: stderr)
    }

    @Test(.enabled(if: NetworkNamespace.isSupported, "network namespaces cannot be created here (needs root and ip netns)"))
    func theNetworkAndANameFollowTheNamespaceRoutes() async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.delete() }
        let hosts = URL(fileURLWithPath: "/etc/netns/\(namespace.name)")
        try FileManager.default.createDirectory(at: hosts, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: hosts) }
        try Data("10.77.0.5 service.reach.test\n".utf8).write(to: hosts.appending(path: "hosts"))

        for host in [[], ["service.reach.test"]] {
            let outcome = try await Self.start(["reachability"] + host, in: namespace).finish()
            #expect(outcome.stdout == "Reachable via WiFi\n", "\(host): \(outcome.stderr)")
            #expect(outcome.status == 0)
        }
        try namespace.deleteDefaultRoute()
        for host in [[], ["service.reach.test"]] {
            let outcome = try await Self.start(["reachability"] + host, in: namespace).finish()
            #expect(outcome.stdout == "Not Reachable\n", "\(host): \(outcome.stderr)")
            #expect(outcome.status == 1)
        }
    }

    @Test(
        .enabled(if: NetworkNamespace.isSupported, "network namespaces cannot be created here (needs root and ip netns)"),
        arguments: [SIGINT, SIGTERM]
    )
    func watchPrintsTheChangeWhenTheRouteGoesAwayUntilInterrupted(signal: Int32) async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.delete() }
        let running = try Self.start(["reachability", "--watch"], in: namespace)
        let lines = { String(decoding: (try? Data(contentsOf: running.stdout)) ?? Data(), as: UTF8.self).split(separator: "\n") }
        try await running.whileRunning {
            try await waitUntil(timeout: .seconds(20), "the first status") { lines().count == 1 }
            try namespace.deleteDefaultRoute()
            try await waitUntil(timeout: .seconds(30), "the change") { lines().count == 2 }
        }
        running.process.send(signal)
        let outcome = try await running.finish()
        #expect(outcome.status == 128 + signal)
        #expect(outcome.stderr.isEmpty)
        let printed = outcome.stdout.split(separator: "\n")
        #expect(printed.count == 2, "\(outcome.stdout)")
        let stamp = try Regex(#"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (.+)$"#)
        let statuses = printed.map { line in line.wholeMatch(of: stamp) == nil ? nil : String(line.split(separator: " ", maxSplits: 1)[1]) }
        #expect(statuses == ["Reachable via WiFi", "Not Reachable"], "\(outcome.stdout)")
    }
}
