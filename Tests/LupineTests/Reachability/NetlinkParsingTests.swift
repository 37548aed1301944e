import Foundation
import Testing

@testable import Lupine

/// The rtnetlink parser and request builder on recorded kernel data: what reachability reads is
/// read right, what it does not know is skipped, and no input makes it trap.
@Suite struct NetlinkParsingTests {
    @Test func aRecordedLinkMessageGivesIndexTypeFlagsAndName() throws {
        let envelopes = NetlinkMessage.parse(NetlinkFixtures.vethLink)
        #expect(envelopes.count == 1)
        let envelope = try #require(envelopes.first)
        #expect(envelope.sequence == 7)
        guard case .link(let link) = envelope.message else {
            Issue.record("not a link: \(envelope.message)")
            return
        }
        #expect(link.index == 3)
        #expect(link.hardwareType == 1)  // ARPHRD_ETHER
        #expect(link.name == "va")
        #expect(link.isUsable)
        #expect(!link.isLoopback)
    }

    @Test func aRecordedRouteReplyGivesTheOutputInterface() throws {
        let envelope = try #require(NetlinkMessage.parse(NetlinkFixtures.routeReply).first)
        #expect(envelope.sequence == 8)
        #expect(
            envelope.message
                == .route(NetlinkRoute(family: 2, destinationLength: 32, table: 254, type: 1, outputInterface: 3, priority: 0))
        )
    }

    @Test func aRecordedUnreachableReplyIsAnError() {
        #expect(NetlinkMessage.parse(NetlinkFixtures.unreachableReply) == [.init(sequence: 9, message: .error(-101))])
    }

    @Test func messagesOfUnknownTypesAreSkippedBetweenKnownOnes() {
        // NLMSG_NOOP (1), then RTM_NEWNEIGH (28) with a body, then the recorded error.
        let noop = Self.header(length: 16, type: 1, sequence: 1)
        let neighbour = Self.header(length: 24, type: 28, sequence: 2) + [UInt8](repeating: 0xEE, count: 8)
        let parsed = NetlinkMessage.parse(noop + neighbour + NetlinkFixtures.unreachableReply)
        #expect(parsed == [.init(sequence: 9, message: .error(-101))])
    }

    @Test func unknownAndMalformedAttributesAreSkippedOrEndTheList() throws {
        var link = NetlinkFixtures.vethLink
        // The first attribute (at 32) is IFLA_IFNAME "va"; give it type 0x7FFF, unknown.
        link[34] = 0xFF
        link[35] = 0x7F
        guard case .link(let renamed)? = NetlinkMessage.parse(link).first?.message else {
            Issue.record("the link was dropped")
            return
        }
        #expect(renamed.name == nil)
        #expect(renamed.index == 3)
        // An attribute claiming 2 bytes (under its own header) ends the attribute list, no more.
        link = NetlinkFixtures.vethLink
        link[32] = 2
        link[33] = 0
        guard case .link(let cut)? = NetlinkMessage.parse(link).first?.message else {
            Issue.record("the link was dropped")
            return
        }
        #expect(cut.name == nil && cut.index == 3)
    }

    @Test func everyTruncationOfRecordedDataParsesWithoutTrapping() {
        let all = NetlinkFixtures.vethLink + NetlinkFixtures.routeReply + NetlinkFixtures.unreachableReply
        for length in 0...all.count {
            let parsed = NetlinkMessage.parse(Array(all.prefix(length)))
            // Only whole messages come out.
            let whole = [NetlinkFixtures.vethLink.count, NetlinkFixtures.vethLink.count + NetlinkFixtures.routeReply.count, all.count]
            #expect(parsed.count == whole.filter { $0 <= length }.count)
        }
    }

    @Test func hostileLengthsNeverTrap() {
        // A length past the end, a length under the header, a huge length, an odd length.
        for length in [UInt32(0), 1, 15, 17, 0xFFFF_FFFF, 0x8000_0000] {
            let bytes = Self.header(length: length, type: 16, sequence: 1) + [UInt8](repeating: 0xFF, count: 40)
            _ = NetlinkMessage.parse(bytes)
        }
        // A link body shorter than `struct ifinfomsg`, a route body shorter than `struct rtmsg`.
        #expect(NetlinkMessage.parse(Self.header(length: 20, type: 16, sequence: 1) + [0, 0, 1, 0]).isEmpty)
        #expect(NetlinkMessage.parse(Self.header(length: 20, type: 24, sequence: 1) + [2, 0, 0, 0]).isEmpty)
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let count = Int.random(in: 0..<200, using: &random)
            _ = NetlinkMessage.parse((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) })
        }
    }

    @Test func aRouteLookupRequestIsWhatTheKernelTakes() throws {
        let address = try #require(IPAddress("10.77.0.5"))
        let request = NetlinkRequest.routeLookup(address, sequence: 8)
        // struct nlmsghdr: 36 bytes, RTM_GETROUTE, NLM_F_REQUEST, sequence 8.
        #expect(request.integer(at: 0, as: UInt32.self) == 36)
        #expect(request.integer(at: 4, as: UInt16.self) == 26)
        #expect(request.integer(at: 6, as: UInt16.self) == 1)
        #expect(request.integer(at: 8, as: UInt32.self) == 8)
        // struct rtmsg: AF_INET, /32; RTA_DST with the address.
        #expect(Array(request[16..<18]) == [2, 32])
        #expect(Array(request[28...]) == [8, 0, 1, 0, 10, 77, 0, 5])
        let v6 = NetlinkRequest.routeLookup(try #require(IPAddress("::1")), sequence: 1)
        #expect(v6.count == 16 + 12 + 20 && v6[16] == 10 && v6[17] == 128 && v6.last == 1)
    }

    @Test(arguments: ["", "1.2.3", "1.2.3.4.5", "999.1.1.1", "127.0.0.1\0junk", "fe80::1%eth0", "localhost", " 127.0.0.1"])
    func notAnAddress(_ text: String) {
        #expect(IPAddress(text) == nil)
    }

    private static func header(length: UInt32, type: UInt16, sequence: UInt32) -> [UInt8] {
        length.nativeBytes + type.nativeBytes + UInt16(0).nativeBytes + sequence.nativeBytes + UInt32(0).nativeBytes
    }
}
