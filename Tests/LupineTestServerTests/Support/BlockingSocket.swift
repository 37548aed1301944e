import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain blocking TCP socket, so tests can send exactly the bytes they mean and observe exactly
/// what the server writes. Every call blocks; run them through ``Blocking/run(_:)``.
struct BlockingSocket: Sendable {
    enum Failure: Error, Equatable {
        case invalidAddress(String)
        case system(call: String, errno: Int32)
        case timedOut
    }

    let descriptor: Int32

    /// Connects to `host` (an IPv4 or IPv6 literal) and `port`. Reads give up after `timeout`.
    static func open(host: String, port: Int, timeout: Int = 120) throws -> BlockingSocket {
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        var ipv4 = sockaddr_in()
        var ipv6 = sockaddr_in6()
        if inet_pton(AF_INET, host, &ipv4.sin_addr) == 1 {
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeBytes(of: ipv4) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            family = AF_INET
        } else if inet_pton(AF_INET6, host, &ipv6.sin6_addr) == 1 {
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeBytes(of: ipv6) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            family = AF_INET6
        } else {
            throw Failure.invalidAddress(host)
        }

        #if canImport(Glibc)
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(family, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure.system(call: "socket", errno: errno) }
        var receiveTimeout = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &receiveTimeout, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
        }
        guard result == 0 else {
            let error = errno
            close(descriptor)
            throw Failure.system(call: "connect", errno: error)
        }
        return BlockingSocket(descriptor: descriptor)
    }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, sendFlags)
            }
            guard written > 0 else { throw Failure.system(call: "send", errno: errno) }
            offset += written
        }
    }

    /// The next bytes the peer sent; empty at end of stream.
    func read(maximum: Int = 64 * 1024) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: maximum)
        let count = bytes.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, maximum, 0) }
        if count < 0 {
            let error = errno
            throw error == EAGAIN || error == EWOULDBLOCK ? Failure.timedOut : Failure.system(call: "recv", errno: error)
        }
        return Array(bytes[..<count])
    }

    func disconnect() {
        close(descriptor)
    }

    #if os(Linux)
    private var sendFlags: Int32 { Int32(MSG_NOSIGNAL) }
    #else
    private var sendFlags: Int32 { 0 }
    #endif
}

/// Runs blocking work on a thread of its own, keeping the cooperative pool free for the server.
enum Blocking {
    static func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result(catching: body))
            }
        }
    }
}
