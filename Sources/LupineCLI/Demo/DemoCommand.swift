import ArgumentParser
import Crypto
import Foundation
import Lupine
import LupineTestServer
import NIOConcurrencyHelpers

/// `lupine demo`: the tour a newcomer runs first. It starts the embedded test server in this
/// process and walks through a GET, a JSON POST, a multipart upload with progress, and a
/// download that the server interrupts and Lupine resumes, printing what happens at each step.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "A guided tour of Lupine against its embedded test server."
    )

    func run() async throws {
        let server = try await LupineTestServer.start()
        do {
            try await Tour(server: server).run()
        } catch {
            await server.stop()
            throw HTTPExchange.fail("the tour stopped: \(error)", code: 1)
        }
        await server.stop()
    }
}

/// The steps of the tour, each printing what it does and what came back.
private struct Tour {
    let server: LupineTestServer

    func run() async throws {
        try Self.say("Lupine demo: an in-process LupineTestServer is listening on \(self.server.baseURL.absoluteString)")
        let manager = HTTPSessionManager(baseURL: self.server.baseURL, configuration: TransportConfiguration())
        defer { manager.invalidateSession(cancelingTasks: true) }
        try await self.get(with: manager)
        try await self.postJSON()
        try await self.upload(with: manager)
        try await self.interruptedDownload(with: manager)
        try Self.say("\nTour complete. Next: `swift run lupine serve`, then `swift run lupine get 127.0.0.1:8080/get a==1`.")
    }

    private func get(with manager: HTTPSessionManager) async throws {
        try Self.say("\n1. GET /get?greeting=hello, the response parsed as JSON")
        let response = try await manager.get("get", parameters: ["greeting": "hello"])
        let args = (response.value as? [String: any Sendable])?["args"] as? [String: any Sendable] ?? [:]
        let milliseconds = Self.milliseconds(response.metrics?.totalDuration)
        try Self.say("   -> \(Self.status(response.head)) in \(milliseconds) ms; the server saw args \(args)")
    }

    private func postJSON() async throws {
        try Self.say("\n2. POST /post with a JSON body, through a JSONRequestSerializer")
        let manager = HTTPSessionManager(baseURL: self.server.baseURL)
        manager.requestSerializer = JSONRequestSerializer()
        let response = try await manager.post("post", parameters: ["name": "Lupine", "stars": 5])
        let json = (response.value as? [String: any Sendable])?["json"] as? [String: any Sendable] ?? [:]
        try Self.say("   -> \(Self.status(response.head)); the server parsed name = \(json["name"] ?? "?"), stars = \(json["stars"] ?? "?")")
    }

    private func upload(with manager: HTTPSessionManager) async throws {
        let length = 8 * 1024 * 1024
        let file = FileManager.default.temporaryDirectory.appending(path: "lupine-demo-\(UUID().uuidString).bin")
        try Data(DeterministicBytes.bytes(in: 0..<length)).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try Self.say("\n3. Multipart upload of an \(length / 1024 / 1024) MiB file and a form field to /upload, streamed from disk")
        let quarters = NIOLockedValueBox(0)
        let echo: [String: any Sendable] = try await withCheckedThrowingContinuation { continuation in
            manager.post(
                "upload",
                constructingBody: { form in
                    form.appendPart(formData: "holiday", name: "album")
                    try form.appendPart(fileURL: file, name: "photo")
                },
                progress: { progress in
                    let quarter = Int(progress.fractionCompleted * 4)
                    let reached = quarters.withLockedValue { shown in
                        defer { shown = max(shown, quarter) }
                        return quarter > shown
                    }
                    if reached {
                        // A failed write here stops the tour at its next line.
                        try? Self.say("   upload progress \(quarter * 25)% (bytes the socket took)")
                    }
                },
                success: { _, value in continuation.resume(returning: value as? [String: any Sendable] ?? [:]) },
                failure: { _, error in continuation.resume(throwing: error) }
            )
        }
        try Self.say("   -> the server counted \(echo["bytes"] ?? "?") bytes; Content-Length announced up front: \(echo["content_length"] ?? "?")")
    }

    private func interruptedDownload(with manager: HTTPSessionManager) async throws {
        let length = 4 * 1024 * 1024
        let cut = length / 3
        let url = try Self.url(self.server.faultsBaseURL.absoluteString + "/interrupt?bytes=\(length)&at=\(cut)")
        try Self.say("\n4. Download of \(length / 1024 / 1024) MiB that the server cuts off after \(cut) bytes, then resumed")
        let resumeData: ResumeData
        do {
            _ = try await manager.download(Request(url: url))
            throw DemoError.expectedAnInterruption
        } catch LupineError.downloadFailed(.interrupted(let encoded, let underlying)) {
            resumeData = try ResumeData(encoded: encoded)
            try Self.say("   -> interrupted (\(underlying.description)); resume data hold \(resumeData.bytesReceived) bytes and ETag \(resumeData.entityTag ?? "none")")
        }
        let target = FileManager.default.temporaryDirectory.appending(path: "lupine-demo-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: target) }
        let resumed = try await manager.download(Request(url: url), resumeData: resumeData) { _, _ in (target, []) }
        try Self.say("   -> resumed with Range and If-Range: \(Self.status(resumed.head)), \(resumed.head?.headers.first(name: "Content-Range") ?? "")")
        let digest = SHA256.hash(data: try Data(contentsOf: target))
        let expected = SHA256.hash(data: DeterministicBytes.bytes(in: 0..<length))
        guard digest == expected else { throw DemoError.fileDiffers }
        try Self.say("   -> the file's SHA-256 matches the server's bytes: \(digest.map { String(format: "%02x", $0) }.joined().prefix(16))...")
    }

    private static func status(_ head: ResponseHead?) -> String {
        head.map { "\($0.statusCode) \($0.status.reasonPhrase)" } ?? "no response"
    }

    private static func milliseconds(_ duration: Duration?) -> String {
        guard let duration else { return "?" }
        let components = duration.components
        return String(format: "%.1f", Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15)
    }

    private static func url(_ string: String) throws -> URL {
        guard let url = URL(string: string) else { throw LupineError.invalidURL(string) }
        return url
    }

    private static func say(_ line: String) throws(OutputError) {
        try StandardOutput.writeLine(line)
    }
}

/// How the tour can go wrong beyond Lupine's own errors.
private enum DemoError: Error, CustomStringConvertible {
    case expectedAnInterruption
    case fileDiffers

    var description: String {
        switch self {
        case .expectedAnInterruption: return "the download was expected to be interrupted"
        case .fileDiffers: return "the resumed file differs from the server's bytes"
        }
    }
}
