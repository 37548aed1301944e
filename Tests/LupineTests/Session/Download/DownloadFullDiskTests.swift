import Foundation
import Lupine
import LupineTestSupport
import LupineTestServer
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A download onto a full disk: a real, tiny tmpfs.
@Suite struct DownloadFullDiskTests {
    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func aFullDiskIsAClearErrorAndLeavesNoFile() async throws {
        let mountPoint = try temporaryFolder()
        try #require(await Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint.path]) == 0, "mount failed")
        do {
            try await Self.downloadOntoAFullDisk(mountPoint)
        } catch {
            _ = await Self.run("/bin/umount", [mountPoint.path])
            throw error
        }
        #expect(await Self.run("/bin/umount", [mountPoint.path]) == 0, "the tmpfs stays mounted")
    }

    /// The exit status of `command ARGUMENTS`.
    private static func run(_ command: String, _ arguments: [String]) async -> Int32 {
        let logs = FileManager.default.temporaryDirectory
        let child = try? ChildProcess.start(URL(fileURLWithPath: command), arguments, in: logs, stdout: nil, stderr: URL(fileURLWithPath: "/dev/null"))
        return await child?.wait().status ?? -1
    }

    private static func downloadOntoAFullDisk(_ mountPoint: URL) async throws {
        try await withSessionManager { server, manager in
            manager.downloadDirectory = mountPoint
            await #expect {
                _ = try await manager.download(Request(url: server.baseURL.appending(path: "bytes/4000000")))
            } throws: { error in
                guard case LupineError.downloadFailed(.fileWriteFailed) = error else { return false }
                // The system's words, once, and nothing of NIO's call or errno number.
                return "\(error)".hasSuffix(": no space left on device")
            }
            let left = try FileManager.default.contentsOfDirectory(atPath: mountPoint.path)
            #expect(left.isEmpty)
        }
    }
}
