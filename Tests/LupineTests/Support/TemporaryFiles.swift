import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A new, empty folder under the system's temporary folder, for one test's files.
func temporaryFolder() throws -> URL {
    let url = TemporaryFolders.run.appending(path: "lupine-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A file named `name` holding `contents`, in a new temporary folder.
func temporaryFile(_ contents: [UInt8], name: String) throws -> URL {
    let url = try temporaryFolder().appending(path: name)
    try Data(contents).write(to: url)
    return url
}

/// Where a test process keeps its temporary folders: `lupine-tests-PID` under the system's
/// temporary folder. A test cannot clean up after itself when it fails or is killed, so the
/// first use in a process removes the folders of earlier runs whose process is gone (and the
/// loose `lupine-test-*` folders of older versions, a day after they were made). Nothing else
/// under the temporary folder is touched.
enum TemporaryFolders {
    static let run: URL = {
        let manager = FileManager.default
        let root = manager.temporaryDirectory
        for name in (try? manager.contentsOfDirectory(atPath: root.path)) ?? [] where Self.isLeftOver(name, in: root) {
            try? manager.removeItem(at: root.appending(path: name))
        }
        return root.appending(path: "lupine-tests-\(getpid())")
    }()

    /// Whether `name` under `root` is a folder an earlier test run left behind.
    private static func isLeftOver(_ name: String, in root: URL) -> Bool {
        if name.hasPrefix("lupine-tests-"), let pid = pid_t(name.dropFirst("lupine-tests-".count)) {
            return pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH
        }
        guard name.hasPrefix("lupine-test-"),
            let modified = (try? FileManager.default.attributesOfItem(atPath: root.appending(path: name).path))?[.modificationDate] as? Date
        else { return false }
        return modified < Date(timeIntervalSinceNow: -86_400)
    }
}
