import Foundation
import Lupine

extension ImageDownloader {
    /// The downloader a process shares: ``defaultSessionManager()``, FIFO, 4 downloads at a time
    /// and an ``AutoPurgingImageCache`` with its default capacity.
    public static let shared = ImageDownloader()

    /// AFNetworking's dedicated URL cache for images: 20 MiB in memory and 150 MiB on disk, in
    /// `directory` (by default `com.lupine.imagedownloader` in the user's caches folder, created
    /// when missing). When the directory cannot be used, the cache is in memory only.
    public static func defaultURLCache(directory: URL? = nil) -> HTTPCache {
        let memoryCapacity = 20 * 1024 * 1024
        let folder =
            directory
            ?? FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first?.appendingPathComponent("com.lupine.imagedownloader")
        guard let folder, let cache = try? HTTPCache(memoryCapacity: memoryCapacity, diskCapacity: 150 * 1024 * 1024, directory: folder) else {
            return HTTPCache(memoryCapacity: memoryCapacity)
        }
        return cache
    }

    /// A session manager configured as AFNetworking configures the image downloader's session:
    /// a transport of its own, ``defaultURLCache(directory:)``, cookies handled, and requests
    /// that use the protocol's cache policy and time out after 60 s (`Request`'s defaults).
    public static func defaultSessionManager() -> SessionManager {
        let manager = SessionManager(configuration: TransportConfiguration())
        manager.urlCache = Self.defaultURLCache()
        return manager
    }
}
