import Foundation
import LupineTestSupport
import Testing

@testable import Lupine

/// The namespace's default route added and deleted over rtnetlink by the test itself, as
/// `ip route add default via 10.9.0.1 dev va` and `ip route del default` send it: without an `ip`
/// process to start and wait for, the instant of the change is known to within one system call,
/// so how soon the monitor sees it can be timed on a loaded machine.
extension NetworkNamespace {
    /// Adds the default route; the instant just before the kernel was asked.
    func addDefaultRouteNow() async throws -> ContinuousClock.Instant {
        try await self.changeDefaultRoute(adding: true)
    }

    /// Deletes the default route; the instant just before the kernel was asked.
    func deleteDefaultRouteNow() async throws -> ContinuousClock.Instant {
        try await self.changeDefaultRoute(adding: false)
    }

    private func changeDefaultRoute(adding: Bool) async throws -> ContinuousClock.Instant {
        let path = self.path
        // On a thread of its own: it enters the namespace to open the socket, and ends with it.
        return try await onOwnThread {
            try NetlinkMonitorThread.enterNetworkNamespace(path)
            let socket = try NetlinkSocket(groups: 0)
            let interface = Int32(if_nametoindex("va"))
            let started = ContinuousClock.now
            let reply = socket.query(expectingParts: false) { sequence in
                Self.defaultRouteRequest(adding: adding, interface: interface, sequence: sequence)
            }
            guard reply == [.error(0)] else {
                throw WaitTimeout(description: "the kernel refused the route change: \(reply)")
            }
            return started
        }
    }

    /// `RTM_NEWROUTE` (unicast, main table, boot protocol, via 10.9.0.1 out of `interface`;
    /// create, exclusive, acknowledged) or `RTM_DELROUTE` (main table, any scope).
    private static func defaultRouteRequest(adding: Bool, interface: Int32, sequence: UInt32) -> [UInt8] {
        let body: [UInt8] =
            adding
            ? [2, 0, 0, 0, 254, 3, 0, 1, 0, 0, 0, 0] + NetlinkAttributes.encode(type: 5, value: [10, 9, 0, 1])
                + NetlinkAttributes.encode(type: 4, value: interface.nativeBytes)
            : [2, 0, 0, 0, 254, 0, 255, 0, 0, 0, 0, 0]
        let type: UInt16 = adding ? 24 : 25
        let flags: UInt16 = adding ? 0x605 : 0x5
        return UInt32(16 + body.count).nativeBytes + type.nativeBytes + flags.nativeBytes + sequence.nativeBytes + UInt32(0).nativeBytes + body
    }
}
