import NIOConcurrencyHelpers
import Foundation
import Lupine
import LupineImage
import LupineTestServer
import Testing

/// AFImageDownloaderTests' single-download behaviours, over loopback against the test server.
@Suite(.timeLimit(.minutes(5))) struct ImageDownloaderTests {
    @Test func theDefaultsAreAFNetworkings() throws {
        let manager = SessionManager(transport: NIOTransport.shared)
        let downloader = ImageDownloader(sessionManager: manager)
        #expect(downloader.maximumActiveDownloads == 4)
        #expect(downloader.downloadPrioritization == .fifo)
        let cache = try #require(downloader.imageCache as? AutoPurgingImageCache)
        #expect(cache.memoryCapacity == 100 * 1024 * 1024)
        #expect(ImageDownloader(sessionManager: manager, maximumActiveDownloads: -3).maximumActiveDownloads == 1)
    }

    @Test func theDedicatedURLCacheIs20MiBInMemoryAnd150MiBOnDisk() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lupine-imgcache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = ImageDownloader.defaultURLCache(directory: directory)
        #expect(cache.currentDiskUsage == 0)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) && isDirectory.boolValue)
        // A folder that cannot be made leaves the cache in memory: a regular file stands in the way.
        let blocker = directory.appendingPathComponent("file")
        #expect(FileManager.default.createFile(atPath: blocker.path, contents: Data("x".utf8)))
        _ = ImageDownloader.defaultURLCache(directory: blocker.appendingPathComponent("cache"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["file"])
    }

    @Test func aPNGIsDownloadedWithItsResponse() async throws {
        try await withDownloaderServer { server, manager in
            let downloader = ImageDownloader(sessionManager: manager)
            let outcomes = HandlerOutcomes()
            let receipt = downloader.download(server.request("/image/png"), as: "png", into: outcomes)
            #expect(receipt != nil)
            try await outcomes.waitFor(1)
            let image = try #require(outcomes.all.first?.image)
            #expect(image.format == .png && image.pixelWidth > 0)
            #expect(outcomes.all.first?.response?.statusCode == 200)
        }
    }

    @Test func anImageBehindARedirectIsDownloadedAndCachedUnderTheAskedURL() async throws {
        try await withDownloaderServer { server, manager in
            let downloader = ImageDownloader(sessionManager: manager)
            let request = server.request("/redirect-to?url=/image/png")
            let downloaded = try await downloader.downloadImage(for: request)
            #expect(downloaded.image.format == .png && downloaded.response?.url.path == "/image/png")
            #expect(downloader.imageCache?.image(for: request, withAdditionalIdentifier: nil) == downloaded.image)
        }
    }

    @Test func aPNGAndAJPEGAtOnceBothSucceed() async throws {
        try await withDownloaderServer { server, manager in
            let downloader = ImageDownloader(sessionManager: manager)
            async let png = downloader.downloadImage(for: server.request("/image/png"))
            async let jpeg = downloader.downloadImage(for: server.request("/image/jpeg"))
            let (first, second) = try await (png, jpeg)
            #expect(first.image.format == .png && second.image.format == .jpeg)
            #expect(first.response != nil && second.response != nil)
        }
    }

    @Test func a404FailsAndIsNotCached() async throws {
        try await withDownloaderServer { server, manager in
            let downloader = ImageDownloader(sessionManager: manager)
            let request = server.request("/status/404")
            for _ in 0..<2 {
                let error = await #expect(throws: LupineError.self) { try await downloader.downloadImage(for: request) }
                guard case .responseValidationFailed(.unacceptableStatusCode(let code, _, _, _)) = error else {
                    Issue.record("not a status error: \(String(describing: error))")
                    return
                }
                #expect(code == 404)
            }
            #expect(downloader.imageCache?.image(for: request, withAdditionalIdentifier: nil) == nil)
        }
    }

    @Test(arguments: ["relative/picture.png", "file:///etc/passwd", "http://", "ftp://example.test/a.png", "mailto:someone@example.test"])
    func anInvalidURLFailsAtOnceWithNoReceipt(_ string: String) async throws {
        let url = try #require(URL(string: string))
        let downloader = ImageDownloader(sessionManager: SessionManager(transport: NIOTransport.shared))
        let outcomes = HandlerOutcomes()
        let receipt = downloader.download(Request(url: url), as: "bad", into: outcomes)
        #expect(receipt == nil)
        try await outcomes.waitFor(1)
        guard case .invalidURL? = outcomes.all.first?.error as? LupineError else {
            Issue.record("not a bad-URL error: \(String(describing: outcomes.all.first?.error))")
            return
        }
    }

    @Test func theCancellationMessageIsAFNetworkingsWithoutCredentials() throws {
        let plain = try #require(URL(string: "http://127.0.0.1:8080/image/png?n=1"))
        #expect(ImageDownloaderError.cancelled(plain).description == "ImageDownloader cancelled URL request: http://127.0.0.1:8080/image/png?n=1")
        let secret = try #require(URL(string: "https://user:hunter2@example.test/a.png"))
        let message = ImageDownloaderError.cancelled(secret).description
        #expect(!message.contains("hunter2") && !message.contains("user"))
        #expect(message == "ImageDownloader cancelled URL request: https://***@example.test/a.png")
    }

    @Test func aCachedImageComesWithNoResponseAndNoReceiptAndNoRequest() async throws {
        try await withDownloaderServer { server, manager in
            let key = "cached-\(UUID().uuidString)"
            try await server.openGate(key, with: manager)
            let downloader = ImageDownloader(sessionManager: manager)
            let request = server.request("/gated/\(key)/image/png")
            let first = try await downloader.downloadImage(for: request)
            #expect(first.response != nil)
            for policy in [Request.CachePolicy.useProtocolCachePolicy, .returnCacheDataElseLoad, .returnCacheDataDontLoad] {
                var again = request
                again.cachePolicy = policy
                let outcomes = HandlerOutcomes()
                #expect(downloader.download(again, as: "cached", into: outcomes) == nil)
                try await outcomes.waitFor(1)
                #expect(outcomes.all.first?.image == first.image)
                #expect(outcomes.all.first?.response == nil)
            }
            #expect(server.gatedRequests(key) == 1)
        }
    }

    @Test func reloadIgnoringCacheDataBypassesTheImageCache() async throws {
        try await withDownloaderServer { server, manager in
            let key = "reload-\(UUID().uuidString)"
            try await server.openGate(key, with: manager)
            let downloader = ImageDownloader(sessionManager: manager)
            let request = server.request("/gated/\(key)/image/png")
            _ = try await downloader.downloadImage(for: request)
            let reloaded = try await downloader.downloadImage(for: server.request("/gated/\(key)/image/png", cachePolicy: .reloadIgnoringLocalCacheData))
            #expect(reloaded.response != nil)
            #expect(server.gatedRequests(key) == 2)
        }
    }

    @Test func aCacheThatRefusesAnImageIsNotGivenIt() async throws {
        try await withDownloaderServer { server, manager in
            let cache = RefusingCache()
            let downloader = ImageDownloader(sessionManager: manager, imageCache: cache)
            _ = try await downloader.downloadImage(for: server.request("/image/png"))
            #expect(cache.asked.withLockedValue { $0 } == 1)
            #expect(cache.memoryUsage == 0)
        }
    }

    @Test func handlersRunOnTheChosenQueueElseOnTheManagersCompletionQueue() async throws {
        try await withDownloaderServer { server, manager in
            let key = DispatchSpecificKey<String>()
            let chosen = DispatchQueue(label: "chosen")
            chosen.setSpecific(key: key, value: "chosen")
            let managers = DispatchQueue(label: "manager's")
            managers.setSpecific(key: key, value: "manager's")
            manager.completionQueue = managers
            let downloader = ImageDownloader(sessionManager: manager)
            let seen = HandlerOutcomes()
            let request = server.request("/image/png")
            downloader.downloadImage(
                for: request, completionQueue: chosen,
                success: { _, _, image in
                    seen.success(DispatchQueue.getSpecific(key: key) ?? "elsewhere")(request, nil, image)
                }, failure: seen.failure("failed"))
            try await seen.waitFor(1)
            downloader.downloadImage(
                for: request,
                success: { _, _, image in
                    seen.success(DispatchQueue.getSpecific(key: key) ?? "elsewhere")(request, nil, image)
                }, failure: seen.failure("failed"))
            try await seen.waitFor(2)
            #expect(seen.all.map(\.name) == ["chosen", "manager's"])
        }
    }
}

/// An image cache that refuses every image it is offered and counts the offers.
final class RefusingCache: ImageRequestCache {
    let inner = AutoPurgingImageCache()
    let asked = NIOLockedValueBox(0)
    var memoryUsage: Int { self.inner.memoryUsage }

    func shouldCacheImage(_ image: Image, for request: Request, withAdditionalIdentifier identifier: String?) -> Bool {
        self.asked.withLockedValue { $0 += 1 }
        return false
    }

    func add(_ image: Image, withIdentifier identifier: String) { self.inner.add(image, withIdentifier: identifier) }
    func removeImage(withIdentifier identifier: String) -> Bool { self.inner.removeImage(withIdentifier: identifier) }
    func removeAllImages() -> Bool { self.inner.removeAllImages() }
    func image(withIdentifier identifier: String) -> Image? { self.inner.image(withIdentifier: identifier) }
}
