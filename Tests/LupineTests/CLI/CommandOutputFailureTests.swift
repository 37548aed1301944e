import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The commands that print lines of their own (`reachability`, `demo`, `serve`) when standard
/// output cannot take them: a full disk (`/dev/full`), as real processes.
@Suite struct CommandOutputFailureTests {
    /// `lupine ARGUMENTS` with standard output on `/dev/full`; its exit status and standard error.
    private static func intoAFullDisk(_ arguments: [String]) throws -> (process: ChildProcess, stderr: URL) {
        let outputs = try temporaryFolder()
        let stderr = outputs.appending(path: "stderr")
        let process = try ChildProcess.start(
            LupineCommandLineTests.executable,
            arguments,
            in: outputs,
            stdout: URL(fileURLWithPath: "/dev/full"),
            stderr: stderr
        )
        return (process, stderr)
    }

    private static func text(_ file: URL) -> String {
        String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self)
    }

    /// A status that cannot be printed is a failure, once or watching: a watch that cannot print
    /// stops instead of watching on unseen.
    @Test(arguments: [["reachability", "127.0.0.1"], ["reachability", "127.0.0.1", "--watch"]])
    func reachabilityFailsWhenItsStatusCannotBeWritten(arguments: [String]) async throws {
        let (process, stderr) = try Self.intoAFullDisk(arguments)
        let exit = await process.wait()
        #expect(exit.status == 1)
        #expect(Self.text(stderr) == "lupine: could not write the output: \(String(cString: strerror(ENOSPC)))\n")
    }

    /// `reachability --watch | head -1`: once the reader has closed the pipe, the watch ends at
    /// once instead of waiting for a change to print, which may never come.
    @Test func aWatchEndsWhenItsReaderIsGone() async throws {
        let outputs = try temporaryFolder()
        let fifo = outputs.appending(path: "stdout")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let reader = open(fifo.path, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        let stderr = outputs.appending(path: "stderr")
        let process = try ChildProcess.start(
            LupineCommandLineTests.executable,
            ["reachability", "127.0.0.1", "--watch"],
            in: outputs,
            stdout: fifo,
            stderr: stderr
        )
        var buffer = [UInt8](repeating: 0, count: 256)
        try await waitUntil(timeout: .seconds(60), "the first status") { read(reader, &buffer, buffer.count) > 0 }
        close(reader)
        let exit = await process.wait(killingAfter: .seconds(60))
        #expect(exit.status == 1)
        #expect(Self.text(stderr) == "lupine: could not write the output: \(String(cString: strerror(EPIPE)))\n")
    }

    @Test func theDemoStopsWhenItsTourCannotBeWritten() async throws {
        let (process, stderr) = try Self.intoAFullDisk(["demo"])
        let exit = await process.wait()
        #expect(exit.status == 1)
        #expect(Self.text(stderr).hasPrefix("lupine: the tour stopped: could not write the output"), "\(Self.text(stderr))")
    }

    /// Serving is the work asked for: the server says on standard error that its announcement
    /// was lost, where it serves, and serves.
    @Test func serveServesOnWhenItsAnnouncementCannotBeWritten() async throws {
        let (process, stderr) = try Self.intoAFullDisk(["serve", "--port", "0"])
        let running = LupineCommandLineTests.Running(process: process, stdout: URL(fileURLWithPath: "/dev/null"), stderr: stderr)
        try await running.whileRunning {
            try await waitUntil(timeout: .seconds(60), "the warning") { Self.text(stderr).hasSuffix("all the same\n") }
            let line = Self.text(stderr)
            #expect(line.hasPrefix("lupine: could not write the output: "), "\(line)")
            let address = try #require(line.split(separator: " ").first { $0.hasPrefix("http://") })
            let manager = HTTPSessionManager()
            defer { manager.invalidateSession(cancelingTasks: true) }
            let answer = try await manager.response(for: Request(url: #require(URL(string: address + "/get"))), serializer: HTTPResponseSerializer())
            #expect(answer.head?.statusCode == 200)
        }
        process.send(SIGTERM)
        _ = await process.wait()
    }
}
