import Foundation
import Lupine
import Testing

@testable import LupineImage

/// The downloader's bookkeeping on its own: slots, order, cancellation and stale ends.
@Suite struct DownloadSchedulerTests {
    typealias Scheduler = DownloadScheduler<String, String>
    let request = Request(url: URL(fileURLWithPath: "/"))

    @Test func waitingDownloadsCancelledBeforeTheirTurnNeverStartAndTakeNoSlot() {
        var scheduler = Scheduler(maximumActive: 1, prioritization: .fifo)
        let receipts = (0..<4).map { _ in UUID() }
        for (index, receipt) in receipts.enumerated() {
            _ = scheduler.admit("h\(index)", receiptID: receipt, key: "k\(index)", request: self.request)
        }
        #expect(scheduler.activeCount == 1)
        let cancelled = scheduler.cancel(receiptID: receipts[1], key: "k1").handler
        let cancelledAgain = scheduler.cancel(receiptID: receipts[1], key: "k1").handler
        #expect(cancelled == "h1" && cancelledAgain == nil)
        let first = scheduler.downloads["k0"]?.id ?? -1
        let finished = scheduler.finish(id: first, key: "k0")
        let next = scheduler.nextToStart()
        #expect(finished?.handlers.map(\.handler) == ["h0"])
        #expect(next.map(\.key) == ["k2"])
        #expect(scheduler.activeCount == 1)
    }

    @Test func aStaleEndFreesItsSlotButLeavesTheNewerDownloadForTheKey() {
        var scheduler = Scheduler(maximumActive: 2, prioritization: .lifo)
        let old = UUID()
        guard case .created(let oldID, startsNow: true) = scheduler.admit("old", receiptID: old, key: "k", request: self.request) else {
            Issue.record("the first download did not start")
            return
        }
        let attached = scheduler.attach("task-old", to: oldID, key: "k")
        let orphaned = scheduler.cancel(receiptID: old, key: "k").orphaned
        #expect(attached && orphaned == "task-old")
        _ = scheduler.admit("new", receiptID: UUID(), key: "k", request: self.request)
        #expect(scheduler.activeCount == 2)
        let staleEnd = scheduler.finish(id: oldID, key: "k")
        #expect(staleEnd == nil)
        #expect(scheduler.activeCount == 1)
        #expect(scheduler.downloads["k"]?.handlers.map(\.handler) == ["new"])
        let lateAttach = scheduler.attach("task-late", to: oldID, key: "k")
        #expect(!lateAttach)
    }
}
