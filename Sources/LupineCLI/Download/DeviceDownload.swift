import Foundation
import Lupine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A download into a device, FIFO or socket (`-o /dev/null`, `-o fifo`): the body is written
/// into it as it streams, as `curl -o` does; the node itself is never replaced. An error status
/// writes nothing.
struct DeviceDownload {
    let request: Request
    let device: URL
    let manager: HTTPSessionManager

    func run() async throws {
        let descriptor = open(self.device.path, O_WRONLY | O_NOCTTY)
        guard descriptor >= 0 else {
            throw HTTPExchange.fail("cannot write to \(self.device.path): \(String(cString: strerror(errno)))", code: 1)
        }
        defer { close(descriptor) }
        let (request, manager) = (self.request, self.manager)
        let transfer = Task {
            try await manager.stream(
                request,
                receiveHead: { head in
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
            _ = try await transfer.value
        } catch let error as LupineError {
            if let signal = watch.receivedSignal {
                throw HTTPExchange.fail("download stopped by \(TerminationSignal.name(of: signal))", code: TerminationSignal.exitStatus(for: signal))
            }
            throw HTTPExchange.fail(error.description, code: HTTPExchange.exitCode(for: error))
        }
        FileHandle.standardError.write(Data("Written to \(self.device.path)\n".utf8))
    }
}
