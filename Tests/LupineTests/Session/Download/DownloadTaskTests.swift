import Crypto
import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import Testing

/// Download tasks against the test server: files on disk, destinations, resume data, restarts,
/// and every way a download can go wrong.
@Suite struct DownloadTaskTests {
    private func contents(of folder: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    }

    private func sha256(of url: URL) throws -> SHA256.Digest {
        SHA256.hash(data: try Data(contentsOf: url))
    }

    private func download(
        _ manager: SessionManager,
        _ task: (@escaping @Sendable (TaskCompletion) -> Void) throws -> DownloadTask
    ) async throws -> TaskCompletion {
        try await withCheckedThrowingContinuation { continuation in
            do {
                try task { continuation.resume(returning: $0) }.resume()
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    @Test(arguments: WireProtocol.allCases) func downloadsToTheDestinationWithProgress(over wire: WireProtocol) async throws {
        let folder = try temporaryFolder()
        try await withSessionManager(over: wire) { server, manager in
            manager.downloadDirectory = folder
            let target = folder.appending(path: "nested/deeper/body.bin")
            let readings = Recorder<Double>()
            let completion = try await self.download(manager) { done in
                manager.downloadTask(
                    with: Request(url: server.baseURL.appending(path: "bytes/300000")),
                    progress: { readings.append($0.fractionCompleted) },
                    destination: { _, _ in (target, [.createIntermediateDirectories]) },
                    completionHandler: done
                )
            }
            #expect(completion.error == nil)
            #expect(completion.fileURL == target)
            #expect(Array(try Data(contentsOf: target)) == DeterministicBytes.bytes(in: 0..<300_000))
            #expect(readings.all.last == 1.0)
            #expect(self.contents(of: folder) == ["nested"])
        }
    }

    /// AFNetworking's `setDownloadTaskDidFinishDownloadingBlock:`: the session's hook places a
    /// download that has no destination of its own; a task's own destination wins; `nil` leaves
    /// the file where it is (issue 30).
    @Test func theSessionsFinishHookPlacesDownloadsWithoutADestination() async throws {
        let folder = try temporaryFolder()
        try await withSessionManager { server, manager in
            manager.downloadDirectory = folder
            let url = server.baseURL.appending(path: "bytes/1000")
            let placed = folder.appending(path: "placed.bin")
            let asked = Recorder<Int>()
            var hooks = manager.hooks
            hooks.downloadTaskDidFinishDownloading = { _, _, head in
                asked.append(head.statusCode)
                return asked.all.count == 1 ? placed : nil
            }
            manager.hooks = hooks
            let first = try await self.download(manager) { done in manager.downloadTask(with: Request(url: url), completionHandler: done) }
            #expect(first.error == nil && first.fileURL == placed)
            #expect(Array(try Data(contentsOf: placed)) == DeterministicBytes.bytes(in: 0..<1000))
            let own = folder.appending(path: "own.bin")
            let second = try await self.download(manager) { done in
                manager.downloadTask(with: Request(url: url), destination: { _, _ in (own, []) }, completionHandler: done)
            }
            #expect(second.fileURL == own && asked.all.count == 1, "a task's own destination wins")
            let third = try await self.download(manager) { done in manager.downloadTask(with: Request(url: url), completionHandler: done) }
            let left = try #require(third.fileURL)
            #expect(third.error == nil && left.lastPathComponent.hasPrefix("lupine-download-") && self.contents(of: folder).contains(left.lastPathComponent))
            #expect(asked.all.count == 2)
        }
    }

    @Test(arguments: WireProtocol.allCases) func anExistingFileIsReplacedOnlyWhenAsked(over wire: WireProtocol) async throws {
        let folder = try temporaryFolder()
        try await withSessionManager(over: wire) { server, manager in
            manager.downloadDirectory = folder
            let target = folder.appending(path: "existing.bin")
            try Data("old".utf8).write(to: target)
            let url = server.baseURL.appending(path: "bytes/1000")
            let refused = try await self.download(manager) { done in
                manager.downloadTask(with: Request(url: url), destination: { _, _ in (target, []) }, completionHandler: done)
            }
            guard case .downloadFailed(.cannotMoveFile(_, target, _)) = refused.error else {
                Issue.record("expected cannotMoveFile, got \(String(describing: refused.error))")
                return
            }
            #expect(self.contents(of: folder) == ["existing.bin"])
            let replaced = try await self.download(manager) { done in
                manager.downloadTask(with: Request(url: url), destination: { _, _ in (target, [.removePreviousFile]) }, completionHandler: done)
            }
            #expect(replaced.error == nil)
            #expect(Array(try Data(contentsOf: target)) == DeterministicBytes.bytes(in: 0..<1000))
        }
    }

    @Test(arguments: WireProtocol.allCases) func anUnwritableDestinationIsAnErrorAndLeavesNoTemporaryFile(over wire: WireProtocol) async throws {
        let folder = try temporaryFolder()
        try await withSessionManager(over: wire) { server, manager in
            manager.downloadDirectory = folder
            let target = folder.appending(path: "missing-folder/file.bin")
            let completion = try await self.download(manager) { done in
                manager.downloadTask(
                    with: Request(url: server.baseURL.appending(path: "bytes/5000")),
                    destination: { _, _ in (target, []) },
                    completionHandler: done
                )
            }
            guard case .downloadFailed(.cannotMoveFile) = completion.error else {
                Issue.record("expected cannotMoveFile, got \(String(describing: completion.error))")
                return
            }
            #expect(self.contents(of: folder).isEmpty)
        }
    }

    @Test(arguments: WireProtocol.allCases) func anErrorStatusFailsWithThePageAndLeavesNoFile(over wire: WireProtocol) async throws {
        let folder = try temporaryFolder()
        try await withSessionManager(over: wire) { server, manager in
            manager.downloadDirectory = folder
            let completion = try await self.download(manager) { done in
                manager.downloadTask(with: Request(url: server.baseURL.appending(path: "status/404")), completionHandler: done)
            }
            guard case .responseValidationFailed(.unacceptableStatusCode(404, _, _, _)) = completion.error else {
                Issue.record("expected a 404 validation error, got \(String(describing: completion.error))")
                return
            }
            #expect(completion.fileURL == nil)
            #expect(self.contents(of: folder).isEmpty)
        }
    }

    /// Over HTTP/1.1 alone: the cut comes from the faults listener, which speaks nothing else.
    @Test func aDownloadCutAtARandomByteResumesToTheExactFile() async throws {
        let folder = try temporaryFolder()
        try await withSessionManager { server, manager in
            manager.downloadDirectory = folder
            let length = 3 * 1024 * 1024
            let cut = Int.random(in: 1..<length)
            let url = URL(string: server.faultsBaseURL.absoluteString + "/interrupt?bytes=\(length)&at=\(cut)")!
            let interrupted = try await self.download(manager) { done in
                manager.downloadTask(with: Request(url: url), completionHandler: done)
            }
            guard case .downloadFailed(.interrupted(let resumeData, _)) = interrupted.error else {
                Issue.record("expected an interrupted download (cut at \(cut)), got \(String(describing: interrupted.error))")
                return
            }
            #expect(try ResumeData(encoded: resumeData).bytesReceived == cut)
            let target = folder.appending(path: "whole.bin")
            let resumed = try await self.download(manager) { done in
                try manager.downloadTask(withResumeData: resumeData, destination: { _, _ in (target, []) }, completionHandler: done)
            }
            #expect(resumed.error == nil, "cut at \(cut)")
            #expect(resumed.response?.statusCode == 206)
            #expect(try self.sha256(of: target) == SHA256.hash(data: DeterministicBytes.bytes(in: 0..<length)), "cut at \(cut)")
            #expect(self.contents(of: folder) == ["whole.bin"])
        }
    }

    /// Over HTTP/2 the resumed download has been seen, rarely and only under the whole suite's
    /// load, to stall until its 60 s deadline: a known, open defect (session 16's note), recorded
    /// as such rather than hidden.
    @Test(arguments: WireProtocol.allCases) func cancellingWithResumeDataThenResumingCompletesTheFile(over wire: WireProtocol) async throws {
        let folder = try temporaryFolder()
        try await withKnownIssue("a resumed HTTP/2 download may stall under load", isIntermittent: true) {
            try await withSessionManager(over: wire) { server, manager in
                manager.downloadDirectory = folder
                let length = 32 * 1024 * 1024
                // The task suspends itself on its first bytes, so it cannot finish before the cancel.
                let holder = Recorder<DownloadTask>()
                let task = manager.downloadTask(
                    with: Request(url: server.baseURL.appending(path: "bytes/\(length)")),
                    progress: { progress in if progress.completedUnitCount > 0 { holder.all.first?.suspend() } },
                    completionHandler: { _ in }
                )
                holder.append(task)
                task.resume()
                try await waitUntil("the task suspended itself") { task.state == .suspended && task.countOfBytesReceived > 0 }
                let resumeData = try #require(await task.cancelByProducingResumeData())
                let partial = try ResumeData(encoded: resumeData)
                #expect(partial.bytesReceived > 0)
                #expect(partial.bytesReceived < length)
                #expect(partial.entityTag == "\"bytes-\(length)\"")
                let target = folder.appending(path: "resumed.bin")
                let completion = try await self.download(manager) { done in
                    try manager.downloadTask(withResumeData: resumeData, destination: { _, _ in (target, []) }, completionHandler: done)
                }
                #expect(completion.error == nil)
                #expect(try self.sha256(of: target) == SHA256.hash(data: DeterministicBytes.bytes(in: 0..<length)))
            }
        } when: {
            wire == .http2
        }
    }

    @Test(arguments: WireProtocol.allCases) func aChangedValidatorRestartsFromZero(over wire: WireProtocol) async throws {
        let folder = try temporaryFolder()
        try await withSessionManager(over: wire) { server, manager in
            manager.downloadDirectory = folder
            let partial = folder.appending(path: "stale.part")
            try Data(repeating: 0xEE, count: 500).write(to: partial)
            let url = server.baseURL.appending(path: "bytes/2000")
            let stale = ResumeData(url: url, entityTag: "\"an-older-version\"", bytesReceived: 500, temporaryFileURL: partial)
            let completion = try await self.download(manager) { done in
                try manager.downloadTask(with: Request(url: url), resumeData: stale, completionHandler: done)
            }
            #expect(completion.response?.statusCode == 200)
            let file = try #require(completion.fileURL)
            #expect(Array(try Data(contentsOf: file)) == DeterministicBytes.bytes(in: 0..<2000))
        }
    }

    @Test(arguments: WireProtocol.allCases) func a416ForAWholeFileCompletesIt(over wire: WireProtocol) async throws {
        let folder = try temporaryFolder()
        try await withSessionManager(over: wire) { server, manager in
            manager.downloadDirectory = folder
            let whole = folder.appending(path: "whole.part")
            try Data(DeterministicBytes.bytes(in: 0..<1500)).write(to: whole)
            let url = server.baseURL.appending(path: "bytes/1500")
            let resumeData = ResumeData(url: url, entityTag: "\"bytes-1500\"", bytesReceived: 1500, temporaryFileURL: whole)
            let completion = try await self.download(manager) { done in
                try manager.downloadTask(with: Request(url: url), resumeData: resumeData, completionHandler: done)
            }
            #expect(completion.error == nil)
            #expect(completion.response?.statusCode == 416)
            #expect(Array(try Data(contentsOf: whole)) == DeterministicBytes.bytes(in: 0..<1500))
        }
    }

    @Test func badResumeDataAreClearErrors() async throws {
        let manager = SessionManager()
        let folder = try temporaryFolder()
        let file = folder.appending(path: "x.part")
        let url = try #require(URL(string: "http://127.0.0.1:1/bytes/10"))
        let cases: [([UInt8], (LupineError.DownloadFailureReason) -> Bool)] = [
            (Array("not resume data".utf8), { if case .resumeDataCorrupt = $0 { true } else { false } }),
            (Array(#"{"version":99}"#.utf8), { if case .resumeDataVersionUnsupported(99, _) = $0 { true } else { false } }),
            (Array(#"{"version":1,"url":"http://x/"}"#.utf8), { if case .resumeDataCorrupt = $0 { true } else { false } }),
        ]
        for (bytes, matches) in cases {
            #expect {
                _ = try manager.downloadTask(withResumeData: bytes) { _ in }
            } throws: { error in
                guard case LupineError.downloadFailed(let reason) = error else { return false }
                return matches(reason)
            }
        }
        let other = ResumeData(url: url, bytesReceived: 0, temporaryFileURL: file)
        #expect {
            _ = try manager.downloadTask(with: Request(url: url.appending(path: "other")), resumeData: other) { _ in }
        } throws: { error in
            guard case LupineError.downloadFailed(.resumeDataForAnotherURL) = error else { return false }
            return true
        }
        let missingFile = ResumeData(url: url, bytesReceived: 10, temporaryFileURL: file)
        let completion = try await self.download(manager) { done in
            try manager.downloadTask(with: Request(url: url), resumeData: missingFile, completionHandler: done)
        }
        guard case .downloadFailed(.temporaryFileMissing(file)) = completion.error else {
            Issue.record("expected temporaryFileMissing, got \(String(describing: completion.error))")
            return
        }
    }

    @Test func opaqueResumeDataMayOnlyWriteToADownloadFile() throws {
        let manager = SessionManager()
        manager.downloadDirectory = try temporaryFolder()
        let precious = try temporaryFile(Array("keep me".utf8), name: "notes.txt")
        let url = try #require(URL(string: "http://127.0.0.1:1/bytes/10"))
        let forged = ResumeData(url: url, bytesReceived: 0, temporaryFileURL: precious).encoded()
        #expect {
            _ = try manager.downloadTask(withResumeData: forged) { _ in }
        } throws: { error in
            guard case LupineError.downloadFailed(.resumeDataCorrupt) = error else { return false }
            return true
        }
        #expect(try Data(contentsOf: precious) == Data("keep me".utf8))
    }

    @Test(arguments: WireProtocol.allCases) func aFailedResumeKeepsTheCallersPartialFile(over wire: WireProtocol) async throws {
        let folder = try temporaryFolder()
        try await withSessionManager(over: wire) { server, manager in
            manager.downloadDirectory = folder
            let partial = folder.appending(path: "mine.part")
            try Data(repeating: 7, count: 300).write(to: partial)
            let url = server.baseURL.appending(path: "status/503")
            let resumeData = ResumeData(url: url, bytesReceived: 300, temporaryFileURL: partial)
            let completion = try await self.download(manager) { done in
                try manager.downloadTask(with: Request(url: url), resumeData: resumeData, completionHandler: done)
            }
            guard case .responseValidationFailed(.unacceptableStatusCode(503, _, _, _)) = completion.error else {
                Issue.record("expected a 503, got \(String(describing: completion.error))")
                return
            }
            #expect(try Data(contentsOf: partial) == Data(repeating: 7, count: 300))
        }
    }

    /// Over HTTP/1.1 alone: the cut comes from the faults listener, which speaks nothing else.
    @Test func resumeDataBelongToTheURLTheDownloadStartedWith() async throws {
        let folder = try temporaryFolder()
        try await withSessionManager { server, manager in
            manager.downloadDirectory = folder
            let length = 2 * 1024 * 1024
            let target = server.faultsBaseURL.absoluteString + "/interrupt?bytes=\(length)&at=1000"
            let start = try #require(URL(string: server.baseURL.absoluteString + "/redirect-to?url=" + percentEscaped(target)))
            let interrupted = try await self.download(manager) { done in
                manager.downloadTask(with: Request(url: start), completionHandler: done)
            }
            guard case .downloadFailed(.interrupted(let encoded, _)) = interrupted.error else {
                Issue.record("expected an interrupted download, got \(String(describing: interrupted.error))")
                return
            }
            let resumeData = try ResumeData(encoded: encoded)
            #expect(resumeData.url.absoluteString == target)
            let output = folder.appending(path: "redirected.bin")
            let resumed = try await manager.download(Request(url: start), resumeData: resumeData) { _, _ in (output, []) }
            #expect(resumed.head?.statusCode == 206)
            #expect(Array(try Data(contentsOf: output)) == DeterministicBytes.bytes(in: 0..<length))
        }
    }

    /// A URL written another way is the same URL (RFC 3986 §6.2.2–6.2.3): the scheme's and the
    /// host's case, a default port, an empty path, dot segments, a fragment (never sent), user
    /// information (never travels). Another path, query, port or host is another URL (the
    /// hostile pass saw `--continue` refuse the same URL spelt differently).
    @Test func resumeDataBelongToTheirURLHoweverItIsSpelt() throws {
        let file = URL(fileURLWithPath: "/tmp/lupine-unused.bin")
        let resumeData = ResumeData(url: try #require(URL(string: "http://example.com/a/f?x=1")), bytesReceived: 10, temporaryFileURL: file)
        for same in [
            "http://example.com/a/f?x=1", "HTTP://EXAMPLE.com/a/f?x=1", "http://example.com:80/a/f?x=1", "http://example.com/a/b/../f?x=1",
            "http://example.com/a/./f?x=1#part", "http://user:secret@example.com/a/f?x=1",
        ] {
            #expect(resumeData.belongs(to: try #require(URL(string: same))), "\(same)")
        }
        for other in ["http://example.com/a/f?x=2", "http://example.com/a/g?x=1", "http://example.com:8080/a/f?x=1", "https://example.com/a/f?x=1", "http://example.org/a/f?x=1"] {
            #expect(!resumeData.belongs(to: try #require(URL(string: other))), "\(other)")
        }
        let root = ResumeData(url: try #require(URL(string: "https://example.com")), bytesReceived: 10, temporaryFileURL: file)
        #expect(root.belongs(to: try #require(URL(string: "https://example.com:443/"))))
    }
}
