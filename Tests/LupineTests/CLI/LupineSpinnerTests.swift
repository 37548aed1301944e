import Foundation
import LupineTestSupport
import Lupine
import LupineTestServer
import Testing

@testable import LupineCLI

/// The activity spinner of `lupine get` and `download`: on a terminal stderr (a real pty that
/// `script` gives the command) once a request has run for a second, never on a file, erased
/// before anything else takes the terminal. (That a request shorter than the activation delay
/// draws nothing is ActivityStateMachineTests' to show: on a loaded machine a quick request
/// to the test server may well take seconds.)
@Suite struct LupineSpinnerTests {
    static let erase = "\r\u{1B}[K"

    /// What a `lupine` run on a pty left.
    struct Screen {
        let status: Int32
        /// Everything the pty showed.
        let text: String
        /// The spinner's label for the server: `GET 127.0.0.1:PORT`.
        let label: String
        /// The file the run was asked to read back, from its working folder.
        let file: Data?
    }

    static let needsScript = Testing.ConditionTrait.enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a pty"
    )

    /// Runs `lupine ARGUMENTS` (a shell command line in which `{server}` stands for a fresh test
    /// server's URL, `{faults}` for its fault listener's) with a pty as its terminal, in a temporary folder, through `script`; the
    /// pty's screen and the file named `reading` in that folder.
    static func lupineOnTerminal(_ arguments: String, reading file: String? = nil) async throws -> Screen {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let screen = folder.appending(path: "screen")
        let executable = "'" + LupineCommandLineTests.executable.path.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        let command =
            executable + " "
            + arguments
            .replacingOccurrences(of: "{server}", with: server.baseURL.absoluteString)
            .replacingOccurrences(of: "{faults}", with: server.faultsBaseURL.absoluteString)
        let process = try ChildProcess.start(
            URL(fileURLWithPath: "/usr/bin/script"), ["-q", "-e", "-c", command, "/dev/null"],
            in: folder, stdout: screen, stderr: folder.appending(path: "stderr")
        )
        let exit = await process.wait()
        return Screen(
            status: exit.status,
            text: String(decoding: try Data(contentsOf: screen), as: UTF8.self),
            label: "GET 127.0.0.1:\(server.port)",
            file: try file.map { try Data(contentsOf: folder.appending(path: $0)) }
        )
    }

    @Test(Self.needsScript)
    func aSlowRequestSpinsOnTheTerminalUntilItEndsThenErasesIt() async throws {
        let screen = try await Self.lupineOnTerminal("get {server}/delay/2 > body", reading: "body")
        #expect(screen.status == 0)
        #expect(screen.text.contains("\r| \(screen.label)  "))
        #expect(screen.text.hasSuffix(Self.erase))
        // The body went to the file, exact.
        #expect(LupineCommandLineTests.json(String(decoding: screen.file ?? Data(), as: UTF8.self))?["url"] != nil)
    }

    @Test func aFileOnStderrNeverGetsTheSpinner() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let outcome = try await LupineCommandLineTests.lupine(["get", server.baseURL.absoluteString + "/delay/2"])
        #expect(outcome.status == 0)
        #expect(outcome.stderr.isEmpty)
    }

    @Test(Self.needsScript)
    func theBodyOnTheTerminalComesAfterTheSpinnerIsErased() async throws {
        let screen = try await Self.lupineOnTerminal("get {server}/delay/2")
        #expect(screen.status == 0)
        let lastFrame = try #require(screen.text.range(of: screen.label, options: .backwards))
        let head = try #require(screen.text.range(of: "HTTP/1.1 200"))
        #expect(lastFrame.upperBound < head.lowerBound)
        #expect(screen.text[lastFrame.upperBound..<head.lowerBound].contains(Self.erase))
    }

    @Test(Self.needsScript)
    func theProgressBarTakesOverFromTheSpinner() async throws {
        let screen = try await Self.lupineOnTerminal("download {server}/delay/2 -o delayed.json", reading: "delayed.json")
        #expect(screen.status == 0)
        let lastFrame = try #require(screen.text.range(of: screen.label, options: .backwards))
        let bar = try #require(screen.text.range(of: "B/s"))
        #expect(lastFrame.upperBound < bar.lowerBound)
        #expect(screen.text.contains("Saved "))
        #expect(screen.file?.isEmpty == false)
    }

    @Test(Self.needsScript)
    func aDownloadThatFailsBeforeItsBodyHasItsMessageRightWhereTheSpinnerWas() async throws {
        let screen = try await Self.lupineOnTerminal("download {faults}/stall-before-headers -o never.bin --timeout 2")
        #expect(screen.status == 2)
        #expect(screen.text.contains("\r| GET 127.0.0.1:"))
        #expect(screen.text.contains(Self.erase + "lupine: "))
    }

    @Test func theLabelIsOneShortLineOfPrintableASCII() throws {
        let plain = Request(url: try #require(URL(string: "http://example.com:8080/a?b=c")))
        #expect(ActivitySpinner.label(for: plain) == "GET example.com:8080")
        let long = Request(url: try #require(URL(string: "http://" + String(repeating: "a", count: 300) + ".example/")), method: .POST)
        let label = ActivitySpinner.label(for: long)
        #expect(label.count == ActivitySpinner.maximumLabelLength)
        #expect(label.hasPrefix("POST aaa") && label.hasSuffix("..."))
        for host in ["%1B%5B2J", "%0D%0Aevil", "%E2%80%AEtxt", "%E6%97%A5%E6%9C%AC", "%00nul"] {
            guard let url = URL(string: "http://\(host).example/") else { continue }
            let shown = ActivitySpinner.label(for: Request(url: url))
            #expect(shown.unicodeScalars.allSatisfy { (0x20..<0x7F).contains($0.value) }, "\(host): \(shown)")
        }
    }

    @Test func framesTurnCountSecondsAndFitTheTerminal() {
        #expect(ActivitySpinner.line(frame: 0, label: "GET a", elapsed: .milliseconds(1500), columns: 80) == "\r| GET a  1s\u{1B}[K")
        #expect(ActivitySpinner.line(frame: 5, label: "GET a", elapsed: .seconds(62), columns: nil) == "\r/ GET a  62s\u{1B}[K")
        #expect(ActivitySpinner.line(frame: 0, label: "GET example.com", elapsed: .seconds(3), columns: 10) == "\r| GET exa\u{1B}[K")
        #expect(ActivitySpinner.line(frame: 0, label: "GET a", elapsed: .zero, columns: 1) == "\r\u{1B}[K")
    }
}
