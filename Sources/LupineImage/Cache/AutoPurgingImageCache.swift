import NIOConcurrencyHelpers
import Lupine

/// AFNetworking's `AFAutoPurgingImageCache`: images in memory, each costing its pixel width ×
/// height × 4 bytes × scale², up to ``memoryCapacity``. An add that takes the usage above the
/// capacity drops the least recently added or read images until the usage is down to
/// ``preferredMemoryUsageAfterPurge``. Safe from any thread (one lock).
///
/// An image costing more than the whole capacity is not kept, and the cache is left as it was
/// (AFNetworking would empty the cache for it; here one huge declared size cannot wipe it).
///
/// Nothing purges on its own under memory pressure (Linux sends no memory warning): a program
/// that watches for it calls ``purge(downTo:)`` or ``removeAllImages()``.
public final class AutoPurgingImageCache: ImageRequestCache {
    /// The most bytes of images kept before a purge (default 100 MiB).
    public let memoryCapacity: Int
    /// The usage a purge brings the cache down to (default 60 MiB; never above ``memoryCapacity``).
    public let preferredMemoryUsageAfterPurge: Int
    private let store = NIOLockedValueBox(LeastRecentlyUsedStore())

    /// A cache of `memoryCapacity` bytes that purges down to `preferredMemoryUsageAfterPurge`.
    /// A negative amount counts as zero, a preferred usage above the capacity as the capacity, and
    /// a capacity above `Int.max / 2` as `Int.max / 2` (so that no sum of costs can overflow).
    public init(memoryCapacity: Int = 100 * 1024 * 1024, preferredMemoryUsageAfterPurge: Int = 60 * 1024 * 1024) {
        self.memoryCapacity = min(max(0, memoryCapacity), Int.max / 2)
        self.preferredMemoryUsageAfterPurge = min(max(0, preferredMemoryUsageAfterPurge), self.memoryCapacity)
    }

    /// The bytes the kept images cost.
    public var memoryUsage: Int {
        self.store.withLockedValue { $0.usage }
    }

    /// What `image` costs in the cache: pixel width × height × 4 × scale², saturating at
    /// `Int.max` (a header may declare any size); a scale that is not a positive number counts as 1.
    public static func cost(of image: Image) -> Int {
        let scale = image.scale.isFinite && image.scale > 0 ? image.scale : 1
        let cost = Double(max(0, image.pixelWidth)) * Double(max(0, image.pixelHeight)) * 4 * scale * scale
        return cost < Double(Int.max) ? Int(cost) : Int.max
    }

    /// Keeps `image` under `identifier` (replacing what was there), then purges if the usage is
    /// now above ``memoryCapacity``. An image costing more than the capacity is not kept.
    public func add(_ image: Image, withIdentifier identifier: String) {
        let cost = Self.cost(of: image)
        guard cost <= self.memoryCapacity else { return }
        self.store.withLockedValue { store in
            store.add(image, cost: cost, withIdentifier: identifier)
            if store.usage > self.memoryCapacity {
                _ = store.purge(downTo: self.preferredMemoryUsageAfterPurge)
            }
        }
    }

    /// Drops the image under `identifier`; whether there was one.
    @discardableResult
    public func removeImage(withIdentifier identifier: String) -> Bool {
        self.store.withLockedValue { $0.remove(identifier) }
    }

    /// Drops every image; whether there was any.
    @discardableResult
    public func removeAllImages() -> Bool {
        self.store.withLockedValue { $0.removeAll() }
    }

    /// The image under `identifier`, which counts as its most recent use.
    public func image(withIdentifier identifier: String) -> Image? {
        self.store.withLockedValue { $0.image(withIdentifier: identifier) }
    }

    /// Drops the least recently used images until the usage is at most `target` (by default
    /// ``preferredMemoryUsageAfterPurge``), whatever the capacity: for a program under memory
    /// pressure. Returns the bytes freed.
    @discardableResult
    public func purge(downTo target: Int? = nil) -> Int {
        let target = max(0, target ?? self.preferredMemoryUsageAfterPurge)
        return self.store.withLockedValue { $0.purge(downTo: target) }
    }
}
