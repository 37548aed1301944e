#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Loopback ports for the servers the benchmark starts.
enum FreePort {
    /// A port the kernel has just handed out for 127.0.0.1 (free at that moment).
    static func pick() throws -> Int {
        try Self.withSocket { socket, address in
            var bound = address
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &bound) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                    bind(socket, generic, length) == 0 && getsockname(socket, generic, &length) == 0
                }
            }
            guard named else { throw BenchError.serverDidNotStart }
            return Int(UInt16(bigEndian: bound.sin_port))
        }
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool {
        (try? Self.withSocket { socket, address in
            var target = address
            target.sin_port = UInt16(port).bigEndian
            return withUnsafePointer(to: &target) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
        }) ?? false
    }

    private static func withSocket<Result>(_ body: (Int32, sockaddr_in) throws -> Result) throws -> Result {
        #if canImport(Glibc)
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socket >= 0 else { throw BenchError.serverDidNotStart }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return try body(socket, address)
    }
}
