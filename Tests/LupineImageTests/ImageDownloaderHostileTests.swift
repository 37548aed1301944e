import Foundation
import Lupine
import LupineImage
import LupineTestServer
import LupineTestSupport
import Testing

/// Callers that cancel at every moment, in numbers: every handler is called exactly once, one
/// request reaches the server for a URL however many callers join it, and a receipt cancelled
/// after its download ended changes nothing.
@Suite(.timeLimit(.minutes(5))) struct ImageDownloaderHostileTests {
    @Test func aHundredCallersOfOneURLHalfCancelledMakeOneRequestAndOneCallEach() async throws {
        try await withDownloaderServer { server, manager in
            let key = "hundred-\(UUID().uuidString)"
            let downloader = ImageDownloader(sessionManager: manager, imageCache: nil)
            let outcomes = HandlerOutcomes()
            // One serial queue for every handler, so that the sentinel's call comes after any
            // call made before it.
            let queue = DispatchQueue(label: "hostile-handlers")
            let request = server.request("/gated/\(key)/image/png")
            var receipts: [RequestReceipt] = []
            for index in 0..<100 {
                receipts.append(try #require(downloader.download(request, as: "\(index)", into: outcomes, queue: queue)))
            }
            for receipt in receipts.enumerated() where receipt.offset % 2 == 0 {
                downloader.cancelTask(for: receipt.element)
                downloader.cancelTask(for: receipt.element)
            }
            try await waitUntil("the server got the request") { server.gatedRequests(key) == 1 }
            try await server.openGate(key, with: manager)
            try await outcomes.waitFor(100)
            for index in 0..<100 {
                let calls = outcomes.of("\(index)")
                #expect(calls.count == 1, "\(index) was called \(calls.count) times")
                #expect(index % 2 == 0 ? calls.first?.error is ImageDownloaderError : calls.first?.image != nil, "\(index)")
            }
            #expect(server.gatedRequests(key) == 1)

            // Cancelling every receipt now that the download is over calls nobody again.
            for receipt in receipts { downloader.cancelTask(for: receipt) }
            downloader.download(server.request("/image/png?sentinel"), as: "sentinel", into: outcomes, queue: queue)
            try await outcomes.waitFor(101)
            #expect(outcomes.of("sentinel").first?.image != nil)
            #expect(outcomes.all.count == 101)
        }
    }

    @Test func everyCallerCancelledEndsTheDownloadAndTheURLCanBeAskedAgain() async throws {
        try await withDownloaderServer { server, manager in
            let key = "all-cancelled-\(UUID().uuidString)"
            let downloader = ImageDownloader(sessionManager: manager, maximumActiveDownloads: 1, imageCache: nil)
            let outcomes = HandlerOutcomes()
            let request = server.request("/gated/\(key)/image/png")
            let receipts = (0..<20).compactMap { downloader.download(request, as: "cancelled-\($0)", into: outcomes) }
            try await waitUntil("the server got the request") { server.gatedRequests(key) == 1 }
            for receipt in receipts.reversed() { downloader.cancelTask(for: receipt) }
            try await outcomes.waitFor(20)
            // The only slot is free again: a download of another URL runs.
            downloader.download(server.request("/image/png?after"), as: "after", into: outcomes)
            try await outcomes.waitFor(21)
            #expect(outcomes.of("after").first?.image != nil)
            #expect(outcomes.all.filter { $0.error is ImageDownloaderError }.count == 20)
        }
    }

    @Test func waitingDownloadsCancelledBeforeTheyStartNeverReachTheServer() async throws {
        try await withDownloaderServer { server, manager in
            let key = "waiting-\(UUID().uuidString)"
            let downloader = ImageDownloader(sessionManager: manager, maximumActiveDownloads: 1, imageCache: nil)
            let outcomes = HandlerOutcomes()
            downloader.download(server.request("/gated/\(key)/image/png"), as: "blocker", into: outcomes)
            try await waitUntil("the blocker holds the only slot") { server.gatedRequests(key) == 1 }
            for index in 0..<10 {
                let receipt = try #require(downloader.download(server.request("/gated/\(key)/image/png?n=\(index)"), as: "\(index)", into: outcomes))
                downloader.cancelTask(for: receipt)
            }
            try await outcomes.waitFor(10)
            try await server.openGate(key, with: manager)
            // One slot, first in first out: a cancelled download left waiting would run before this.
            downloader.download(server.request("/image/png?sentinel"), as: "sentinel", into: outcomes)
            try await outcomes.waitFor(12)
            #expect(outcomes.of("blocker").first?.image != nil && outcomes.of("sentinel").first?.image != nil)
            #expect(server.gatedRequests(key) == 1)
        }
    }
}
