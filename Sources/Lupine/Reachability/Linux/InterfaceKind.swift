import Foundation

/// What kind of interface a route leaves through, from the kernel's markers: the link's hardware
/// type (netlink) and what sysfs says of the device.
package enum InterfaceKind: Sendable, Equatable {
    case loopback
    case wired
    case wireless
    case cellular

    /// What sysfs (`/sys/class/net/NAME/`) says of one interface.
    package struct Markers: Sendable, Equatable {
        /// `wireless/` or `phy80211` exists: a Wi-Fi device (cfg80211 or wireless extensions).
        package var isWireless = false
        /// `DEVTYPE=` of its `uevent` file: `wlan`, `wwan` (a cellular modem's network device), …
        package var deviceType: String?

        package init(isWireless: Bool = false, deviceType: String? = nil) {
            self.isWireless = isWireless
            self.deviceType = deviceType
        }
    }

    /// `ARPHRD_LOOPBACK`.
    static let loopbackHardware: UInt16 = 772
    /// `ARPHRD_RAWIP`: raw IP without a link layer, what cellular modems' network devices
    /// (qmi_wwan in raw-IP mode, rmnet, MHI) register as.
    static let rawIPHardware: UInt16 = 519

    /// The kind of `link`, given sysfs's `markers` for it.
    package static func classify(_ link: NetlinkLink, markers: Markers) -> InterfaceKind {
        if link.isLoopback || link.hardwareType == Self.loopbackHardware {
            return .loopback
        }
        if markers.isWireless || markers.deviceType == "wlan" {
            return .wireless
        }
        if markers.deviceType == "wwan" || link.hardwareType == Self.rawIPHardware {
            return .cellular
        }
        return .wired
    }

    /// The connection type a reachable status reports for this kind.
    var connectionType: NetworkReachabilityManager.ConnectionType {
        self == .cellular ? .cellular : .ethernetOrWiFi
    }

    /// Reads the markers of the interface `name` under `root` (the host's `/sys/class/net`
    /// unless a test gives a recorded copy). A name that is not a plain interface name (empty,
    /// `.`, `..`, a `/`, a NUL, over 15 bytes) reads nothing.
    package static func markers(of name: String, under root: URL = URL(fileURLWithPath: "/sys/class/net")) -> Markers {
        guard !name.isEmpty, name != ".", name != "..", name.utf8.count <= 15,
            !name.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == 0 })
        else { return Markers() }
        let device = root.appending(path: name, directoryHint: .isDirectory)
        let fileManager = FileManager.default
        var markers = Markers()
        markers.isWireless =
            fileManager.fileExists(atPath: device.appending(path: "wireless").path)
            || fileManager.fileExists(atPath: device.appending(path: "phy80211").path)
        if let handle = try? FileHandle(forReadingFrom: device.appending(path: "uevent")),
            let data = try? handle.read(upToCount: 4096)
        {
            try? handle.close()
            markers.deviceType = Self.deviceType(inUevent: String(decoding: data, as: UTF8.self))
        }
        return markers
    }

    /// The value of `DEVTYPE=` in a `uevent` file's `KEY=value` lines.
    static func deviceType(inUevent text: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("DEVTYPE=") {
            return String(line.dropFirst("DEVTYPE=".count))
        }
        return nil
    }
}
