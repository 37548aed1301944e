import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension BlockingSocket {
    /// Whether the peer sent bytes or closed within `milliseconds`.
    func isReadable(within milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    /// Reads and drops what the peer sends until it closes; true when it closed (an orderly end
    /// or a reset), false when it sent more than `limit` bytes or a read timed out first.
    func waitForClose(limit: Int = 1024 * 1024) -> Bool {
        var received = 0
        while received <= limit {
            do {
                let bytes = try read()
                if bytes.isEmpty { return true }
                received += bytes.count
            } catch Failure.system(_, ECONNRESET) {
                return true
            } catch {
                return false
            }
        }
        return false
    }

    /// Sends `bytes` one at a time, as a slowloris does, waiting up to `interval` milliseconds
    /// between bytes for the server to close the connection. Returns how many bytes went out before
    /// the server closed it, or nil when all of them went out and it is still open.
    func trickle(_ bytes: [UInt8], interval: Int32) -> Int? {
        for (index, byte) in bytes.enumerated() {
            do {
                try write([byte])
            } catch {
                return index
            }
            if isReadable(within: interval) {
                return index + 1
            }
        }
        return nil
    }
}
