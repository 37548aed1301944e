#if os(Linux)
import Glibc

/// A `NETLINK_ROUTE` socket (rtnetlink(7)): subscribed to change groups for events, or without
/// groups for queries. Used by the monitor thread alone; closed by ``close()`` or when released.
final class NetlinkSocket {
    /// Link changes, IPv4 and IPv6 address changes, IPv4 and IPv6 route changes (`RTMGRP_*`).
    static let changeGroups: UInt32 = 0x1 | 0x10 | 0x40 | 0x100 | 0x400

    private(set) var descriptor: Int32
    private var sequence: UInt32 = 0
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Opens and binds a socket listening to `groups` (0 for none).
    ///
    /// - Throws: ``LupineError/reachabilityFailed(_:)`` with ``LupineError/ReachabilityFailureReason/monitorUnavailable(reason:)``.
    init(groups: UInt32) throws(LupineError) {
        self.descriptor = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard self.descriptor >= 0 else {
            throw Self.failure("a netlink socket cannot be opened")
        }
        // struct sockaddr_nl (linux/netlink.h, not in Glibc's module): family, pad, port 0 (the
        // kernel assigns one), groups.
        let address = UInt16(AF_NETLINK).nativeBytes + UInt16(0).nativeBytes + UInt32(0).nativeBytes + groups.nativeBytes
        let bound = address.withUnsafeBytes { raw in
            bind(self.descriptor, raw.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        // A query never waits long for the kernel's answer.
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        guard bound == 0, setsockopt(self.descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            let error = Self.failure("the netlink socket cannot be bound")
            self.close()
            throw error
        }
    }

    deinit {
        self.close()
    }

    /// Closes the socket (once).
    func close() {
        if self.descriptor >= 0 {
            _ = Glibc.close(self.descriptor)
            self.descriptor = -1
        }
    }

    /// What one receive brings: messages, nothing more for now, or lost events.
    enum Received {
        case messages([NetlinkMessage.Envelope])
        case empty
        /// The kernel dropped events (`ENOBUFS`), or a datagram was larger than the buffer.
        case overrun
        case failed
    }

    /// Receives one datagram; without `waiting`, `.empty` when none is queued.
    func receive(waiting: Bool) -> Received {
        while true {
            let count = self.buffer.withUnsafeMutableBytes { raw in
                recv(self.descriptor, raw.baseAddress, raw.count, Int32(MSG_TRUNC) | (waiting ? 0 : Int32(MSG_DONTWAIT)))
            }
            if count < 0 {
                switch errno {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: return .empty
                case ENOBUFS: return .overrun
                default: return .failed
                }
            }
            guard count <= self.buffer.count else { return .overrun }
            return .messages(NetlinkMessage.parse(Array(self.buffer[..<count])))
        }
    }

    /// Sends the request `build` makes with a new sequence number and collects the replies to it:
    /// one message, or every part of a dump up to `NLMSG_DONE`. Empty when the kernel does not
    /// answer in time (a lost reply is not worth blocking the monitor for).
    func query(expectingParts: Bool, _ build: (UInt32) -> [UInt8]) -> [NetlinkMessage] {
        self.sequence &+= 1
        let sequence = self.sequence
        let request = build(sequence)
        let sent = request.withUnsafeBytes { send(self.descriptor, $0.baseAddress, $0.count, 0) }
        guard sent == request.count else { return [] }
        var replies: [NetlinkMessage] = []
        // Bounded: a dump of a large routing table takes a few hundred datagrams at most.
        for _ in 0..<10_000 {
            guard case .messages(let envelopes) = self.receive(waiting: true) else { return replies }
            for envelope in envelopes where envelope.sequence == sequence {
                switch envelope.message {
                case .done, .error:
                    return replies + [envelope.message]
                default:
                    replies.append(envelope.message)
                }
            }
            if !expectingParts, !replies.isEmpty { return replies }
        }
        return replies
    }

    private static func failure(_ what: String) -> LupineError {
        .reachabilityFailed(.monitorUnavailable(reason: "\(what): \(String(cString: strerror(errno)))"))
    }
}
#endif
