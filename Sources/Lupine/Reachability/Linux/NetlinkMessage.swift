/// The rtnetlink messages reachability reads (rtnetlink(7)), parsed from the bytes a netlink
/// socket received by ``parse(_:)``: a pure function, so it is tested on recorded kernel data.
/// Messages and attributes it does not know are skipped; a truncated message ends the parse
/// without being reported, and nothing in the input can make it trap.
package enum NetlinkMessage: Sendable, Equatable {
    /// A link was created or changed (`RTM_NEWLINK`), or described in a reply.
    case link(NetlinkLink)
    /// A link was removed (`RTM_DELLINK`).
    case linkRemoved(index: Int32)
    /// An IPv4 or IPv6 address was added or removed (`RTM_NEWADDR`, `RTM_DELADDR`).
    case addressChanged
    /// A route was added (`RTM_NEWROUTE`), or described in a reply.
    case route(NetlinkRoute)
    /// A route was removed (`RTM_DELROUTE`).
    case routeRemoved
    /// The end of a multi-part reply (`NLMSG_DONE`).
    case done
    /// An error reply (`NLMSG_ERROR`): a negative `errno`, or 0 for an acknowledgement.
    case error(Int32)

    /// One parsed message with the sequence number of the request it answers (0 for an event).
    package struct Envelope: Sendable, Equatable {
        package let sequence: UInt32
        package let message: NetlinkMessage
    }

    /// The kernel's message types (linux/rtnetlink.h, linux/netlink.h).
    enum Kind {
        static let error: UInt16 = 2
        static let done: UInt16 = 3
        static let newLink: UInt16 = 16
        static let deleteLink: UInt16 = 17
        static let getLink: UInt16 = 18
        static let newAddress: UInt16 = 20
        static let deleteAddress: UInt16 = 21
        static let newRoute: UInt16 = 24
        static let deleteRoute: UInt16 = 25
        static let getRoute: UInt16 = 26
    }

    /// The length of `struct nlmsghdr`.
    static let headerLength = 16

    /// Every message `bytes` hold whole, in order, without those of unknown types.
    package static func parse(_ bytes: [UInt8]) -> [Envelope] {
        var envelopes: [Envelope] = []
        var offset = 0
        while let length = bytes.integer(at: offset, as: UInt32.self).map(Int.init),
            let type = bytes.integer(at: offset + 4, as: UInt16.self),
            let sequence = bytes.integer(at: offset + 8, as: UInt32.self),
            length >= Self.headerLength, length <= bytes.count - offset
        {
            let body = (offset + Self.headerLength)..<(offset + length)
            if let message = Self.message(type: type, body: body, in: bytes) {
                envelopes.append(Envelope(sequence: sequence, message: message))
            }
            offset += NetlinkAttributes.aligned(length)
        }
        return envelopes
    }

    private static func message(type: UInt16, body: Range<Int>, in bytes: [UInt8]) -> NetlinkMessage? {
        switch type {
        case Kind.newLink:
            return NetlinkLink(body: body, in: bytes).map(NetlinkMessage.link)
        case Kind.deleteLink:
            return bytes.integer(at: body.lowerBound + 4, as: Int32.self, within: body).map { .linkRemoved(index: $0) }
        case Kind.newAddress, Kind.deleteAddress:
            return .addressChanged
        case Kind.newRoute:
            return NetlinkRoute(body: body, in: bytes).map(NetlinkMessage.route)
        case Kind.deleteRoute:
            return .routeRemoved
        case Kind.done:
            return .done
        case Kind.error:
            return bytes.integer(at: body.lowerBound, as: Int32.self, within: body).map(NetlinkMessage.error)
        default:
            return nil
        }
    }
}

/// A network interface as `struct ifinfomsg` and its attributes describe it.
package struct NetlinkLink: Sendable, Equatable {
    /// The interface index.
    package var index: Int32
    /// The hardware type (`ARPHRD_*`, linux/if_arp.h).
    package var hardwareType: UInt16
    /// The device flags (`IFF_*`, linux/if.h).
    package var flags: UInt32
    /// The interface name (`IFLA_IFNAME`), when the message has one.
    package var name: String?

    static let up: UInt32 = 0x1
    static let loopback: UInt32 = 0x8
    static let running: UInt32 = 0x40

    /// Up and operational (carrier present): what a packet can leave through.
    var isUsable: Bool { self.flags & Self.up != 0 && self.flags & Self.running != 0 }

    var isLoopback: Bool { self.flags & Self.loopback != 0 }

    package init(index: Int32, hardwareType: UInt16, flags: UInt32, name: String?) {
        self.index = index
        self.hardwareType = hardwareType
        self.flags = flags
        self.name = name
    }

    init?(body: Range<Int>, in bytes: [UInt8]) {
        let start = body.lowerBound
        guard body.count >= 16,
            let type = bytes.integer(at: start + 2, as: UInt16.self),
            let index = bytes.integer(at: start + 4, as: Int32.self),
            let flags = bytes.integer(at: start + 8, as: UInt32.self)
        else { return nil }
        self.init(index: index, hardwareType: type, flags: flags, name: nil)
        for attribute in NetlinkAttributes.parse((start + 16)..<body.upperBound, in: bytes) where attribute.type == 3 {
            // IFLA_IFNAME: a NUL-terminated string.
            let text = bytes[attribute.value].prefix { $0 != 0 }
            self.name = String(decoding: text, as: UTF8.self)
        }
    }
}

/// A route as `struct rtmsg` and its attributes describe it.
package struct NetlinkRoute: Sendable, Equatable {
    /// `AF_INET` or `AF_INET6`.
    package var family: UInt8
    /// The destination prefix length: 0 for a default route.
    package var destinationLength: UInt8
    /// The routing table (`RTA_TABLE` when present, else the header's).
    package var table: UInt32
    /// The route type (`RTN_*`): 1 unicast, 2 local.
    package var type: UInt8
    /// The output interface (`RTA_OIF`, or the first next hop of `RTA_MULTIPATH`).
    package var outputInterface: Int32?
    /// The metric (`RTA_PRIORITY`); lower is preferred.
    package var priority: UInt32

    static let unicast: UInt8 = 1
    static let local: UInt8 = 2
    static let localTable: UInt32 = 255

    package init(family: UInt8, destinationLength: UInt8, table: UInt32, type: UInt8, outputInterface: Int32?, priority: UInt32) {
        self.family = family
        self.destinationLength = destinationLength
        self.table = table
        self.type = type
        self.outputInterface = outputInterface
        self.priority = priority
    }

    init?(body: Range<Int>, in bytes: [UInt8]) {
        let start = body.lowerBound
        guard body.count >= 12 else { return nil }
        self.init(
            family: bytes[start],
            destinationLength: bytes[start + 1],
            table: UInt32(bytes[start + 4]),
            type: bytes[start + 7],
            outputInterface: nil,
            priority: 0
        )
        for attribute in NetlinkAttributes.parse((start + 12)..<body.upperBound, in: bytes) {
            let value = attribute.value
            switch attribute.type {
            case 4:  // RTA_OIF
                self.outputInterface = bytes.integer(at: value.lowerBound, as: Int32.self, within: value)
            case 6:  // RTA_PRIORITY
                self.priority = bytes.integer(at: value.lowerBound, as: UInt32.self, within: value) ?? 0
            case 9 where self.outputInterface == nil:  // RTA_MULTIPATH: struct rtnexthop, ifindex at 4
                self.outputInterface = bytes.integer(at: value.lowerBound + 4, as: Int32.self, within: value)
            case 15:  // RTA_TABLE
                self.table = bytes.integer(at: value.lowerBound, as: UInt32.self, within: value) ?? self.table
            default:
                break
            }
        }
    }
}
