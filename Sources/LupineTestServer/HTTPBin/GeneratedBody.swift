import Hummingbird

/// A body computed on demand, so large or partial downloads need no stored data.
struct GeneratedBody: Sendable {
    /// Largest body the byte endpoints generate (1 GiB).
    static let maximumLength = 1 << 30

    let length: Int
    /// The strong entity tag, quotes included.
    let entityTag: String
    /// Appends the body's bytes at the given offsets to the buffer.
    let write: @Sendable (Range<Int>, inout ByteBuffer) -> Void

    /// `length` bytes of ``DeterministicBytes``.
    static func deterministic(length: Int) -> GeneratedBody {
        GeneratedBody(length: length, entityTag: "\"bytes-\(length)\"") { range, buffer in
            DeterministicBytes.forEachRun(in: range) { buffer.writeBytes($0) }
        }
    }

    /// `length` bytes of the lowercase alphabet repeated, as httpbin's `/range/:n` serves.
    static func alphabet(length: Int) -> GeneratedBody {
        let letters = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        let doubled = letters + letters
        return GeneratedBody(length: length, entityTag: "\"range\(length)\"") { range, buffer in
            var index = range.lowerBound
            while index < range.upperBound {
                let start = index % 26
                let count = min(26, range.upperBound - index)
                buffer.writeBytes(doubled[start..<(start + count)])
                index += count
            }
        }
    }

    /// A streamed response body holding the bytes at `range`, written in `chunkSize` pieces.
    ///
    /// With `declaresLength` the body has a `Content-Length`; otherwise it is sent chunked.
    func responseBody(range: Range<Int>, chunkSize: Int = 64 * 1024, declaresLength: Bool = true) -> ResponseBody {
        let write = self.write
        return ResponseBody(contentLength: declaresLength ? range.count : nil) { writer in
            var offset = range.lowerBound
            while offset < range.upperBound {
                let end = min(offset + chunkSize, range.upperBound)
                var buffer = ByteBuffer()
                buffer.reserveCapacity(end - offset)
                write(offset..<end, &buffer)
                try await writer.write(buffer)
                offset = end
            }
            try await writer.finish(nil)
        }
    }
}
