import Foundation
import NIOConcurrencyHelpers

#if os(Linux)
typealias PlatformReachabilityMonitor = NetlinkMonitorThread
#elseif canImport(Network)
typealias PlatformReachabilityMonitor = PathReachabilityMonitor
#endif

/// Watches whether the network, a host or an address can be reached, as AFNetworking's
/// `AFNetworkReachabilityManager`.
///
/// "Reachable" means what `SCNetworkReachability` means: a route exists that would carry a packet
/// to the target, not that the target answers. On Linux the kernel says so over an rtnetlink
/// socket: the manager sleeps until a link, address or route changes, then asks the kernel's
/// own route lookup again, and never polls. For ``shared`` (any address) that is a default route
/// on an up, non-loopback interface; for a domain, a route to one of its addresses (resolved again
/// on each change; a name that does not resolve is ``Status/notReachable``); for an address, a
/// route to it (loopback addresses through `lo`). The interface the route leaves through decides
/// the ``ConnectionType``: Wi-Fi and wired Ethernet are ``ConnectionType/ethernetOrWiFi``, a
/// cellular modem (WWAN) ``ConnectionType/cellular``. On Apple platforms `NWPathMonitor` answers.
///
/// ```swift
/// let reachability = try NetworkReachabilityManager(address: "127.0.0.1")
/// try reachability.startMonitoring { status in print(status.localizedDescription) }
/// ```
///
/// `status` is ``Status/unknown`` until monitoring has started and the first answer is in. Each
/// change (from ``Status/unknown`` to the first answer included) is reported once: to the closure
/// and the `Notification.Name.lupineReachabilityDidChange` notification, in order on
/// a serial queue the manager owns, and to every ``statusUpdates`` stream. A manager released
/// while monitoring stops, and its socket is closed.
///
/// `@unchecked Sendable`: the running monitor is in a lock; the status and listeners are in
/// `ReachabilityHub`'s; the rest is immutable.
public final class NetworkReachabilityManager: @unchecked Sendable {
    /// The manager for any address: whether the machine has a network at all. Not monitoring
    /// until ``startMonitoring(onStatusChange:)`` is called.
    public static let shared = NetworkReachabilityManager(.anyAddress)

    private let target: ReachabilityTarget
    private let namespacePath: String?
    private let resolver: DomainResolver
    private let hub = ReachabilityHub()
    private let monitor = NIOLockedValueBox<PlatformReachabilityMonitor?>(nil)

    /// A manager for the host `domain` (`"example.com"`), resolved when monitoring starts and
    /// again on each change of the network.
    ///
    /// - Throws: ``LupineError/reachabilityFailed(_:)`` with ``LupineError/ReachabilityFailureReason/invalidDomain(_:)``
    ///   when `domain` is empty, longer than 253 bytes, or holds whitespace, control or invisible
    ///   formatting characters.
    public convenience init(domain: String) throws(LupineError) {
        self.init(try .domain(checking: domain))
    }

    /// A manager for the IPv4 or IPv6 `address` (`"127.0.0.1"`, `"2001:db8::1"`).
    ///
    /// - Throws: ``LupineError/reachabilityFailed(_:)`` with ``LupineError/ReachabilityFailureReason/invalidAddress(_:)``
    ///   when `address` is not an IP address.
    public convenience init(address: String) throws(LupineError) {
        self.init(try .address(checking: address))
    }

    /// A manager for `target`. `namespacePath` (`/run/netns/NAME`) makes the Linux monitor watch
    /// that network namespace instead of the process's, and `resolver` stands in for the system's:
    /// seams for tests, which build their own networks.
    package init(_ target: ReachabilityTarget, namespacePath: String? = nil, resolver: DomainResolver = .system) {
        self.target = target
        self.namespacePath = namespacePath
        self.resolver = resolver
        self.hub.attach(to: self)
    }

    deinit {
        self.monitor.withLockedValue { $0 }?.stop()
        self.hub.finish()
    }

    // MARK: Status

    /// The last status the monitor found; ``Status/unknown`` before it has answered.
    public var status: Status { self.hub.status }

    /// Whether the target is reachable, over any interface.
    public var isReachable: Bool {
        if case .reachable = self.status { return true }
        return false
    }

    /// Whether the target is reachable over a cellular (WWAN) interface.
    public var isReachableViaWWAN: Bool { self.status == .reachable(.cellular) }

    /// Whether the target is reachable over Ethernet or Wi-Fi (or loopback).
    public var isReachableViaWiFi: Bool { self.status == .reachable(.ethernetOrWiFi) }

    /// A new stream of statuses: the current one first, then each change, until the manager is
    /// released. Every stream gets every change; stopping monitoring does not end them.
    public var statusUpdates: AsyncStream<Status> { self.hub.makeStream() }

    // MARK: Monitoring

    /// Whether the manager is monitoring.
    public var isMonitoring: Bool { self.monitor.withLockedValue { $0 != nil } }

    /// Starts monitoring; the first status follows shortly, reported as a change. `onStatusChange`
    /// is called with each change, on the manager's serial queue. Calling it while monitoring
    /// changes nothing (the first closure stays).
    ///
    /// - Throws: ``LupineError/reachabilityFailed(_:)`` with ``LupineError/ReachabilityFailureReason/monitorUnavailable(reason:)``
    ///   when the kernel cannot be watched (the netlink socket cannot be opened); ``status``
    ///   stays ``Status/unknown`` then.
    public func startMonitoring(onStatusChange: (@Sendable (Status) -> Void)? = nil) throws(LupineError) {
        let result: Result<Void, LupineError> = self.monitor.withLockedValue { running in
            guard running == nil else { return .success(()) }
            self.hub.setOnStatusChange(onStatusChange)
            let hub = self.hub
            do throws(LupineError) {
                running = try PlatformReachabilityMonitor.start(
                    self.target,
                    namespacePath: self.namespacePath,
                    resolver: self.resolver,
                    publish: { hub.publish($0) }
                )
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Stops monitoring; ``status`` keeps its last value. Calling it when not monitoring changes nothing.
    public func stopMonitoring() {
        self.monitor.withLockedValue { running in
            defer { running = nil }
            return running
        }?.stop()
    }

    /// When the monitor found the last change of ``status`` (for tests that time it, apart from
    /// how soon their own tasks run).
    package var lastStatusChange: ContinuousClock.Instant? { self.hub.changedAt }

    /// How many ``statusUpdates`` streams are listening (for tests that wait for a waiting task).
    package var statusStreamCount: Int { self.hub.streamCount }

    /// Returns once the closure and notifications of every change reported so far have run.
    package func flushCallbacks() {
        self.hub.queue.sync {}
    }

    /// The descriptors the running monitor holds open (Linux), for tests that check none leaks.
    package var monitorDescriptors: [Int32] {
        #if os(Linux)
        return self.monitor.withLockedValue { $0?.descriptors } ?? []
        #else
        return []
        #endif
    }
}
