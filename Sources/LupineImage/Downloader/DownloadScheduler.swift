import Foundation
import Lupine

/// The order in which an ``ImageDownloader`` starts the downloads waiting for a free slot.
public enum ImageDownloadPrioritization: Sendable, Equatable {
    /// The first asked for starts first (the default).
    case fifo
    /// The last asked for starts first, as a scrolling list wants the images now on screen.
    case lifo
}

/// The bookkeeping of an ``ImageDownloader``, a plain value with no I/O: one merged download per
/// URL with the handlers waiting for it, the downloads waiting for a slot in their order, and
/// how many run. `Handler` is what a caller waits with, `Running` the task that runs a download.
struct DownloadScheduler<Handler: Sendable, Running: Sendable>: Sendable {
    /// One download and everyone waiting for it.
    struct Download {
        /// Tells this download from an earlier or later one for the same URL.
        let id: Int
        /// The URL's absolute string.
        let key: String
        /// The request of the caller that created it.
        let request: Request
        /// The handlers in the order they were added, each with its receipt's identifier.
        var handlers: [(receiptID: UUID, handler: Handler)]
        /// The task, once started.
        var running: Running?
    }

    /// What became of an added handler.
    enum Admission {
        /// It joined the download already there for its URL.
        case joined
        /// It made a new download, `id`, to start now (a slot is free) or to wait.
        case created(id: Int, startsNow: Bool)
    }

    let maximumActive: Int
    let prioritization: ImageDownloadPrioritization
    private(set) var downloads: [String: Download] = [:]
    /// The downloads waiting for a slot, by key and id, oldest first.
    private var waiting: [(key: String, id: Int)] = []
    /// The downloads started and not yet finished, cancelled ones included.
    private(set) var activeCount = 0
    private var lastID = 0

    init(maximumActive: Int, prioritization: ImageDownloadPrioritization) {
        self.maximumActive = max(1, maximumActive)
        self.prioritization = prioritization
    }

    /// Adds `handler` for `request` under `key`: to the download for that key, or to a new one,
    /// counted as active at once when it may start now.
    mutating func admit(_ handler: Handler, receiptID: UUID, key: String, request: Request) -> Admission {
        if self.join(handler, receiptID: receiptID, key: key) {
            return .joined
        }
        self.lastID += 1
        self.downloads[key] = Download(id: self.lastID, key: key, request: request, handlers: [(receiptID, handler)])
        guard self.activeCount < self.maximumActive else {
            self.waiting.append((key, self.lastID))
            return .created(id: self.lastID, startsNow: false)
        }
        self.activeCount += 1
        return .created(id: self.lastID, startsNow: true)
    }

    /// Whether a download for `key` is under way (one a caller would join).
    func isDownloading(_ key: String) -> Bool {
        self.downloads[key] != nil
    }

    /// Adds `handler` to the download under way for `key`; `false` when there is none.
    @discardableResult
    mutating func join(_ handler: Handler, receiptID: UUID, key: String) -> Bool {
        guard self.downloads[key] != nil else { return false }
        self.downloads[key]?.handlers.append((receiptID, handler))
        return true
    }

    /// Records the task that runs download `id`; `false` when that download is gone already.
    mutating func attach(_ running: Running, to id: Int, key: String) -> Bool {
        guard self.downloads[key]?.id == id else { return false }
        self.downloads[key]?.running = running
        return true
    }

    /// Takes the handler of `receiptID` from the download for `key`. When no handler is left the
    /// download is dropped, and its task, if it had started, is returned to be cancelled.
    mutating func cancel(receiptID: UUID, key: String) -> (handler: Handler?, orphaned: Running?) {
        guard var download = self.downloads[key] else { return (nil, nil) }
        let index = download.handlers.firstIndex { $0.receiptID == receiptID }
        let handler = index.map { download.handlers.remove(at: $0).handler }
        guard download.handlers.isEmpty else {
            self.downloads[key] = download
            return (handler, nil)
        }
        self.downloads[key] = nil
        self.waiting.removeAll { $0.id == download.id }
        return (handler, download.running)
    }

    /// Ends a started download `id`: frees its slot and returns it with its handlers, unless it
    /// was cancelled (then a newer download for the same key is left alone).
    mutating func finish(id: Int, key: String) -> Download? {
        self.activeCount = max(0, self.activeCount - 1)
        guard self.downloads[key]?.id == id else { return nil }
        return self.downloads.removeValue(forKey: key)
    }

    /// The waiting downloads that may start now, in the prioritization's order, each counted as
    /// active.
    mutating func nextToStart() -> [Download] {
        var starting: [Download] = []
        while self.activeCount < self.maximumActive, !self.waiting.isEmpty {
            let next = self.prioritization == .fifo ? self.waiting.removeFirst() : self.waiting.removeLast()
            guard let download = self.downloads[next.key], download.id == next.id else { continue }
            self.activeCount += 1
            starting.append(download)
        }
        return starting
    }
}

extension DownloadScheduler.Download: Sendable where Handler: Sendable, Running: Sendable {}
