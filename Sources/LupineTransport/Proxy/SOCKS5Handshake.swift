import NIOCore
import NIOPosix

/// The handshake of a tunnel through a SOCKS5 proxy (RFC 1928): it offers no authentication, and
/// user name and password (RFC 1929) when the proxy has credentials, then asks the proxy to
/// connect to the target, by name (`socks5h`: the proxy resolves it) or by address (`socks5`:
/// resolved here, before the handshake starts; a name that does not resolve fails as
/// ``TransportError/hostNotFound(host:)``). Replies 1 and 3 to 6 (the origin unreachable or
/// refusing) may pass on another try; the proxy's other refusals, and a reply that is not SOCKS5,
/// will not.
struct SOCKS5Handshake: ProxyHandshake {
    static let name = "the SOCKS5 handshake"

    /// Where the proxy is asked to connect.
    enum Target: Equatable {
        case name(String, port: Int)
        case address([UInt8], port: Int)
    }

    private enum Stage {
        case choosingMethod, authenticating, connecting, open
    }

    private let target: Target
    private let credentials: Proxy.Credentials?
    private var stage = Stage.choosingMethod

    init(target: Target, credentials: Proxy.Credentials?) {
        self.target = target
        self.credentials = credentials
    }

    /// The handshake through `proxy` to `host` and `port`, once the target is known: at once for
    /// an address or for `socks5h`, after a lookup here (on NIO's thread pool) otherwise.
    static func prepare(proxy: Proxy, host: String, port: Int, on eventLoop: any EventLoop) -> EventLoopFuture<SOCKS5Handshake> {
        let credentials = proxy.credentials
        if let address = ProxySettings.addressBytes(host) {
            return eventLoop.makeSucceededFuture(Self(target: .address(address, port: port), credentials: credentials))
        }
        if proxy.kind == .socks5h {
            return eventLoop.makeSucceededFuture(Self(target: .name(host, port: port), credentials: credentials))
        }
        return NIOThreadPool.singleton.runIfActive(eventLoop: eventLoop) {
            // Not the proxy's failure: the proxy was asked nothing.
            guard let address = Self.lookUp(host) else { throw TransportError.hostNotFound(host: host) }
            return Self(target: .address(address, port: port), credentials: credentials)
        }
    }

    /// The first address of `host` (IPv4 first, as SOCKS proxies commonly reach it), or `nil`.
    private static func lookUp(_ host: String) -> [UInt8]? {
        let addresses = DomainResolver.system.resolve(host)
        let v4 = addresses.lazy.compactMap { address -> [UInt8]? in
            if case .v4(let bytes) = address { return bytes }
            return nil
        }.first
        return v4
            ?? addresses.lazy.compactMap { address -> [UInt8]? in
                if case .v6(let bytes) = address { return bytes }
                return nil
            }.first
    }

    func start() -> ProxyHandshakeStep {
        if case .name(let name, _) = self.target, name.utf8.count > 255 {
            // RFC 1928 §5 carries a name in at most 255 bytes: cut, it would name another host.
            return .fail("the host name is longer than the 255 bytes SOCKS5 can carry; use socks5:// to resolve it here", mayPass: false)
        }
        let methods: [UInt8] = self.credentials == nil ? [0x00] : [0x00, 0x02]
        return .send([0x05, UInt8(methods.count)] + methods)
    }

    mutating func read(_ received: inout ByteBuffer) -> ProxyHandshakeStep {
        let bytes = Array(received.readableBytesView.prefix(262))
        switch self.stage {
        case .choosingMethod:
            guard bytes.count >= 2 else { return .wait }
            received.moveReaderIndex(forwardBy: 2)
            guard bytes[0] == 0x05 else { return .fail("it does not speak SOCKS5", mayPass: false) }
            switch bytes[1] {
            case 0x00:
                self.stage = .connecting
                return .send(self.connectRequest)
            case 0x02 where self.credentials != nil:
                guard let credentials = self.credentials else { return .fail("it asks for credentials", mayPass: false) }
                let user = Array(credentials.user.utf8)
                let password = Array(credentials.password.utf8)
                guard user.count <= 255, password.count <= 255 else {
                    return .fail("SOCKS5 carries a user name and a password of at most 255 bytes each", mayPass: false)
                }
                self.stage = .authenticating
                return .send([0x01, UInt8(user.count)] + user + [UInt8(password.count)] + password)
            case 0xFF, 0x02:
                return .fail(self.credentials == nil ? "it asks for credentials" : "it accepts none of the offered ways to authenticate", mayPass: false)
            default:
                return .fail("it chose an authentication method that was not offered", mayPass: false)
            }
        case .authenticating:
            guard bytes.count >= 2 else { return .wait }
            received.moveReaderIndex(forwardBy: 2)
            guard bytes[0] == 0x01 else { return .fail("its answer to the credentials is not SOCKS5", mayPass: false) }
            guard bytes[1] == 0x00 else { return .fail("it refused the credentials", mayPass: false) }
            self.stage = .connecting
            return .send(self.connectRequest)
        case .connecting:
            guard bytes.count >= 5 else { return .wait }
            guard bytes[0] == 0x05 else { return .fail("its reply is not SOCKS5", mayPass: false) }
            let addressLength: Int
            switch bytes[3] {
            case 0x01: addressLength = 4
            case 0x04: addressLength = 16
            case 0x03: addressLength = 1 + Int(bytes[4])
            default: return .fail("its reply names an unknown address type", mayPass: false)
            }
            let length = 4 + addressLength + 2
            guard bytes.count >= length else { return .wait }
            received.moveReaderIndex(forwardBy: length)
            guard bytes[1] == 0x00 else {
                // The origin unreachable or refusing (RFC 1928 §6: 1, 3 to 6) may answer another
                // try, as a direct connection that failed may; the proxy's own rules will not.
                return .fail(
                    "it could not connect to \(self.targetDescription) (\(Self.replyWords(bytes[1])))",
                    mayPass: [0x01, 0x03, 0x04, 0x05, 0x06].contains(bytes[1])
                )
            }
            self.stage = .open
            return .open
        case .open:
            return .open
        }
    }

    private var connectRequest: [UInt8] {
        switch self.target {
        case .name(let name, let port):
            let bytes = Array(name.utf8)
            return [0x05, 0x01, 0x00, 0x03, UInt8(bytes.count)] + bytes + [UInt8(port >> 8), UInt8(port & 0xFF)]
        case .address(let address, let port):
            return [0x05, 0x01, 0x00, address.count == 4 ? 0x01 : 0x04] + address + [UInt8(port >> 8), UInt8(port & 0xFF)]
        }
    }

    private var targetDescription: String {
        switch self.target {
        case .name(let name, let port): return "\(name):\(port)"
        case .address(let address, let port):
            return address.count == 4
                ? address.map(String.init).joined(separator: ".") + ":\(port)"
                : "[" + stride(from: 0, to: address.count, by: 2).map { String(Int(address[$0]) << 8 | Int(address[$0 + 1]), radix: 16) }.joined(separator: ":") + "]:\(port)"
        }
    }

    /// RFC 1928 §6's reply codes in words.
    private static func replyWords(_ code: UInt8) -> String {
        switch code {
        case 0x01: return "general failure"
        case 0x02: return "not allowed by its rules"
        case 0x03: return "network unreachable"
        case 0x04: return "host unreachable"
        case 0x05: return "connection refused"
        case 0x06: return "TTL expired"
        case 0x07: return "command not supported"
        case 0x08: return "address type not supported"
        default: return "reply code \(code)"
        }
    }
}
