import Foundation
import Lupine
import NIOConcurrencyHelpers
import Testing

/// Reachability on real kernel state: each test builds its own network namespace and changes its
/// routes and links (with `ip`, or over rtnetlink where the change is timed), and the monitor
/// (whose thread enters the namespace) must report each change exactly once, and see a timed one
/// within 200 ms.
@Suite(.enabled(if: NetworkNamespace.isSupported, "network namespaces cannot be created here (needs root and ip netns)"))
struct NamespaceReachabilityTests {
    static let promptly = Duration.milliseconds(200)

    /// Runs `change`, then expects `expected` from `stream`; when `change` says when it changed
    /// the kernel's state (over rtnetlink), the monitor must have seen it within ``promptly``.
    private static func expect(
        _ expected: NetworkReachabilityManager.Status,
        of manager: NetworkReachabilityManager,
        from stream: AsyncStream<NetworkReachabilityManager.Status>,
        after change: () async throws -> ContinuousClock.Instant?
    ) async throws {
        let changed = try await change()
        let status = await nextStatus(of: stream)
        #expect(status == expected)
        if let changed, let seen = manager.lastStatusChange {
            #expect(seen - changed < Self.promptly, "seen after \(seen - changed)")
        }
    }

    @Test func theSharedManagerFollowsTheDefaultRouteEachChangeOnce() async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.delete() }
        let manager = namespace.manager(.anyAddress)
        let changes = Recorder<NetworkReachabilityManager.Status>()
        let notified = Recorder<NetworkReachabilityManager.Status>()
        let observer = NotificationCenter.default.addObserver(forName: .lupineReachabilityDidChange, object: manager, queue: nil) {
            notified.append($0.userInfo?[lupineReachabilityNotificationStatusItem] as? NetworkReachabilityManager.Status ?? .unknown)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let stream = manager.statusUpdates
        #expect(await nextStatus(of: stream) == .unknown)
        try manager.startMonitoring { changes.append($0) }
        #expect(await nextStatus(of: stream) == .reachable(.ethernetOrWiFi))
        #expect(manager.isReachable && manager.isReachableViaWiFi && !manager.isReachableViaWWAN)

        try await Self.expect(.notReachable, of: manager, from: stream) { try await namespace.deleteDefaultRouteNow() }
        #expect(!manager.isReachable)
        try await Self.expect(.reachable(.ethernetOrWiFi), of: manager, from: stream) { try await namespace.addDefaultRouteNow() }
        try await Self.expect(.notReachable, of: manager, from: stream) {
            try namespace.ip(["link", "set", "va", "down"])
            return nil
        }
        try await Self.expect(.reachable(.ethernetOrWiFi), of: manager, from: stream) {
            try namespace.ip(["link", "set", "va", "up"])
            return try await namespace.addDefaultRouteNow()
        }
        manager.stopMonitoring()
        manager.flushCallbacks()
        let expected: [NetworkReachabilityManager.Status] = [
            .reachable(.ethernetOrWiFi), .notReachable, .reachable(.ethernetOrWiFi), .notReachable, .reachable(.ethernetOrWiFi),
        ]
        #expect(changes.all == expected)
        #expect(notified.all == expected)
    }

    @Test func aChangeThatKeepsTheStatusIsNotReported() async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.delete() }
        let manager = namespace.manager(.anyAddress)
        let changes = Recorder<NetworkReachabilityManager.Status>()
        try manager.startMonitoring { changes.append($0) }
        let stream = manager.statusUpdates
        #expect(await firstKnownStatus(of: stream) == .reachable(.ethernetOrWiFi))
        // Addresses and a route elsewhere come and go; the default route stays.
        try namespace.ip(["addr", "add", "10.10.0.2/24", "dev", "vb"])
        try namespace.ip(["route", "add", "10.11.0.0/16", "via", "10.9.0.1"])
        try namespace.ip(["addr", "del", "10.10.0.2/24", "dev", "vb"])
        try await Self.expect(.notReachable, of: manager, from: stream) { try await namespace.deleteDefaultRouteNow() }
        manager.stopMonitoring()
        manager.flushCallbacks()
        #expect(changes.all == [.reachable(.ethernetOrWiFi), .notReachable])
    }

    @Test func aDomainManagerFollowsTheRouteToTheAddressItResolvesTo() async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.delete() }
        // The name resolves (in this test's resolver) to an address only the default route reaches.
        let resolutions = Recorder<String>()
        let resolver = DomainResolver { name in
            resolutions.append(name)
            return name == "service.reach.test" ? [IPAddress("10.77.0.5")].compactMap { $0 } : []
        }
        let manager = namespace.manager(try ReachabilityTarget.domain(checking: "service.reach.test"), resolver: resolver)
        let stream = manager.statusUpdates
        try manager.startMonitoring()
        #expect(await firstKnownStatus(of: stream) == .reachable(.ethernetOrWiFi))
        try await Self.expect(.notReachable, of: manager, from: stream) { try await namespace.deleteDefaultRouteNow() }
        // A route to its subnet alone is enough.
        try await Self.expect(.reachable(.ethernetOrWiFi), of: manager, from: stream) {
            try namespace.ip(["route", "add", "10.77.0.0/24", "via", "10.9.0.1"])
            return nil
        }
        manager.stopMonitoring()
        #expect(resolutions.all.count >= 3, "resolved again on each change")

        let unresolvable = namespace.manager(try ReachabilityTarget.domain(checking: "nothing.reach.test"), resolver: resolver)
        let nothing = unresolvable.statusUpdates
        try unresolvable.startMonitoring()
        #expect(await firstKnownStatus(of: nothing) == .notReachable)
    }

    @Test func loopbackIsReachableThroughLoInTheNamespace() async throws {
        let namespace = try NetworkNamespace(defaultRoute: false, loopbackUp: false)
        defer { namespace.delete() }
        let manager = namespace.manager(try ReachabilityTarget.address(checking: "127.0.0.1"))
        let stream = manager.statusUpdates
        try manager.startMonitoring()
        // A new namespace's lo is down: no route even to 127.0.0.1.
        #expect(await firstKnownStatus(of: stream) == .notReachable)
        try await Self.expect(.reachable(.ethernetOrWiFi), of: manager, from: stream) {
            try namespace.ip(["link", "set", "lo", "up"])
            return nil
        }
        let own = namespace.manager(try ReachabilityTarget.address(checking: "10.9.0.2"))
        let ownStream = own.statusUpdates
        try own.startMonitoring()
        #expect(await firstKnownStatus(of: ownStream) == .reachable(.ethernetOrWiFi))
        let v6 = namespace.manager(try ReachabilityTarget.address(checking: "::1"))
        let v6Stream = v6.statusUpdates
        try v6.startMonitoring()
        #expect(await firstKnownStatus(of: v6Stream) == .reachable(.ethernetOrWiFi))
    }
}

/// A flood of kernel events while the monitor is busy overflows its socket (`ENOBUFS`, shown by
/// `poll` as an error): the monitor must take that as "ask again", not as the end.
@Suite(.enabled(if: NetworkNamespace.isSupported, "network namespaces cannot be created here (needs root and ip netns)"))
struct NetlinkOverflowTests {
    @Test func theMonitorOutlivesAnEventFloodThatOverflowsItsSocket() async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.delete() }
        // A resolver that holds the monitor's thread while `holding` is set: events pile up.
        let holding = NIOLockedValueBox(false)
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let resolver = DomainResolver { _ in
            if holding.withLockedValue({ $0 }) {
                entered.signal()
                _ = release.wait(timeout: .now() + 30)
            }
            return [IPAddress("10.77.0.5")].compactMap { $0 }
        }
        let manager = namespace.manager(try ReachabilityTarget.domain(checking: "flood.reach.test"), resolver: resolver)
        let changes = Recorder<NetworkReachabilityManager.Status>()
        let stream = manager.statusUpdates
        try manager.startMonitoring { changes.append($0) }
        #expect(await firstKnownStatus(of: stream) == .reachable(.ethernetOrWiFi))

        holding.withLockedValue { $0 = true }
        try namespace.ip(["addr", "add", "10.20.255.1/32", "dev", "vb"])
        let held = try await onOwnThread { entered.wait(timeout: .now() + 10) == .success }
        #expect(held)
        // Thousands of messages (each address brings RTM_NEWADDR and a local route) against a
        // receive buffer of a few hundred kilobytes.
        let batch = try temporaryFile(
            Array((0..<3_000).map { "addr add 10.21.\($0 / 250).\($0 % 250 + 1)/32 dev vb\n" }.joined().utf8),
            name: "flood.ip"
        )
        try NetworkNamespace.ip(["-n", namespace.name, "-batch", batch.path])
        holding.withLockedValue { $0 = false }
        release.signal()

        try namespace.deleteDefaultRoute()
        #expect(await nextStatus(of: stream) == .notReachable)
        manager.stopMonitoring()
        manager.flushCallbacks()
        #expect(changes.all == [.reachable(.ethernetOrWiFi), .notReachable])
    }
}
