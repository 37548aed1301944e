import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback TCP port that refuses connections for as long as this value lives: a socket is
/// bound to it but never listens, so no other test's server can take the port meanwhile (a port
/// freed by stopping a server can be handed to the next server that starts). With `silent`, the
/// socket listens but never accepts: a connection opens and a request goes out, and nothing ever
/// answers (a server that hangs).
final class ClosedPort: Sendable {
    let port: Int
    /// `http://127.0.0.1:PORT`.
    let url: URL
    private let descriptor: CInt

    init(silent: Bool = false) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound, !silent || listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        guard let url = URL(string: "http://127.0.0.1:\(port)") else {
            close(descriptor)
            throw POSIXError(.EINVAL)
        }
        self.descriptor = descriptor
        self.port = port
        self.url = url
    }

    deinit {
        close(self.descriptor)
    }
}

extension ClosedPort {
    /// For a `silent` port: on a thread of its own, accepts one connection, reads up to the end
    /// of the request's head, writes `bytes` and then says nothing more, holding the connection
    /// until the client closes it (a server that stalls mid-body).
    func answerOnceThenStall(with bytes: [UInt8]) {
        let listener = self.descriptor
        Thread {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !received.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) {
                let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                received += buffer[..<count]
            }
            var written = 0
            while written < bytes.count {
                let count = bytes.withUnsafeBytes { send(connection, $0.baseAddress.map { $0 + written }, $0.count - written, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { return }
                written += count
            }
            // Silent until the client goes: a read that ends, or fails, when it closes.
            while buffer.withUnsafeMutableBytes({ recv(connection, $0.baseAddress, $0.count, 0) }) > 0 {}
        }.start()
    }
}
