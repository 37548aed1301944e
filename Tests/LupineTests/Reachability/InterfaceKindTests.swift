import Foundation
import LupineTestSupport
import Testing

@testable import Lupine

/// The interface kind, from the kernel's markers: the recorded netlink link message and sysfs
/// trees laid out as the kernel lays out `/sys/class/net` for each kind of device (recorded
/// layouts, written into a temporary folder: the test machine has no Wi-Fi or modem).
@Suite struct InterfaceKindTests {
    /// A `/sys/class/net` copy holding `wlan0` (cfg80211: `phy80211` link and `uevent`
    /// DEVTYPE=wlan), `wlp2s0` (wireless extensions: a `wireless` folder), `wwan0` (a modem's
    /// network device: DEVTYPE=wwan) and `eth0` (a `uevent` without DEVTYPE).
    private static func recordedSysfs() throws -> URL {
        let root = try temporaryFolder()
        let files: [(String, String)] = [
            ("wlan0/uevent", "DEVTYPE=wlan\nINTERFACE=wlan0\nIFINDEX=3\n"),
            ("wlan0/phy80211/name", "phy0\n"),
            ("wlp2s0/uevent", "INTERFACE=wlp2s0\nIFINDEX=4\n"),
            ("wlp2s0/wireless/link", "0\n"),
            ("wwan0/uevent", "DEVTYPE=wwan\nINTERFACE=wwan0\nIFINDEX=5\n"),
            ("eth0/uevent", "INTERFACE=eth0\nIFINDEX=2\n"),
        ]
        for (path, contents) in files {
            let file = root.appending(path: path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: file)
        }
        return root
    }

    private static func recordedLink(_ bytes: [UInt8], named name: String) throws -> NetlinkLink {
        guard case .link(var link)? = NetlinkMessage.parse(bytes).first?.message else {
            throw WaitTimeout(description: "the recorded link did not parse")
        }
        link.name = name
        return link
    }

    @Test(arguments: [
        ("wlan0", InterfaceKind.wireless), ("wlp2s0", .wireless), ("wwan0", .cellular), ("eth0", .wired), ("absent0", .wired),
    ])
    func sysfsMarkersDecideTheKindOfAnEthernetLink(name: String, kind: InterfaceKind) throws {
        let sysfs = try Self.recordedSysfs()
        defer { try? FileManager.default.removeItem(at: sysfs) }
        let link = try Self.recordedLink(NetlinkFixtures.vethLink, named: name)
        #expect(InterfaceKind.classify(link, markers: InterfaceKind.markers(of: name, under: sysfs)) == kind)
    }

    @Test func aRawIPLinkIsCellularWithoutSysfsMarkers() throws {
        let link = try Self.recordedLink(NetlinkFixtures.rawIPLink, named: "rmnet0")
        #expect(link.hardwareType == 519)
        #expect(InterfaceKind.classify(link, markers: .init()) == .cellular)
        #expect(InterfaceKind.cellular.connectionType == .cellular)
        #expect(InterfaceKind.wireless.connectionType == .ethernetOrWiFi)
        #expect(InterfaceKind.loopback.connectionType == .ethernetOrWiFi)
    }

    @Test func aLoopbackLinkIsLoopbackWhateverSysfsSays() {
        let loopback = NetlinkLink(index: 1, hardwareType: 772, flags: 0x1 | 0x8 | 0x40, name: "lo")
        #expect(InterfaceKind.classify(loopback, markers: .init(isWireless: true, deviceType: "wwan")) == .loopback)
    }

    @Test(arguments: ["", ".", "..", "../wlan0", "wlan0/..", "a\0b", "averyveryverylongname"])
    func aNameThatIsNotAnInterfaceNameReadsNothing(name: String) throws {
        let sysfs = try Self.recordedSysfs()
        defer { try? FileManager.default.removeItem(at: sysfs) }
        // `../wlan0` from inside a device folder would reach the wireless one.
        #expect(InterfaceKind.markers(of: name, under: sysfs.appending(path: "eth0")) == .init())
    }

    @Test func theRealLoopbackInterfaceHasNoMarkers() {
        #expect(InterfaceKind.markers(of: "lo") == .init())
    }
}
