import Foundation
import Lupine
import LupineImage
import LupineTestServer
import LupineTestSupport
import Testing

/// AFImageDownloaderTests' merging and cancelling behaviours, each download held at a gate of
/// the test server until the test has set up what it needs.
@Suite(.timeLimit(.minutes(5))) struct ImageDownloaderMergingTests {
    @Test func twoRequestsForOneURLMakeOneServerRequestAndShareItsResponse() async throws {
        try await withDownloaderServer { server, manager in
            let key = "merge-\(UUID().uuidString)"
            let downloader = ImageDownloader(sessionManager: manager)
            let outcomes = HandlerOutcomes()
            let first = downloader.download(server.request("/gated/\(key)/image/png"), as: "first", into: outcomes)
            let second = downloader.download(server.request("/gated/\(key)/image/png"), as: "second", into: outcomes)
            #expect(first != nil && second != nil && first?.receiptID != second?.receiptID)
            try await waitUntil("the server got the request") { server.gatedRequests(key) == 1 }
            try await server.openGate(key, with: manager)
            try await outcomes.waitFor(2)
            let (a, b) = (try #require(outcomes.of("first").first), try #require(outcomes.of("second").first))
            #expect(a.image != nil && a.image == b.image)
            #expect(a.response?.headers == b.response?.headers && a.response?.statusCode == 200)
            #expect(server.gatedRequests(key) == 1)
        }
    }

    @Test func cancellingOneOfTwoReceiptsFailsOnlyThatOne() async throws {
        try await withDownloaderServer { server, manager in
            let key = "cancel-one-\(UUID().uuidString)"
            let downloader = ImageDownloader(sessionManager: manager)
            let outcomes = HandlerOutcomes()
            let request = server.request("/gated/\(key)/image/png")
            let cancelled = try #require(downloader.download(request, as: "cancelled", into: outcomes))
            downloader.download(request, as: "kept", into: outcomes)
            downloader.cancelTask(for: cancelled)
            downloader.cancelTask(for: cancelled)
            try await outcomes.waitFor(1)
            let error = try #require(outcomes.of("cancelled").first?.error as? ImageDownloaderError)
            #expect(error.description == "ImageDownloader cancelled URL request: \(request.url.absoluteString)")
            try await server.openGate(key, with: manager)
            try await outcomes.waitFor(2)
            #expect(outcomes.of("kept").first?.image != nil)
            #expect(outcomes.of("cancelled").count == 1)
            #expect(server.gatedRequests(key) == 1)
        }
    }

    @Test func fiveStartedAndCancelledThenFiveAgainAllSucceed() async throws {
        try await withDownloaderServer { server, manager in
            let downloader = ImageDownloader(sessionManager: manager, imageCache: nil)
            let outcomes = HandlerOutcomes()
            let request = server.request("/image/png")
            for index in 0..<5 {
                let receipt = try #require(downloader.download(request, as: "cancelled-\(index)", into: outcomes))
                downloader.cancelTask(for: receipt)
            }
            for index in 0..<5 {
                downloader.download(request, as: "again-\(index)", into: outcomes)
            }
            try await outcomes.waitFor(10)
            for index in 0..<5 {
                #expect(outcomes.of("cancelled-\(index)").first?.error is ImageDownloaderError)
                #expect(outcomes.of("again-\(index)").first?.image != nil)
            }
        }
    }

    @Test func aLateEndOfACancelledDownloadLeavesTheNewerOneForTheURLAlone() async throws {
        try await withDownloaderServer { server, manager in
            let key = "late-\(UUID().uuidString)"
            let downloader = ImageDownloader(sessionManager: manager)
            let outcomes = HandlerOutcomes()
            let request = server.request("/gated/\(key)/image/png")
            let old = try #require(downloader.download(request, as: "old", into: outcomes))
            try await waitUntil("the old request reached the server") { server.gatedRequests(key) == 1 }
            downloader.cancelTask(for: old)
            downloader.download(request, as: "new", into: outcomes)
            try await waitUntil("the new request reached the server") { server.gatedRequests(key) == 2 }
            try await server.openGate(key, with: manager)
            try await outcomes.waitFor(2)
            #expect(outcomes.of("old").count == 1 && outcomes.of("old").first?.error is ImageDownloaderError)
            #expect(outcomes.of("new").count == 1 && outcomes.of("new").first?.image != nil)
        }
    }

    @Test(arguments: [ImageDownloadPrioritization.fifo, .lifo])
    func waitingDownloadsStartInThePrioritizationsOrder(_ prioritization: ImageDownloadPrioritization) async throws {
        try await withDownloaderServer { server, manager in
            let key = "order-\(UUID().uuidString)"
            let downloader = ImageDownloader(sessionManager: manager, downloadPrioritization: prioritization, maximumActiveDownloads: 1)
            let outcomes = HandlerOutcomes()
            downloader.download(server.request("/gated/\(key)/image/png"), as: "blocker", into: outcomes)
            try await waitUntil("the first download holds the only slot") { server.gatedRequests(key) == 1 }
            for index in 1...3 {
                downloader.download(server.request("/image/png?n=\(index)"), as: "\(index)", into: outcomes)
            }
            try await server.openGate(key, with: manager)
            try await outcomes.waitFor(4)
            let expected = prioritization == .fifo ? ["blocker", "1", "2", "3"] : ["blocker", "3", "2", "1"]
            #expect(outcomes.all.map(\.name) == expected)
            #expect(outcomes.all.allSatisfy { $0.image != nil })
        }
    }

    @Test func cancellingAnAwaitingSwiftTaskCancelsOnlyItsReceipt() async throws {
        try await withDownloaderServer { server, manager in
            let key = "async-\(UUID().uuidString)"
            let downloader = ImageDownloader(sessionManager: manager)
            let request = server.request("/gated/\(key)/image/png")
            let cancelled = Task { try await downloader.downloadImage(for: request) }
            let kept = Task { try await downloader.downloadImage(for: request) }
            try await waitUntil("the server got the request") { server.gatedRequests(key) == 1 }
            cancelled.cancel()
            await #expect(throws: ImageDownloaderError.self) { try await cancelled.value }
            try await server.openGate(key, with: manager)
            #expect(try await kept.value.response?.statusCode == 200)
            #expect(server.gatedRequests(key) == 1)
        }
    }

    @Test func aSwiftTaskCancelledBeforeItAsksGetsTheCancellationError() async throws {
        try await withDownloaderServer { server, manager in
            let downloader = ImageDownloader(sessionManager: manager)
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await downloader.downloadImage(for: server.request("/image/png"))
            }
            await #expect(throws: ImageDownloaderError.self) { try await task.value }
        }
    }

    @Test func aDownloaderReleasedWithDownloadsUnderWayCompletesThemAll() async throws {
        try await withDownloaderServer { server, manager in
            let key = "released-\(UUID().uuidString)"
            let outcomes = HandlerOutcomes()
            weak var released: ImageDownloader?
            do {
                let downloader = ImageDownloader(sessionManager: manager, maximumActiveDownloads: 2)
                released = downloader
                for index in 0..<5 {
                    downloader.download(server.request("/gated/\(key)/image/png?n=\(index)"), as: "\(index)", into: outcomes)
                }
            }
            try await waitUntil("two downloads reached the server") { server.gatedRequests(key) == 2 }
            try await server.openGate(key, with: manager)
            try await outcomes.waitFor(5)
            #expect(outcomes.all.allSatisfy { $0.image != nil })
            try await waitUntil("the downloader is freed") { released == nil }
        }
    }
}
