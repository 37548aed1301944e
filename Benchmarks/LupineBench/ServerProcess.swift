import Foundation
import LupineTestServer

/// A `LupineTestServer` in a child process (this benchmark run again with `--serve`), so that
/// the peak RSS the transfer rows report is the client's alone.
final class ServerProcess {
    let baseURL: URL
    /// Its fault listener's URL (HTTP/1.1 always).
    let faultsURL: URL
    let process: Process

    /// Starts the child (on core `core` when given; speaking h2c when `http2`) and waits for the
    /// URLs it prints.
    init(pinnedTo core: Int? = nil, http2: Bool = false) throws {
        let arguments = [http2 ? "--serve-h2" : "--serve"]
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let output = Pipe()
        let process: Process
        if core != nil {
            process = try PinnedServer.pinned(executable, arguments, output: output)
        } else {
            process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.standardOutput = output
            try process.run()
        }
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        let urls = String(decoding: line, as: UTF8.self).split(separator: " ").compactMap { URL(string: String($0)) }
        guard urls.count == 2, let url = urls.first, url.host != nil else {
            process.terminate()
            throw BenchError.invalidURL(String(decoding: line, as: UTF8.self))
        }
        self.baseURL = url
        self.faultsURL = urls[1]
        self.process = process
    }

    func stop() {
        self.process.terminate()
        self.process.waitUntilExit()
    }

    /// The child's side: serve (h2c when `http2`) until terminated, after printing the main and
    /// fault listeners' URLs on one line. Over h2c it takes a client's stream resets as nginx
    /// does, without counting them: NIOHTTP2's default (200 in 30 s, then GOAWAY naming stream
    /// 0, every stream dropped) takes the soak's 1 % of cancelled tasks for an attack every few
    /// seconds.
    static func serve(http2: Bool = false) async throws -> Never {
        let faults = LupineTestServer.HTTP2Faults(maximumResetStreams: http2 ? Int(Int32.max) : nil)
        let server = try await LupineTestServer.start(.init(http2: http2, http2Faults: faults, requestHeadTimeout: .seconds(60)))
        FileHandle.standardOutput.write(Data((server.baseURL.absoluteString + " " + server.faultsBaseURL.absoluteString + "\n").utf8))
        while true {
            try await Task.sleep(for: .seconds(3600))
        }
    }
}
