#if canImport(Network) && !os(Linux)
import Dispatch
import Network

/// The Apple-platform monitor: `NWPathMonitor`, Apple's replacement for `SCNetworkReachability`,
/// on a queue of its own. It watches the machine's path, not a route to one host, so a domain or
/// an address target follows the path too; a loopback address is always reachable.
///
/// `@unchecked Sendable`: `NWPathMonitor` may be cancelled from any thread; it is set in `init` only.
final class PathReachabilityMonitor: @unchecked Sendable {
    private let monitor: NWPathMonitor

    private init(monitor: NWPathMonitor) {
        self.monitor = monitor
    }

    /// Starts watching the path; `namespacePath` and `resolver` are Linux test seams, unused here.
    static func start(
        _ target: ReachabilityTarget,
        namespacePath: String?,
        resolver: DomainResolver,
        publish: @escaping @Sendable (NetworkReachabilityManager.Status) -> Void
    ) throws(LupineError) -> PathReachabilityMonitor {
        let monitor = NWPathMonitor()
        monitor.pathUpdateHandler = { path in
            publish(Self.status(of: path, for: target))
        }
        monitor.start(queue: DispatchQueue(label: "com.lupine.reachability.path"))
        return PathReachabilityMonitor(monitor: monitor)
    }

    func stop() {
        self.monitor.cancel()
    }

    private static func status(of path: NWPath, for target: ReachabilityTarget) -> NetworkReachabilityManager.Status {
        if case .address(let address) = target, address.isLoopback {
            return .reachable(.ethernetOrWiFi)
        }
        guard path.status == .satisfied else { return .notReachable }
        return .reachable(path.usesInterfaceType(.cellular) ? .cellular : .ethernetOrWiFi)
    }
}

extension IPAddress {
    /// `127.0.0.0/8` or `::1`.
    fileprivate var isLoopback: Bool {
        switch self {
        case .v4(let bytes): return bytes.first == 127
        case .v6(let bytes): return bytes == [UInt8](repeating: 0, count: 15) + [1]
        }
    }
}
#endif
