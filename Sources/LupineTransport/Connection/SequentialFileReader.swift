#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOPosix

/// Reads a file that cannot seek or tell its size (a FIFO, a character device, a `/proc` file)
/// from its start to its end with `read(2)` on NIO's thread pool, handing on each chunk as soon
/// as it is there, as curl does for such files.
///
/// Waiting holds no thread and can always be cancelled: a pool job only checks, without waiting,
/// whether data is there, and while none is the reader sleeps (1 ms at first, up to
/// ``longestPause``) before it checks again. On Linux a FIFO is opened without waiting for a
/// writer; the first read then waits for one instead, in the same way. The file closes when the
/// last copy of the reader is released.
struct SequentialFileReader: Sendable {
    /// The longest pause between two checks of a file that has no data yet.
    static let longestPause = Duration.milliseconds(50)

    let path: String
    private let file: ClosingFileHandle

    /// Opens the file at `path` for reading.
    static func open(path: String, isFIFO: Bool) async throws -> SequentialFileReader {
        let handle = try await NIOThreadPool.singleton.runIfActive {
            #if os(Linux)
            let flags: CInt = isFIFO ? O_NONBLOCK : 0
            #else
            let flags: CInt = 0
            #endif
            let handle = try NIOFileHandle(_deprecatedPath: path, mode: .read, flags: .posix(flags: flags, mode: 0))
            if flags != 0 {
                try handle.withUnsafeFileDescriptor { descriptor in
                    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
                }
            }
            return handle
        }
        return SequentialFileReader(path: path, file: ClosingFileHandle(handle))
    }

    /// The next bytes of the file, at most `maximumLength` of them, or `nil` at its end.
    func nextChunk(maximumLength: Int) async throws -> ByteBuffer? {
        var pause = Duration.milliseconds(1)
        while true {
            try Task.checkCancellation()
            let handle = self.file.handle
            let chunk = try await NIOThreadPool.singleton.runIfActive {
                try Self.readIfReady(handle, maximumLength: maximumLength)
            }
            switch chunk {
            case .notReady:
                try await Task.sleep(for: pause)
                pause = min(pause * 2, Self.longestPause)
            case .end:
                return nil
            case .bytes(let buffer):
                return buffer
            }
        }
    }

    private enum Chunk {
        case notReady
        case end
        case bytes(ByteBuffer)
    }

    /// Reads what is there, or reports that nothing is yet, without waiting.
    private static func readIfReady(_ handle: NIOFileHandle, maximumLength: Int) throws -> Chunk {
        try handle.withUnsafeFileDescriptor { descriptor in
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, 0)
            if ready == 0 || (ready < 0 && errno == EINTR) {
                return .notReady
            }
            guard ready > 0 else { throw IOError(errnoCode: errno, reason: "poll") }
            var buffer = ByteBufferAllocator().buffer(capacity: maximumLength)
            let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: maximumLength) { bytes in
                while true {
                    let count = read(descriptor, bytes.baseAddress, maximumLength)
                    if count >= 0 { return count }
                    if errno != EINTR { throw IOError(errnoCode: errno, reason: "read") }
                }
            }
            return count == 0 ? .end : .bytes(buffer)
        }
    }
}
