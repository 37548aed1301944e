import Foundation

extension NetworkReachabilityManager {
    /// Whether the manager's target can be reached, as AFNetworking's `AFNetworkReachabilityStatus`.
    public enum Status: Sendable, Hashable, CustomStringConvertible {
        /// Not known yet: monitoring has not started, or the kernel could not be asked.
        case unknown
        /// No route would carry a packet to the target.
        case notReachable
        /// A route would carry a packet to the target, over an interface of this kind.
        case reachable(ConnectionType)

        /// AFNetworking's words for the status (`AFStringFromNetworkReachabilityStatus`):
        /// "Unknown", "Not Reachable", "Reachable via WWAN" or "Reachable via WiFi".
        public var localizedDescription: String {
            switch self {
            case .unknown: return "Unknown"
            case .notReachable: return "Not Reachable"
            case .reachable(.cellular): return "Reachable via WWAN"
            case .reachable(.ethernetOrWiFi): return "Reachable via WiFi"
            }
        }

        /// The same as ``localizedDescription``.
        public var description: String { self.localizedDescription }
    }

    /// The kind of interface that carries traffic to a reachable target.
    public enum ConnectionType: Sendable, Hashable {
        /// Wired Ethernet, Wi-Fi, or the loopback interface.
        case ethernetOrWiFi
        /// A cellular (WWAN) modem.
        case cellular
    }
}

extension Notification.Name {
    /// Posted on each change of a ``NetworkReachabilityManager``'s status (AFNetworking's
    /// `AFNetworkingReachabilityDidChangeNotification`); the object is the manager and the user
    /// info holds the new ``NetworkReachabilityManager/Status`` under
    /// ``lupineReachabilityNotificationStatusItem``.
    public static let lupineReachabilityDidChange = Notification.Name("com.lupine.networking.reachability.change")
}

/// The user-info key of `Notification.Name.lupineReachabilityDidChange` holding the
/// new ``NetworkReachabilityManager/Status``: AFNetworking's `AFNetworkingReachabilityNotificationStatusItem`.
public let lupineReachabilityNotificationStatusItem = "AFNetworkingReachabilityNotificationStatusItem"
