#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Resolves a host name with one `getaddrinfo` call on NIO's thread pool, answering both the A and
/// AAAA queries of NIO's happy-eyeballs connector from it, and records the lookup's timing.
final class TimedResolver: Resolver, Sendable {
    private let eventLoop: any EventLoop
    private let metrics: MetricsRecorder
    private let lookup: NIOLockedValueBox<EventLoopFuture<[SocketAddress]>?>

    init(eventLoop: any EventLoop, metrics: MetricsRecorder) {
        self.eventLoop = eventLoop
        self.metrics = metrics
        self.lookup = NIOLockedValueBox(nil)
    }

    func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        self.addresses(host: host, port: port).map { $0.filter { $0.protocol == .inet } }
    }

    func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        self.addresses(host: host, port: port).map { $0.filter { $0.protocol == .inet6 } }
    }

    func cancelQueries() {}

    private func addresses(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        self.lookup.withLockedValue { lookup in
            if let lookup { return lookup }
            let metrics = self.metrics
            metrics.mark(.domainLookupStart)
            let future = NIOThreadPool.singleton.runIfActive(eventLoop: self.eventLoop) {
                defer { metrics.mark(.domainLookupEnd) }
                return try Self.resolve(host: host, port: port)
            }
            lookup = future
            return future
        }
    }

    private static func resolve(host: String, port: Int) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw TransportError.hostNotFound(host: host)
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let address = entry.pointee.ai_addr {
                switch entry.pointee.ai_family {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                        addresses.append(SocketAddress($0.pointee, host: host))
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        addresses.append(SocketAddress($0.pointee, host: host))
                    }
                default:
                    break
                }
            }
            cursor = entry.pointee.ai_next
        }
        return addresses
    }
}
