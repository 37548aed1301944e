import Foundation
import LupineTestSupport
import LupineTestServer
import Testing

/// A real `curl` uploading to the test server (what `lupine serve` runs) with
/// `Expect: 100-continue`: its verbose log shows the interim 100 and the body arrives whole.
/// Nothing is timed; without the 100, curl would upload unasked after its expect timeout.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")))
struct CurlExpectContinueTests {
    private static let curl = URL(fileURLWithPath: "/usr/bin/curl")

    /// Runs curl with `arguments` in `folder`; returns its exit status, standard output and error.
    private static func run(_ arguments: [String], in folder: URL) async throws -> (Int32, Data, String) {
        let (stdout, stderr) = (folder.appending(path: "curl.out"), folder.appending(path: "curl.err"))
        let exit = try await ChildProcess.start(Self.curl, arguments, in: folder, stdout: stdout, stderr: stderr).wait()
        return (exit.status, try Data(contentsOf: stdout), String(decoding: try Data(contentsOf: stderr), as: UTF8.self))
    }

    @Test(arguments: [false, true])
    func curlGetsContinueAndUploadsTheWholeBody(overTLS tls: Bool) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let size = 1_572_864
        let upload = folder.appending(path: "upload.bin")
        try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }).write(to: upload)
        let server = try await LupineTestServer.start(.init(tls: tls))
        defer { Task { await server.stop() } }
        var trust: [String] = []
        if let pem = server.certificateAuthorityPEM {
            let ca = folder.appending(path: "ca.pem")
            try Data(pem.utf8).write(to: ca)
            trust = ["--cacert", ca.path]
        }
        let base = server.baseURL.absoluteString
        // curl sends the body unasked after 1 s; on a loaded machine the 100 may take longer, so
        // curl is told to wait for it (the answer, not the wait, is what is checked).
        trust += ["--expect100-timeout", "60"]

        let (status, output, log) = try await Self.run(
            trust + ["-sS", "-v", "-T", upload.path, "-H", "Expect: 100-continue", base + "/upload"],
            in: folder
        )
        #expect(status == 0, "\(log)")
        #expect(log.contains("< HTTP/1.1 100 Continue"), "\(log)")
        let answer = try JSONSerialization.jsonObject(with: output) as? [String: Any]
        #expect(answer?["bytes"] as? Int == size)

        // A form over 1 MiB: curl asks for the 100 by itself, and the echo endpoint reads the body.
        let (formStatus, formOutput, formLog) = try await Self.run(
            trust + ["-sS", "-v", "-F", "file=@\(upload.path)", base + "/post"],
            in: folder
        )
        #expect(formStatus == 0, "\(formLog)")
        #expect(formLog.contains("> Expect: 100-continue"), "\(formLog)")
        #expect(formLog.contains("< HTTP/1.1 100 Continue"), "\(formLog)")
        let echo = try JSONSerialization.jsonObject(with: formOutput) as? [String: Any]
        #expect((echo?["files"] as? [String: Any])?["file"] != nil)
    }
}
