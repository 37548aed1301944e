/// The requests reachability sends the kernel over rtnetlink, as bytes (pure, so tested without a socket).
enum NetlinkRequest {
    static let request: UInt16 = 0x1
    static let dump: UInt16 = 0x300

    /// `RTM_GETROUTE` for `address`: the kernel answers with the route a packet to it would take
    /// (`ip route get ADDRESS`), or an error when there is none.
    static func routeLookup(_ address: IPAddress, sequence: UInt32) -> [UInt8] {
        // struct rtmsg: family, destination length, then zeros; the address as RTA_DST.
        var body: [UInt8] = [UInt8(address.family), UInt8(address.bytes.count * 8)] + [UInt8](repeating: 0, count: 10)
        body += NetlinkAttributes.encode(type: 1, value: address.bytes)
        return self.message(type: NetlinkMessage.Kind.getRoute, flags: Self.request, sequence: sequence, body: body)
    }

    /// `RTM_GETROUTE` dumping every route of every family (`ip route show table all`).
    static func routeDump(sequence: UInt32) -> [UInt8] {
        self.message(type: NetlinkMessage.Kind.getRoute, flags: Self.request | Self.dump, sequence: sequence, body: [UInt8](repeating: 0, count: 12))
    }

    /// `RTM_GETLINK` for the interface numbered `index`.
    static func link(index: Int32, sequence: UInt32) -> [UInt8] {
        // struct ifinfomsg: family, pad, type, index, flags, change.
        let body = [UInt8](repeating: 0, count: 4) + index.nativeBytes + [UInt8](repeating: 0, count: 8)
        return self.message(type: NetlinkMessage.Kind.getLink, flags: Self.request, sequence: sequence, body: body)
    }

    /// A whole message: `struct nlmsghdr` (port 0: the kernel fills in the sender) and `body`.
    private static func message(type: UInt16, flags: UInt16, sequence: UInt32, body: [UInt8]) -> [UInt8] {
        let length = UInt32(NetlinkMessage.headerLength + body.count)
        return length.nativeBytes + type.nativeBytes + flags.nativeBytes + sequence.nativeBytes + UInt32(0).nativeBytes + body
    }
}
