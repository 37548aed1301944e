import Foundation
import NIOCore

/// A `multipart/form-data` body (RFC 7578), built part by part as AFNetworking's
/// `AFMultipartFormData` is, and produced as a stream when it is sent: files are read in chunks
/// as the socket asks for more, so a body of any size never sits in memory.
///
/// Its exact length is known up front, and sent as `Content-Length`, unless a stream part was
/// appended without one, or a file part cannot tell its length (a FIFO, a device, a `/proc`
/// file, read to its end as curl does); the body is then sent chunked.
///
/// ```swift
/// let request = try HTTPRequestSerializer().multipartFormRequest(
///     method: .POST, urlString: "https://example.com/upload", parameters: ["title": "Holiday"]
/// ) { form in
///     try form.appendPart(fileURL: photoURL, name: "photo")
/// }
/// ```
public struct MultipartFormData: Sendable {
    /// The delimiter between parts; random unless given.
    public let boundary: String
    private var parts: [MultipartPart] = []
    private var throttle: (packetSize: Int, delay: Duration)?

    /// Creates an empty body delimited by `boundary`.
    public init(boundary: String = MultipartFormData.randomBoundary()) {
        self.boundary = boundary
    }

    /// A boundary no part is likely to contain: `lupine-` and 32 random hexadecimal digits.
    public static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = (0..<2).map { _ in String(generator.next() as UInt64, radix: 16) }
        return "lupine-" + digits.map { String(repeating: "0", count: 16 - $0.count) + $0 }.joined()
    }

    /// The request's `Content-Type`: `multipart/form-data; boundary=…`.
    public var contentType: String { "multipart/form-data; boundary=\(self.boundary)" }

    /// The body's length in bytes, or `nil` when a stream part's length is unknown (or the sum
    /// of the parts' lengths is beyond `Int`: the body is then sent as of unknown length).
    public var contentLength: Int? {
        var total = self.closingDelimiter.count
        for (index, part) in self.parts.enumerated() {
            guard let length = part.body.length else { return nil }
            let (withOpening, first) = total.addingReportingOverflow(self.opening(of: part, at: index).count)
            let (withBody, second) = withOpening.addingReportingOverflow(length)
            guard !first, !second else { return nil }
            total = withBody
        }
        return total
    }

    /// Whether the body can be produced a second time: not when a part is a stream, or a file
    /// read to its end (a FIFO, a device).
    var isReplayable: Bool {
        self.parts.allSatisfy { part in
            switch part.body {
            case .bytes: return true
            case .file(_, let length): return length != nil
            case .stream: return false
            }
        }
    }

    // MARK: Appending parts

    /// Appends the file at `fileURL` as field `name`, with the file's name and the MIME type of
    /// its extension (`application/octet-stream` when the extension is unknown).
    ///
    /// - Throws: ``LupineError/multipartEncodingFailed(_:)`` when the file is missing, a
    ///   directory, or unreadable: before anything is sent.
    public mutating func appendPart(fileURL: URL, name: String) throws(LupineError) {
        let fileName = fileURL.lastPathComponent
        try self.appendPart(fileURL: fileURL, name: name, fileName: fileName, mimeType: MIMEType.forFileName(fileName))
    }

    /// Appends the file at `fileURL` as field `name`, sent as `fileName` of type `mimeType`.
    ///
    /// A file that cannot tell its length (a FIFO, a character device, a `/proc` file) is read
    /// to its end when the body is sent, and makes the whole body's length unknown.
    ///
    /// - Throws: ``LupineError/multipartEncodingFailed(_:)`` when the file is missing, a
    ///   directory, or unreadable: before anything is sent.
    public mutating func appendPart(fileURL: URL, name: String, fileName: String, mimeType: String) throws(LupineError) {
        let length = try Self.readableFileLength(at: fileURL)
        self.append(name: name, fileName: fileName, mimeType: mimeType, body: .file(fileURL, length: length))
    }

    /// Appends a part whose content comes from `stream`, read once, when the body is sent.
    /// With `length`, the stream must produce exactly that many bytes; without it the whole
    /// body is sent chunked.
    public mutating func appendPart<Bytes: AsyncSequence & Sendable>(
        stream: Bytes,
        name: String,
        fileName: String,
        length: Int?,
        mimeType: String
    ) where Bytes.Element == ByteBuffer {
        let body = MultipartPart.Body.stream(length: length) { writer in
            var produced = 0
            for try await chunk in stream {
                produced += chunk.readableBytes
                try await writer.write(chunk)
            }
            return produced
        }
        self.append(name: name, fileName: fileName, mimeType: mimeType, body: body)
    }

    /// Appends a part whose content comes from `stream` of byte arrays; see
    /// its `ByteBuffer` twin.
    public mutating func appendPart<Bytes: AsyncSequence & Sendable>(
        stream: Bytes,
        name: String,
        fileName: String,
        length: Int?,
        mimeType: String
    ) where Bytes.Element == [UInt8] {
        self.appendPart(stream: stream.map { ByteBuffer(bytes: $0) }, name: name, fileName: fileName, length: length, mimeType: mimeType)
    }

    /// Appends `fileData` as a file field `name`, sent as `fileName` of type `mimeType`.
    public mutating func appendPart(fileData: [UInt8], name: String, fileName: String, mimeType: String) {
        self.append(name: name, fileName: fileName, mimeType: mimeType, body: .bytes(fileData))
    }

    /// Appends a plain form field `name` whose value is `formData`.
    public mutating func appendPart(formData: [UInt8], name: String) {
        let disposition = "form-data; name=\"\(Self.quoted(name))\""
        self.parts.append(MultipartPart(name: name, headers: [("Content-Disposition", disposition)], body: .bytes(formData)))
    }

    /// Appends a plain form field `name` whose value is `value` in UTF-8.
    public mutating func appendPart(formData value: String, name: String) {
        self.appendPart(formData: Array(value.utf8), name: name)
    }

    /// Appends a part with exactly the header fields `headers` and the content `body`.
    public mutating func appendPart(headers: HTTPHeaders, body: [UInt8]) {
        self.parts.append(MultipartPart(name: nil, headers: headers.map { ($0.name, $0.value) }, body: .bytes(body)))
    }

    /// Slows the upload down: the body goes out in packets of `packetSize` bytes with `delay`
    /// between them, as AFNetworking's throttling does for slow links. Nothing blocks a thread.
    public mutating func throttleBandwidth(packetSize: Int, delay: Duration) {
        self.throttle = (max(1, packetSize), delay)
    }

    private mutating func append(name: String, fileName: String, mimeType: String, body: MultipartPart.Body) {
        let disposition = "form-data; name=\"\(Self.quoted(name))\"; filename=\"\(Self.quoted(fileName))\""
        self.parts.append(MultipartPart(name: name, headers: [("Content-Disposition", disposition), ("Content-Type", mimeType)], body: body))
    }

    // MARK: Producing the body

    /// Writes the body to `writer`, part by part; files are read in chunks as the writer takes them.
    func write(to writer: RequestBodyWriter) async throws {
        let output = self.throttle.map { Self.throttled(writer, packetSize: $0.packetSize, delay: $0.delay) } ?? writer
        for (index, part) in self.parts.enumerated() {
            try await output.write(ByteBuffer(bytes: self.opening(of: part, at: index)))
            try await part.body.write(to: output, partName: part.name)
        }
        try await output.write(ByteBuffer(bytes: self.closingDelimiter))
    }

    /// The delimiter before a part, then its header fields and the blank line.
    private func opening(of part: MultipartPart, at index: Int) -> [UInt8] {
        var text = index == 0 ? "--\(self.boundary)\r\n" : "\r\n--\(self.boundary)\r\n"
        for (name, value) in part.headers {
            // A line break inside a field would end it and start another: sent as a space.
            text += "\(Self.singleLine(name)): \(Self.singleLine(value))\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }

    private var closingDelimiter: [UInt8] {
        Array((self.parts.isEmpty ? "--\(self.boundary)--\r\n" : "\r\n--\(self.boundary)--\r\n").utf8)
    }

    private static func throttled(_ writer: RequestBodyWriter, packetSize: Int, delay: Duration) -> RequestBodyWriter {
        RequestBodyWriter { chunk in
            var remaining = chunk
            while let packet = remaining.readSlice(length: min(packetSize, remaining.readableBytes)), packet.readableBytes > 0 {
                try await writer.write(packet)
                try await Task.sleep(for: delay.sleepable)
            }
        }
    }

    /// A name or file name inside a quoted `Content-Disposition` parameter, escaped as HTML's
    /// form submission does (RFC 7578 §4.2): `"` as `%22`, CR as `%0D`, LF as `%0A`; other
    /// characters, non-ASCII ones included, are sent as UTF-8.
    static func quoted(_ value: String) -> String {
        var escaped = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": escaped += "%22"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private static func singleLine(_ text: String) -> String {
        String(text.unicodeScalars.map { $0 == "\r" || $0 == "\n" ? " " : Character($0) })
    }

    /// The size of the readable file at `url`, or `nil` for a file read to its end when sent.
    private static func readableFileLength(at url: URL) throws(LupineError) -> Int? {
        guard url.isFileURL else { throw .multipartEncodingFailed(.fileURLInvalid(url)) }
        do {
            switch try FileBodyKind.of(path: url.path) {
            case .sized(let length): return length
            case .unsized: return nil
            }
        } catch {
            switch error {
            case .notFound: throw .multipartEncodingFailed(.fileNotFound(url))
            case .isDirectory: throw .multipartEncodingFailed(.fileIsDirectory(url))
            case .notReadable, .readFailed: throw .multipartEncodingFailed(.fileNotReadable(url))
            }
        }
    }
}
