import FuzzSupport

/// Fuzzes the rtnetlink message parser reachability reads on Linux (`NetlinkMessage.parse`,
/// `NetlinkAttributes`, Sources/Lupine/Reachability/Linux).
///
/// Its API is `package`, which neither `@testable import` nor another package reaches, so this
/// target compiles the parser's own source files (symbolic links to NetlinkMessage.swift and
/// NetlinkAttributes.swift, which import nothing) into itself.
///
/// Input: the first byte picks the mode. Even: the rest is a datagram as the kernel would send
/// it. Odd: the rest describes links and routes, which are encoded as the kernel encodes them.
///
/// Properties:
/// - nothing in the input makes it trap (its documented promise), and it never reports more
///   messages than 16-byte headers fit in the input;
/// - a datagram cut after its last whole message parses to the same messages;
/// - round trip: links (index, type, flags, name) and routes (family, prefix, table, type,
///   output interface, priority) encoded with `NetlinkAttributes.encode` parse back equal,
///   with their sequence numbers.
/// The entry point SwiftPM links as `main` (see `runLibFuzzer`).
@_cdecl("FuzzNetlink_main")
public func fuzzNetlinkMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    if input.byte() & 1 == 0 {
        let bytes = input.rest()
        let envelopes = NetlinkMessage.parse(bytes)
        require(envelopes.count <= bytes.count / NetlinkMessage.headerLength, "\(envelopes.count) messages from \(bytes.count) bytes")
        if let cut = lastWholeMessageEnd(bytes), cut < bytes.count {
            require(NetlinkMessage.parse(Array(bytes[..<cut])) == envelopes, "cutting trailing bytes changed the messages")
        }
    } else {
        var datagram: [UInt8] = []
        var expected: [NetlinkMessage.Envelope] = []
        for sequence in 0..<UInt32(input.int(in: 1...6)) {
            let (message, body, type) = makeMessage(&input)
            datagram += header(length: 16 + body.count, type: type, sequence: sequence) + body
            datagram += [UInt8](repeating: 0, count: NetlinkAttributes.aligned(datagram.count) - datagram.count)
            expected.append(NetlinkMessage.Envelope(sequence: sequence, message: message))
        }
        let parsed = NetlinkMessage.parse(datagram)
        require(parsed == expected, "netlink round trip: \(parsed) instead of \(expected) from \(hex(datagram.prefix(128)))")
    }
    return 0
}

/// Where the parse stops reading: the end of the last message whose header and length fit.
private func lastWholeMessageEnd(_ bytes: [UInt8]) -> Int? {
    var offset = 0
    var end: Int?
    while let length = bytes.integer(at: offset, as: UInt32.self).map(Int.init), bytes.integer(at: offset + 8, as: UInt32.self) != nil,
        length >= 16, length <= bytes.count - offset
    {
        end = offset + length
        offset += NetlinkAttributes.aligned(length)
    }
    return end
}

private func header(length: Int, type: UInt16, sequence: UInt32) -> [UInt8] {
    UInt32(length).nativeBytes + type.nativeBytes + UInt16(0).nativeBytes + sequence.nativeBytes + UInt32(0).nativeBytes
}

private func makeMessage(_ input: inout FuzzInput) -> (NetlinkMessage, [UInt8], UInt16) {
    func int32(_ input: inout FuzzInput) -> Int32 { Int32(bitPattern: UInt32(input.byte()) << 24 | UInt32(input.byte())) }
    switch input.int(in: 0...3) {
    case 0:
        // ifinfomsg: family, pad, type, index, flags, change; then IFLA_IFNAME.
        let type = UInt16(input.byte()) << 8 | UInt16(input.byte())
        let index = int32(&input)
        let flags = UInt32(input.byte()) << 24 | UInt32(input.byte())
        let name = String(decoding: input.chunk(maximum: 15).filter { $0 != 0 && $0 < 0x80 }, as: UTF8.self)
        var body: [UInt8] = [0, 0] + type.nativeBytes + index.nativeBytes + flags.nativeBytes + UInt32(0).nativeBytes
        let hasName = input.bool()
        if hasName {
            body += NetlinkAttributes.encode(type: 3, value: Array(name.utf8) + [0])
        }
        body += NetlinkAttributes.encode(type: 4, value: [1, 2, 3, 4])  // IFLA_MTU, ignored
        return (.link(NetlinkLink(index: index, hardwareType: type, flags: flags, name: hasName ? name : nil)), body, 16)
    case 1:
        // rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags; then attributes.
        let family = input.byte(), destinationLength = input.byte(), table = input.byte(), type = input.byte()
        var body: [UInt8] = [family, destinationLength, 0, 0, table, 0, 0, type, 0, 0, 0, 0]
        var route = NetlinkRoute(family: family, destinationLength: destinationLength, table: UInt32(table), type: type, outputInterface: nil, priority: 0)
        if input.bool() {
            let oif = int32(&input)
            body += NetlinkAttributes.encode(type: 4, value: oif.nativeBytes)
            route.outputInterface = oif
        }
        if input.bool() {
            let priority = UInt32(input.byte()) << 16 | UInt32(input.byte())
            body += NetlinkAttributes.encode(type: 6, value: priority.nativeBytes)
            route.priority = priority
        }
        if input.bool() {
            let fullTable = UInt32(input.byte()) << 8 | UInt32(input.byte())
            body += NetlinkAttributes.encode(type: 15, value: fullTable.nativeBytes)
            route.table = fullTable
        }
        return (.route(route), body, 24)
    case 2:
        let index = int32(&input)
        return (.linkRemoved(index: index), [0, 0, 0, 0] + index.nativeBytes + [UInt8](repeating: 0, count: 8), 17)
    default:
        let code = int32(&input)
        return (.error(code), code.nativeBytes + [UInt8](repeating: 0, count: 16), 2)
    }
}
