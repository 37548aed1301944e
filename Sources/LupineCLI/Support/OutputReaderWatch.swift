import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension StandardOutput {
    /// Returns once standard output is a pipe whose reader closed it (`poll(2)` reports
    /// `POLLERR` on its writing end) or a terminal that hung up; for a file or a socket, never
    /// (a socket's peer that closes raises no error until a write). A command that writes only now and then (`reachability --watch | head -1`) learns
    /// of it this way instead of at its next write, which may never come. Returns at once when
    /// the calling task is cancelled.
    ///
    /// A thread of its own waits in `poll`, so no Swift task is held; it stays for the life of
    /// the process.
    static func readerGone() async {
        let waiting = NIOLockedValueBox<CheckedContinuation<Void, Never>?>(nil)
        let resume: @Sendable () -> Void = {
            waiting.withLockedValue { continuation in
                continuation?.resume()
                continuation = nil
            }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiting.withLockedValue { $0 = continuation }
                if Task.isCancelled {
                    resume()
                    return
                }
                Thread.detachNewThread {
                    var descriptor = pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)
                    // With no event asked for, only an error or a hang-up wakes it.
                    while poll(&descriptor, 1, -1) < 0, errno == EINTR {}
                    resume()
                }
            }
        } onCancel: {
            resume()
        }
    }
}
