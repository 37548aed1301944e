import Foundation

extension HTTPCache {
    /// The size of the pieces a refreshed disk entry's body is copied in.
    private static let copyChunkSize = 1 << 16

    /// A 304 answered a validation of `entry`: its stored header fields are updated from the
    /// 304's (RFC 9111 §4.3.4, not `Content-Length`, `Content-Encoding`, `Content-Range` nor
    /// `Transfer-Encoding`), the entry is stored again, and the entry to serve is returned.
    func refresh(_ entry: CacheEntry, with notModified: ResponseHead, requestTime: Date, responseTime: Date) -> CacheEntry {
        let record = entry.record.refreshed(with: notModified.headers, requestTime: requestTime, responseTime: responseTime)
        // A 200 stored while this 304 was awaited (a foreground request beside a background
        // revalidation) is newer than the body refreshed here, which must not write over it.
        let writer = CacheEntryWriter(
            cache: self, record: record, keepsInMemory: self.memoryAdmits(size: entry.bodyLength), disk: self.disk,
            refreshing: entry.record.responseTime)
        switch entry.body {
        case .memory(let bytes):
            writer.append(ByteBuffer(bytes: bytes))
            writer.commit()
        case .file(let file):
            do {
                var checksum = Checksum()
                for offset in stride(from: 0, to: file.bodyLength, by: Self.copyChunkSize) {
                    let bytes = try file.readBody(offset: offset, count: min(Self.copyChunkSize, file.bodyLength - offset))
                    checksum.update(bytes)
                    writer.append(ByteBuffer(bytes: bytes))
                }
                try file.verify(checksum.value)
                writer.commit()
            } catch {
                // The stored body is damaged (and now removed): the entry is not stored again,
                // and reading the returned one fails the same way.
                writer.abandon()
            }
        }
        return CacheEntry(record: record, body: entry.body, now: responseTime)
    }

    /// An unsafe method got a non-error (2xx or 3xx) response: its target URI is invalidated,
    /// and so are the URIs of `Location` and `Content-Location` when they have the same origin
    /// (RFC 9111 §4.4).
    func invalidate(after request: Request, response: ResponseHead) {
        switch request.method {
        case .GET, .HEAD, .OPTIONS, .TRACE:
            return
        default:
            guard (200..<400).contains(response.statusCode) else { return }
        }
        // Each as the request names it, with its `Host` if the caller set one.
        var targets = [request]
        for field in ["Location", "Content-Location"] {
            if let value = response.headers.first(name: field), let target = URL(string: value, relativeTo: response.url)?.absoluteURL,
                CacheKey.sameOrigin(target, request.url)
            {
                var located = request
                located.url = target
                targets.append(located)
            }
        }
        for key in Set(targets.compactMap(CacheKey.primary(of:))) {
            self.remove(primaryKey: key)
        }
    }
}
