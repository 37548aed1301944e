import Foundation
import Lupine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A download into a device, FIFO or socket (`-o /dev/null`, `-o fifo`) or standard output
/// (`-o -`): the body is written into it as it streams, exactly, as `curl -o` does; the node
/// itself is never replaced. An error status writes nothing.
struct StreamDownload {
    let request: Request
    /// ``DownloadTarget/stream(_:)`` or ``DownloadTarget/standardOutput``.
    let target: DownloadTarget
    let manager: HTTPSessionManager
    let output: ExchangeOutput

    func run() async throws {
        let descriptor = try self.openTarget()
        defer {
            if descriptor != STDOUT_FILENO { close(descriptor) }
        }
        let (request, manager, output) = (self.request, self.manager, self.output)
        let spinner = ActivitySpinner.attach(to: manager, for: request)
        let transfer = Task {
            try await manager.stream(
                request,
                receiveHead: { head in
                    try output.show(head)
                    guard (200..<300).contains(head.statusCode) else {
                        throw LupineError.responseValidationFailed(.unacceptableStatusCode(code: head.statusCode, head: head, body: [], underlying: nil))
                    }
                },
                receiveChunk: { chunk in try StandardOutput.write(chunk, to: descriptor) }
            )
        }
        let watch = TerminationSignal.watch { _ in transfer.cancel() }
        defer { watch.stop() }
        do {
            _ = try await ActivitySpinner.running(spinner) { try await transfer.value }
        } catch {
            if let signal = watch.receivedSignal {
                throw HTTPExchange.fail("download stopped by \(TerminationSignal.name(of: signal))", code: TerminationSignal.exitStatus(for: signal))
            }
            throw HTTPExchange.failure(error)
        }
        if case .stream(let device) = self.target {
            StandardError.write("Written to \(LocalPath.shown(device))\n")
        }
    }

    /// The descriptor the body goes to.
    private func openTarget() throws -> CInt {
        guard case .stream(let device) = self.target else { return STDOUT_FILENO }
        let descriptor = open(device.path, O_WRONLY | O_NOCTTY)
        guard descriptor >= 0 else {
            throw HTTPExchange.fail("cannot write to \(LocalPath.shown(device)): \(String(cString: strerror(errno)))", code: 1)
        }
        return descriptor
    }
}
