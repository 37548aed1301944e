import Foundation
import Lupine
import Testing

/// The manager's surface: AFNetworking's words and booleans, bad input refused where it enters,
/// start and stop twice, a kernel that cannot be watched, and a manager released while monitoring.
@Suite struct ReachabilityManagerTests {
    @Test func statusesReadAsAFNetworkingWritesThem() {
        #expect(NetworkReachabilityManager.Status.unknown.localizedDescription == "Unknown")
        #expect(NetworkReachabilityManager.Status.notReachable.localizedDescription == "Not Reachable")
        #expect(NetworkReachabilityManager.Status.reachable(.cellular).localizedDescription == "Reachable via WWAN")
        #expect(NetworkReachabilityManager.Status.reachable(.ethernetOrWiFi).description == "Reachable via WiFi")
        #expect(lupineReachabilityNotificationStatusItem == "AFNetworkingReachabilityNotificationStatusItem")
    }

    @Test(arguments: ["", " ", "exa mple.com", "example.com\n", "x\u{202E}y", "a\0b", "bad\r\nHost: x", String(repeating: "a", count: 254)])
    func anInvalidDomainIsATypedError(domain: String) {
        #expect {
            _ = try NetworkReachabilityManager(domain: domain)
        } throws: { error in
            guard case LupineError.reachabilityFailed(.invalidDomain(domain)) = error else { return false }
            let message = (error as? LupineError)?.description ?? ""
            return !message.contains("\n") && !message.contains("\r") && !message.contains("\0")
        }
    }

    @Test(arguments: ["", "localhost", "1.2.3.4.5", "127.0.0.1\0", "::g", "256.0.0.1", "127.0.0.1 "])
    func anInvalidAddressIsATypedError(address: String) {
        #expect {
            _ = try NetworkReachabilityManager(address: address)
        } throws: { error in
            guard case LupineError.reachabilityFailed(.invalidAddress(address)) = error else { return false }
            return true
        }
    }

    @Test func aNonASCIIDomainIsTakenAndDoesNotResolve() async throws {
        let manager = try NetworkReachabilityManager(domain: "bücher.invalid")
        let stream = manager.statusUpdates
        try manager.startMonitoring()
        #expect(await firstKnownStatus(of: stream) == .notReachable)
    }

    @Test func loopbackIsReachableOnThisHost() async throws {
        for address in ["127.0.0.1", "::1"] {
            let manager = try NetworkReachabilityManager(address: address)
            let stream = manager.statusUpdates
            try manager.startMonitoring()
            #expect(await firstKnownStatus(of: stream) == .reachable(.ethernetOrWiFi))
            #expect(manager.isReachableViaWiFi)
        }
    }

    @Test func startingTwiceAndStoppingTwiceChangeNothing() async throws {
        let manager = try NetworkReachabilityManager(address: "127.0.0.1")
        manager.stopMonitoring()
        #expect(!manager.isMonitoring && manager.status == .unknown)
        let first = Recorder<NetworkReachabilityManager.Status>()
        let second = Recorder<NetworkReachabilityManager.Status>()
        let stream = manager.statusUpdates
        try manager.startMonitoring { first.append($0) }
        let descriptors = manager.monitorDescriptors
        try manager.startMonitoring { second.append($0) }
        #expect(manager.monitorDescriptors == descriptors, "no second monitor")
        #expect(await firstKnownStatus(of: stream) == .reachable(.ethernetOrWiFi))
        manager.stopMonitoring()
        manager.stopMonitoring()
        #expect(!manager.isMonitoring)
        #expect(manager.status == .reachable(.ethernetOrWiFi))
        manager.flushCallbacks()
        #expect(first.all == [.reachable(.ethernetOrWiFi)])
        #expect(second.all.isEmpty)
        // And it starts again.
        try manager.startMonitoring()
        #expect(manager.isMonitoring)
    }

    @Test func aKernelThatCannotBeWatchedIsATypedErrorAndTheStatusStaysUnknown() {
        // The test seam's namespace: /dev/null is no namespace, so the monitor's thread cannot
        // enter it and opens no socket, the same path as a socket the kernel refuses.
        let manager = NetworkReachabilityManager(.anyAddress, namespacePath: "/dev/null")
        #expect {
            try manager.startMonitoring()
        } throws: { error in
            guard case LupineError.reachabilityFailed(.monitorUnavailable) = error else { return false }
            return (error as? LupineError)?.description.hasPrefix("the network cannot be watched: ") == true
        }
        #expect(manager.status == .unknown)
        #expect(!manager.isMonitoring)
    }

    @Test func aManagerReleasedWhileMonitoringClosesItsSocketsAndEndsItsStreams() async throws {
        var manager: NetworkReachabilityManager? = try NetworkReachabilityManager(address: "127.0.0.1")
        let stream = try #require(manager).statusUpdates
        try manager?.startMonitoring()
        #expect(await firstKnownStatus(of: stream) == .reachable(.ethernetOrWiFi))
        // The descriptors' targets (`socket:[inode]`, `pipe:[inode]`): a number may be reused
        // at once by another test running alongside, an inode may not. Two sockets and a pipe
        // (whose two ends share one inode).
        let held = Set((manager?.monitorDescriptors ?? []).compactMap(Self.target(of:)))
        #expect(held.count == 3)
        #expect(held.allSatisfy { Self.openTargets().contains($0) })
        // The callback queue holds the manager while it posts a notification: let it finish.
        manager?.flushCallbacks()
        manager = nil
        let open = Self.openTargets()
        #expect(held.isDisjoint(with: open), "still open: \(held.intersection(open))")
        #expect(await nextStatus(of: stream) == nil, "the stream ended")
    }

    private static func target(of descriptor: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
    }

    private static func openTargets() -> Set<String> {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Set(descriptors.compactMap { Int32($0).flatMap(Self.target(of:)) })
    }
}
