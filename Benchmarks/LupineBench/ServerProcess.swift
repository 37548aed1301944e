import Foundation
import LupineTestServer

/// A `LupineTestServer` in a child process (this benchmark run again with `--serve`), so that
/// the peak RSS the transfer rows report is the client's alone.
final class ServerProcess {
    let baseURL: URL
    let process: Process

    /// Starts the child (on core `core` when given) and waits for the URL it prints.
    init(pinnedTo core: Int? = nil) throws {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let output = Pipe()
        let process: Process
        if core != nil {
            process = try PinnedServer.pinned(executable, ["--serve"], output: output)
        } else {
            process = Process()
            process.executableURL = executable
            process.arguments = ["--serve"]
            process.standardOutput = output
            try process.run()
        }
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        guard let url = URL(string: String(decoding: line, as: UTF8.self)), url.host != nil else {
            process.terminate()
            throw BenchError.invalidURL(String(decoding: line, as: UTF8.self))
        }
        self.baseURL = url
        self.process = process
    }

    func stop() {
        self.process.terminate()
        self.process.waitUntilExit()
    }

    /// The child's side: serve until terminated, after printing the URL on its own line.
    static func serve() async throws -> Never {
        let server = try await LupineTestServer.start()
        FileHandle.standardOutput.write(Data((server.baseURL.absoluteString + "\n").utf8))
        while true {
            try await Task.sleep(for: .seconds(3600))
        }
    }
}
