import Foundation
import Lupine
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
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint.path]
        try mount.run()
        mount.waitUntilExit()
        try #require(mount.terminationStatus == 0, "mount failed")
        defer {
            let unmount = Process()
            unmount.executableURL = URL(fileURLWithPath: "/bin/umount")
            unmount.arguments = [mountPoint.path]
            try? unmount.run()
            unmount.waitUntilExit()
        }
        try await withSessionManager { server, manager in
            manager.downloadDirectory = mountPoint
            await #expect {
                _ = try await manager.download(Request(url: server.baseURL.appending(path: "bytes/4000000")))
            } throws: { error in
                guard case LupineError.downloadFailed(.fileWriteFailed) = error else { return false }
                return true
            }
            let left = try FileManager.default.contentsOfDirectory(atPath: mountPoint.path)
            #expect(left.isEmpty)
        }
    }
}
