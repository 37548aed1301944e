#if os(Linux)
import Foundation

/// Answers whether a target is reachable by asking the kernel's routing, over a query socket:
/// the route a packet to the address would take (`RTM_GETROUTE` for it), or for any address a
/// default route; then the link that route leaves through, which must be up and running, and
/// whose kind (``InterfaceKind``) decides the connection type. Used by the monitor thread alone.
struct RouteEvaluator {
    let socket: NetlinkSocket
    let resolver: DomainResolver
    var sysfs = URL(fileURLWithPath: "/sys/class/net")

    /// The status of `target` now.
    func status(of target: ReachabilityTarget) -> NetworkReachabilityManager.Status {
        switch target {
        case .anyAddress:
            return self.defaultRouteStatus()
        case .address(let address):
            return self.status(of: address) ?? .notReachable
        case .domain(let name):
            // Resolved again on each change: a name's addresses may depend on the network.
            for address in self.resolver.resolve(name) {
                if let status = self.status(of: address) { return status }
            }
            return .notReachable
        }
    }

    /// Reachable through the route the kernel picks for `address`; `nil` without one.
    private func status(of address: IPAddress) -> NetworkReachabilityManager.Status? {
        let replies = self.socket.query(expectingParts: false) { NetlinkRequest.routeLookup(address, sequence: $0) }
        for case .route(let route) in replies where route.type == NetlinkRoute.unicast || route.type == NetlinkRoute.local {
            return route.outputInterface.flatMap { self.reachableStatus(through: $0, allowingLoopback: true) }
        }
        return nil
    }

    /// Reachable when a default route (IPv4 or IPv6, any table but the local one) leaves through
    /// an up, running interface other than loopback; the lowest metric decides the kind.
    private func defaultRouteStatus() -> NetworkReachabilityManager.Status {
        let routes = self.socket.query(expectingParts: true) { NetlinkRequest.routeDump(sequence: $0) }
            .compactMap { message -> NetlinkRoute? in
                guard case .route(let route) = message, route.destinationLength == 0, route.type == NetlinkRoute.unicast,
                    route.table != NetlinkRoute.localTable
                else { return nil }
                return route
            }
            .sorted { $0.priority < $1.priority }
        for route in routes {
            if let index = route.outputInterface, let status = self.reachableStatus(through: index, allowingLoopback: false) {
                return status
            }
        }
        return .notReachable
    }

    private func reachableStatus(through index: Int32, allowingLoopback: Bool) -> NetworkReachabilityManager.Status? {
        let replies = self.socket.query(expectingParts: false) { NetlinkRequest.link(index: index, sequence: $0) }
        for case .link(let link) in replies where link.index == index {
            guard link.isUsable, allowingLoopback || !link.isLoopback else { return nil }
            let markers = link.name.map { InterfaceKind.markers(of: $0, under: self.sysfs) } ?? InterfaceKind.Markers()
            return .reachable(InterfaceKind.classify(link, markers: markers).connectionType)
        }
        return nil
    }
}
#endif
