import Foundation
import Lupine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What outlives one run of an HTTP verb command: the disk cache of `--cache DIR` and the
/// cookie file of `-b/--cookie-jar/--session FILE`.
///
/// The cookie file is read before the request (a missing one is an empty jar, garbage lines are
/// skipped with a warning) and written back once the exchange has ended, whatever its status, as
/// `curl -b FILE -c FILE` does; a file that cannot be written is a warning, not a lost response.
/// A file with content but not one line of it a cookie (a file named by mistake) is read and
/// never written: it is not Lupine's to replace.
struct StoredState {
    /// The disk cache's byte capacity: large downloads stream into it without being held in memory.
    static let diskCapacity = 1024 * 1024 * 1024

    private let cookieFile: URL?
    private let jar: CookieStorage?

    /// Sets `manager` up as `options` ask: its cache, its cookie jar, and the cache policy of `request`.
    init(options: RequestOptions, manager: HTTPSessionManager, request: inout Request) throws(LupineError) {
        if let directory = options.cacheDirectory {
            manager.urlCache = try HTTPCache(memoryCapacity: 0, diskCapacity: Self.diskCapacity, directory: LocalPath.url(directory))
        }
        if options.noCache {
            request.cachePolicy = .reloadIgnoringLocalCacheData
        }
        guard let path = options.cookieFile else {
            self.cookieFile = nil
            self.jar = nil
            return
        }
        let file = LocalPath.url(path)
        let jar = CookieStorage()
        let warnings = try jar.importNetscapeFile(at: file)
        for warning in warnings {
            StandardError.write("lupine: warning: \(LocalPath.shown(path)): \(warning)\n")
        }
        manager.cookieStorage = jar
        let isCookieFile = warnings.isEmpty || !jar.allCookies.isEmpty
        if !isCookieFile {
            StandardError.write("lupine: warning: \(LocalPath.shown(path)) holds no cookie, so it is not a cookie file; it is left as it is and the cookies will not be saved\n")
        }
        self.cookieFile = isCookieFile ? file : nil
        self.jar = jar
    }

    /// Writes the cookie file back, when there is one and it is not read-only (a file its owner
    /// made read-only is left as it is, as curl's `-c` leaves it).
    func save() {
        guard let file = self.cookieFile, let jar = self.jar else { return }
        if access(file.path, F_OK) == 0, access(file.path, W_OK) != 0 {
            StandardError.write("lupine: warning: the cookies were not saved: \(LocalPath.shown(file)) is read-only\n")
            return
        }
        do {
            try jar.exportNetscapeFile(to: file)
        } catch {
            StandardError.write("lupine: warning: the cookies were not saved: \(error.description)\n")
        }
    }
}

/// Says on standard error, with `-v`, when the response came from the cache, was revalidated, or
/// came from the cache past its freshness.
struct CacheNotice: EventMonitor {
    func taskDidComplete(_ task: SessionTask, with completion: TaskCompletion) {
        switch completion.cacheStatus {
        case .hit?: StandardError.write("lupine: the response came from the cache\n")
        case .revalidated?: StandardError.write("lupine: the cached response was revalidated (304 Not Modified)\n")
        case .stale?: StandardError.write("lupine: a stale response came from the cache\n")
        case .miss?, nil: break
        }
    }
}
