import Foundation
import Lupine
import LupineImage
import Testing

/// AFAutoPurgingImageCacheTests' expectations, and what the cache does with careless input.
@Suite struct AutoPurgingImageCacheTests {
    /// AFNetworking's test image: 850×300 pixels, costing 1,020,000 bytes.
    let testImage = Image(data: [1, 2, 3], format: .png, pixelWidth: 850, pixelHeight: 300)
    let imageCost = 1_020_000

    @Test func anImageCostsItsPixelsTimesFourTimesTheScaleSquared() {
        #expect(AutoPurgingImageCache.cost(of: self.testImage) == 1_020_000)
        let doubled = Image(data: [], format: .png, pixelWidth: 850, pixelHeight: 300, scale: 2)
        #expect(AutoPurgingImageCache.cost(of: doubled) == 4_080_000)
    }

    @Test func absurdSizesAndScalesNeitherTrapNorCostNothing() {
        let bomb = Image(data: [], format: .png, pixelWidth: Int.max, pixelHeight: Int.max)
        #expect(AutoPurgingImageCache.cost(of: bomb) == Int.max)
        for scale in [0, -2, .nan, .infinity] {
            let image = Image(data: [], format: .png, pixelWidth: 10, pixelHeight: 10, scale: scale)
            #expect(AutoPurgingImageCache.cost(of: image) == 400)
        }
        let negative = Image(data: [], format: .png, pixelWidth: -5, pixelHeight: 10)
        #expect(AutoPurgingImageCache.cost(of: negative) == 0)

        // An image larger than the whole cache is not kept, and wipes nothing out.
        let cache = AutoPurgingImageCache(memoryCapacity: 1000, preferredMemoryUsageAfterPurge: 500)
        cache.add(negative, withIdentifier: "empty")
        cache.add(Image(data: [], format: .png, pixelWidth: 10, pixelHeight: 10), withIdentifier: "small")
        cache.add(bomb, withIdentifier: "bomb")
        #expect(cache.memoryUsage == 400)
        #expect(cache.image(withIdentifier: "bomb") == nil)
        #expect(cache.image(withIdentifier: "small") != nil && cache.image(withIdentifier: "empty") != nil)
        #expect(AutoPurgingImageCache(memoryCapacity: .max).memoryCapacity == .max / 2)
    }

    @Test func theDefaultsAreAFNetworkingsAndAPreferredUsageAboveTheCapacityIsTheCapacity() {
        let cache = AutoPurgingImageCache()
        #expect(cache.memoryCapacity == 100 * 1024 * 1024)
        #expect(cache.preferredMemoryUsageAfterPurge == 60 * 1024 * 1024)
        let odd = AutoPurgingImageCache(memoryCapacity: 10, preferredMemoryUsageAfterPurge: 20)
        #expect(odd.preferredMemoryUsageAfterPurge == 10)
        let negative = AutoPurgingImageCache(memoryCapacity: -1, preferredMemoryUsageAfterPurge: -1)
        #expect(negative.memoryCapacity == 0 && negative.preferredMemoryUsageAfterPurge == 0)
    }

    @Test func imagesAreAddedReadAndRemovedByIdentifier() {
        let cache = AutoPurgingImageCache()
        cache.add(self.testImage, withIdentifier: "logo")
        #expect(cache.image(withIdentifier: "logo") == self.testImage)
        #expect(cache.memoryUsage == self.imageCost)
        #expect(cache.removeImage(withIdentifier: "logo"))
        #expect(!cache.removeImage(withIdentifier: "logo"))
        #expect(cache.image(withIdentifier: "logo") == nil)
        #expect(cache.memoryUsage == 0)
    }

    @Test func removingAllImagesEmptiesTheCache() {
        let cache = AutoPurgingImageCache()
        cache.add(self.testImage, withIdentifier: "a")
        cache.add(self.testImage, withIdentifier: "b")
        #expect(cache.removeAllImages())
        #expect(cache.memoryUsage == 0)
        #expect(cache.image(withIdentifier: "a") == nil)
        #expect(!cache.removeAllImages())
    }

    @Test func aRequestsKeyIsItsURLWithTheAdditionalIdentifierAppended() throws {
        let cache = AutoPurgingImageCache()
        let request = Request(url: try #require(URL(string: "https://example.test/a.png?size=2")))
        cache.add(self.testImage, for: request, withAdditionalIdentifier: "-round")
        #expect(cache.image(withIdentifier: "https://example.test/a.png?size=2-round") == self.testImage)
        #expect(cache.image(for: request, withAdditionalIdentifier: "-round") == self.testImage)
        #expect(cache.image(for: request, withAdditionalIdentifier: nil) == nil)
        #expect(cache.removeImage(for: request, withAdditionalIdentifier: "-round"))
        #expect(!cache.removeImage(for: request, withAdditionalIdentifier: "-round"))
        cache.add(self.testImage, for: request, withAdditionalIdentifier: nil)
        #expect(cache.image(withIdentifier: "https://example.test/a.png?size=2") == self.testImage)
    }

    @Test func anImageAddedAgainReplacesTheOldOneAndIsCountedOnce() {
        let cache = AutoPurgingImageCache()
        let smaller = Image(data: [9], format: .jpeg, pixelWidth: 10, pixelHeight: 10)
        cache.add(self.testImage, withIdentifier: "photo")
        cache.add(smaller, withIdentifier: "photo")
        #expect(cache.image(withIdentifier: "photo") == smaller)
        #expect(cache.memoryUsage == 400)
    }

    @Test func tenImagesAtCapacityPurgeNothingAndTheEleventhPurgesToThePreferredUsage() {
        let cache = AutoPurgingImageCache(memoryCapacity: 10 * self.imageCost, preferredMemoryUsageAfterPurge: 6 * self.imageCost)
        for index in 0..<10 {
            cache.add(self.testImage, withIdentifier: "image-\(index)")
            #expect(cache.memoryUsage == (index + 1) * self.imageCost)
        }
        cache.add(self.testImage, withIdentifier: "image-10")
        #expect(cache.memoryUsage == 6_120_000)
    }

    @Test func thePurgeDropsTheLeastRecentlyUsedAndAReadCountsAsAUse() {
        let cache = AutoPurgingImageCache(memoryCapacity: 10 * self.imageCost, preferredMemoryUsageAfterPurge: 6 * self.imageCost)
        for index in 0..<10 {
            cache.add(self.testImage, withIdentifier: "image-\(index)")
        }
        #expect(cache.image(withIdentifier: "image-0") != nil)
        cache.add(self.testImage, withIdentifier: "image-10")
        let kept = (0...10).filter { cache.image(withIdentifier: "image-\($0)") != nil }
        #expect(kept == [0, 6, 7, 8, 9, 10])
    }

    @Test func aPurgeForMemoryPressureGoesDownToTheAskedUsage() {
        let cache = AutoPurgingImageCache(memoryCapacity: 10 * self.imageCost, preferredMemoryUsageAfterPurge: 6 * self.imageCost)
        for index in 0..<8 {
            cache.add(self.testImage, withIdentifier: "image-\(index)")
        }
        #expect(cache.purge() == 2 * self.imageCost)
        #expect(cache.memoryUsage == 6 * self.imageCost)
        #expect(cache.image(withIdentifier: "image-1") == nil && cache.image(withIdentifier: "image-2") != nil)
        #expect(cache.purge(downTo: self.imageCost) == 5 * self.imageCost)
        #expect(cache.image(withIdentifier: "image-2") != nil)
        #expect(cache.purge(downTo: -3) == self.imageCost)
        #expect(cache.memoryUsage == 0)
    }

    @Test func manyThreadsAtOnceKeepTheUsageExact() async {
        let cache = AutoPurgingImageCache(memoryCapacity: 1000 * self.imageCost, preferredMemoryUsageAfterPurge: 500 * self.imageCost)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<200 {
                        cache.add(self.testImage, withIdentifier: "\(worker)-\(index)")
                        _ = cache.image(withIdentifier: "\(worker)-\(index / 2)")
                        if index % 3 == 0 { cache.removeImage(withIdentifier: "\(worker)-\(index)") }
                    }
                }
            }
        }
        let kept = (0..<8).flatMap { worker in (0..<200).map { "\(worker)-\($0)" } }.filter { cache.image(withIdentifier: $0) != nil }
        #expect(cache.memoryUsage == kept.count * self.imageCost)
        #expect(cache.memoryUsage <= cache.memoryCapacity)
    }
}
