import Foundation
import Lupine
import LupineOpenAPI
import LupineTestServer
import LupineTestSupport
import Testing

/// A 100 MiB upload and a 100 MiB download through the generated client keep memory flat.
///
/// Measured in a child process, so that no other test running beside it in this process counts:
/// the child is this test executable itself, run by GNU time (whose small fork leaves the
/// child's peak its own) and told to run ``childTransfers()`` alone, against the server this
/// process started. It is run twice, for 1 MiB and for 100 MiB; a body held in memory would
/// raise the second peak by 100 MiB or more, so the difference is what is checked.
@Suite struct FlatMemoryTests {
    static let small = 1 << 20
    static let large = 100 << 20

    @Test(.enabled(if: Self.canRunChildren), .timeLimit(.minutes(20)))
    func aHundredMiBStreamUpAndDownWithFlatMemory() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "lupine-openapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withClient { server, _, _ in
            let baseline = try await Self.runChild(server: server, length: Self.small, in: folder)
            let measured = try await Self.runChild(server: server, length: Self.large, in: folder)
            #expect(baseline.report == "uploaded \(Self.small) downloaded \(Self.small) matching")
            #expect(measured.report == "uploaded \(Self.large) downloaded \(Self.large) matching")
            // Buffering either body would add at least 102,400 KiB. (Under a sanitizer the peak
            // is mostly its shadow memory: measured in the plain run.)
            #expect(Sanitizers.isActive || measured.peakKiB - baseline.peakKiB < 32 * 1024, "peaks \(baseline.peakKiB) KiB and \(measured.peakKiB) KiB")
        }
    }

    /// The child's part: only when the parent starts it, with the server's URL, the length and
    /// where to write what it did.
    @Test(.enabled(if: ChildSettings.current != nil))
    func childTransfers() async throws {
        let settings = try #require(ChildSettings.current)
        let manager = HTTPSessionManager(configuration: TransportConfiguration(connectTimeout: .seconds(60)))
        defer { manager.invalidateSession(cancelingTasks: true) }
        // The whole exchange of 100 MiB on a loaded machine: well within, but not 60 s for sure.
        manager.requestSerializer.timeoutInterval = 600
        let client = Client(serverURL: settings.serverURL, transport: LupineClientTransport(manager: manager))
        let receipt = try await client.upload(body: .binary(DeterministicBody.upload(length: settings.length))).ok.body.json
        let body = try await client.getBytes(path: .init(n: settings.length)).ok.body.binary
        let checked = try await DeterministicBody.check(body)
        let report = "uploaded \(receipt.bytes) downloaded \(checked.count) \(checked.matches ? "matching" : "differing")"
        try Data(report.utf8).write(to: settings.report)
    }

    /// Linux's `/proc/self/exe` names this executable; GNU time measures the child.
    static var canRunChildren: Bool {
        FileManager.default.fileExists(atPath: "/proc/self/exe") && FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
    }

    /// Runs ``childTransfers()`` in a child for `length` bytes each way; returns its report and
    /// its peak resident memory.
    private static func runChild(server: LupineTestServer, length: Int, in folder: URL) async throws -> (report: String, peakKiB: Int) {
        let report = folder.appending(path: "report-\(length)")
        let peak = folder.appending(path: "peak-\(length)")
        let log = folder.appending(path: "log-\(length)")
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var environment = ProcessInfo.processInfo.environment
        environment[ChildSettings.serverURLKey] = server.baseURL.absoluteString
        environment[ChildSettings.lengthKey] = String(length)
        environment[ChildSettings.reportKey] = report.path
        let child = try ChildProcess.start(
            URL(fileURLWithPath: "/usr/bin/time"),
            ["-f", "%M", "-o", peak.path, executable.path, "--testing-library", "swift-testing", "--filter", "FlatMemoryTests/childTransfers"],
            in: folder,
            stdout: log,
            stderr: log,
            environment: environment
        )
        let status = await child.wait().status
        let logged = String(decoding: try Data(contentsOf: log).suffix(4096), as: UTF8.self)
        #expect(status == 0, "the child for \(length) bytes exited with \(status): \(logged)")
        let peakText = String(decoding: try Data(contentsOf: peak), as: UTF8.self)
        let peakKiB = try #require(Int(peakText.trimmingCharacters(in: .whitespacesAndNewlines)), "\(peakText)")
        return (String(decoding: try Data(contentsOf: report), as: UTF8.self), peakKiB)
    }
}

/// What the parent tells a child through its environment.
struct ChildSettings {
    static let serverURLKey = "LUPINE_OPENAPI_CHILD_SERVER_URL"
    static let lengthKey = "LUPINE_OPENAPI_CHILD_LENGTH"
    static let reportKey = "LUPINE_OPENAPI_CHILD_REPORT"

    let serverURL: URL
    let length: Int
    let report: URL

    /// The settings of this process when it is a child, else `nil`.
    static var current: ChildSettings? {
        let environment = ProcessInfo.processInfo.environment
        guard let server = environment[Self.serverURLKey].flatMap(URL.init(string:)),
            let length = environment[Self.lengthKey].flatMap(Int.init),
            let report = environment[Self.reportKey]
        else {
            return nil
        }
        return ChildSettings(serverURL: server, length: length, report: URL(fileURLWithPath: report))
    }
}
