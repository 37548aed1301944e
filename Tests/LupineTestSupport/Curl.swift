import Foundation

/// curl, the independent client tests check Lupine and its server against.
public enum Curl {
    /// Where Debian installs it.
    public static let executable = URL(fileURLWithPath: "/usr/bin/curl")

    /// Whether curl is installed, for `.enabled(if:)`.
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable.path) }

    /// What one run of curl left: its exit status and both outputs.
    public struct Run: Sendable {
        public let status: Int32
        public let stdout: Data
        public let stderr: String
    }

    /// Runs `curl ARGUMENTS` in a temporary folder of its own, removed afterwards.
    public static func run(_ arguments: [String]) async throws -> Run {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lupine-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (stdout, stderr) = (folder.appendingPathComponent("stdout"), folder.appendingPathComponent("stderr"))
        let exit = try await ChildProcess.start(executable, arguments, in: folder, stdout: stdout, stderr: stderr).wait()
        return Run(
            status: exit.status,
            stdout: try Data(contentsOf: stdout),
            stderr: String(decoding: (try? Data(contentsOf: stderr)) ?? Data(), as: UTF8.self)
        )
    }
}
