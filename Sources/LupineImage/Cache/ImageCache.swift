import Lupine

/// A store of images by identifier, as AFNetworking's `AFImageCache`. Implementations are safe
/// to call from any thread.
public protocol ImageCache: Sendable {
    /// Keeps `image` under `identifier`, replacing any image kept under it.
    func add(_ image: Image, withIdentifier identifier: String)

    /// Drops the image kept under `identifier`; whether there was one.
    @discardableResult
    func removeImage(withIdentifier identifier: String) -> Bool

    /// Drops every image; whether there was any.
    @discardableResult
    func removeAllImages() -> Bool

    /// The image kept under `identifier`, or `nil`.
    func image(withIdentifier identifier: String) -> Image?
}

/// An ``ImageCache`` that also keeps images by request, as AFNetworking's `AFImageRequestCache`:
/// the identifier is the request's URL with the additional identifier appended.
public protocol ImageRequestCache: ImageCache {
    /// Whether an image downloaded for `request` should be kept; ``ImageDownloader`` asks before
    /// adding one. `true` unless an implementation refuses.
    func shouldCacheImage(_ image: Image, for request: Request, withAdditionalIdentifier identifier: String?) -> Bool

    /// Keeps `image` for `request` and `identifier`, replacing any image kept for them.
    func add(_ image: Image, for request: Request, withAdditionalIdentifier identifier: String?)

    /// Drops the image kept for `request` and `identifier`; whether there was one.
    @discardableResult
    func removeImage(for request: Request, withAdditionalIdentifier identifier: String?) -> Bool

    /// The image kept for `request` and `identifier`, or `nil`.
    func image(for request: Request, withAdditionalIdentifier identifier: String?) -> Image?
}

extension ImageRequestCache {
    /// Keeps every image.
    public func shouldCacheImage(_ image: Image, for request: Request, withAdditionalIdentifier identifier: String?) -> Bool {
        true
    }

    /// The identifier an image for `request` and `identifier` is kept under: the URL's absolute
    /// string with the additional identifier appended, no separator (AFNetworking's key).
    public func imageCacheKey(for request: Request, withAdditionalIdentifier identifier: String?) -> String {
        request.url.absoluteString + (identifier ?? "")
    }

    /// Keeps `image` under ``imageCacheKey(for:withAdditionalIdentifier:)``.
    public func add(_ image: Image, for request: Request, withAdditionalIdentifier identifier: String?) {
        self.add(image, withIdentifier: self.imageCacheKey(for: request, withAdditionalIdentifier: identifier))
    }

    /// Drops the image kept under ``imageCacheKey(for:withAdditionalIdentifier:)``.
    @discardableResult
    public func removeImage(for request: Request, withAdditionalIdentifier identifier: String?) -> Bool {
        self.removeImage(withIdentifier: self.imageCacheKey(for: request, withAdditionalIdentifier: identifier))
    }

    /// The image kept under ``imageCacheKey(for:withAdditionalIdentifier:)``.
    public func image(for request: Request, withAdditionalIdentifier identifier: String?) -> Image? {
        self.image(withIdentifier: self.imageCacheKey(for: request, withAdditionalIdentifier: identifier))
    }
}
