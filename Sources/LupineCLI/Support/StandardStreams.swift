import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc

private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin

private let systemWrite = Darwin.write
#endif

/// Unbuffered writes to standard output: bytes go out exactly as given, as soon as given.
enum StandardOutput {
    /// Fills any of descriptors 0, 1 and 2 that the process was started without
    /// (`lupine get URL >&-`), as curl does: otherwise the first descriptor the event loops open
    /// takes number 1, and the body would be written into it. Standard input reads as empty
    /// (/dev/null); standard output and error become a pipe nobody reads, so whatever path leads
    /// there (`-o /dev/stdout`, `/proc/self/fd/1`, a link to either) fails to write (`EPIPE`)
    /// instead of vanishing with a success status, as into /dev/null; and direct writes fail with
    /// `EBADF` (``OutputError``). Call before any I/O is set up.
    static func reserveStandardDescriptors() {
        _ = Self.closedAtStart
    }

    /// The standard descriptors the process was started without, each now filled; found and
    /// filled once, on first use.
    private static let closedAtStart: [CInt] = {
        var closed: [CInt] = []
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) < 0 && errno == EBADF {
            closed.append(descriptor)
            var ends: [CInt] = [-1, -1]
            if descriptor != STDIN_FILENO, pipe(&ends) == 0 {
                // The reading end goes: a write then fails. dup2 replaces the reading end when it
                // took the free slot itself.
                if ends[1] != descriptor {
                    dup2(ends[1], descriptor)
                    close(ends[1])
                }
                if ends[0] != descriptor {
                    close(ends[0])
                }
                continue
            }
            let opened = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if opened >= 0 && opened != descriptor {
                dup2(opened, descriptor)
                close(opened)
            }
        }
        return closed
    }()

    /// Whether standard output is a terminal (then bodies may be formatted for a person).
    static var isTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// ``isTerminal``, asked once (it is checked before each write).
    private static let isTerminalAtStart = Self.isTerminal

    /// Writes `line` and a newline.
    ///
    /// - Throws: ``OutputError`` when the output is gone (a closed pipe) or full.
    static func writeLine(_ line: String) throws(OutputError) {
        try Self.write(Array((line + "\n").utf8))
    }

    /// Writes `bytes` whole to standard output.
    ///
    /// - Throws: ``OutputError`` when the output is gone (a closed pipe) or full.
    static func write(_ bytes: some Collection<UInt8>) throws(OutputError) {
        try Self.write(bytes, to: STDOUT_FILENO)
    }

    /// Writes `bytes` whole to `descriptor`, retrying after signals and short writes.
    static func write(_ bytes: some Collection<UInt8>, to descriptor: CInt) throws(OutputError) {
        let error: CInt? =
            bytes.withContiguousStorageIfAvailable { buffer in
                Self.writeAll(buffer, to: descriptor)
            } ?? Array(bytes).withUnsafeBufferPointer { Self.writeAll($0, to: descriptor) }
        if let error {
            throw OutputError(code: error)
        }
    }

    /// Writes the readable bytes of `buffer` whole to `descriptor`.
    static func write(_ buffer: ByteBuffer, to descriptor: CInt = STDOUT_FILENO) throws(OutputError) {
        let error = buffer.withUnsafeReadableBytes { raw in
            Self.writeAll(raw.bindMemory(to: UInt8.self), to: descriptor)
        }
        if let error {
            throw OutputError(code: error)
        }
    }

    /// `write(2)` until every byte is out; the `errno` that stopped it, if any. The first write
    /// to a standard output that is a terminal ends the activity spinner. A standard descriptor
    /// the process was started without takes nothing.
    private static func writeAll(_ buffer: UnsafeBufferPointer<UInt8>, to descriptor: CInt) -> CInt? {
        if Self.closedAtStart.contains(descriptor) {
            return EBADF
        }
        if descriptor == STDOUT_FILENO, Self.isTerminalAtStart {
            ActivitySpinner.finishAll()
        }
        var offset = 0
        while offset < buffer.count {
            guard let base = buffer.baseAddress else { return nil }
            let written = systemWrite(descriptor, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }
}

/// Messages on standard error. A message that cannot be written (stderr closed or full) is
/// dropped: it must never fail, let alone crash, the work it reports on.
enum StandardError {
    /// Writes `text` to standard error as it is, erasing the activity spinner's frame first.
    static func write(_ text: String) {
        ActivitySpinner.writeAbove(text)
    }
}

/// Output that could not be written: the reader closed the pipe, or the disk is full.
struct OutputError: Error, CustomStringConvertible {
    let code: CInt

    var description: String { "could not write the output: \(String(cString: strerror(self.code)))" }
}
