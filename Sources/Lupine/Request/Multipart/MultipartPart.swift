import Foundation
import NIOCore

/// One part of a ``MultipartFormData`` body: its header fields, and where its content comes from.
struct MultipartPart: Sendable {
    /// Where a part's content comes from.
    enum Body: Sendable {
        case bytes([UInt8])
        /// A file of the size it had when the part was appended, or, with no length, a file
        /// read to its end (a FIFO, a device, a `/proc` file).
        case file(URL, length: Int?)
        /// A producer that writes the content once and returns how many bytes it wrote.
        case stream(length: Int?, produce: @Sendable (RequestBodyWriter) async throws -> Int)

        /// How much of a file part is read at a time: large enough that the disk reads, each a
        /// hop to NIO's thread pool, keep up with the socket.
        static let fileChunkSize = 512 * 1024

        var length: Int? {
            switch self {
            case .bytes(let bytes): return bytes.count
            case .file(_, let length): return length
            case .stream(let length, _): return length
            }
        }

        /// Writes the content; a file that changed size, or a stream that produced other than
        /// its declared length, is an error rather than a corrupt body.
        func write(to writer: RequestBodyWriter, partName: String?) async throws {
            switch self {
            case .bytes(let bytes):
                if !bytes.isEmpty {
                    try await writer.write(ByteBuffer(bytes: bytes))
                }
            case .file(let url, let length):
                try await FileBody(path: url.path, chunkSize: Self.fileChunkSize).withOpenFile { currentLength, produce in
                    if let length, currentLength != length {
                        throw LupineError.multipartEncodingFailed(.fileChangedSize(url, expected: length, found: currentLength ?? 0))
                    }
                    try await produce(writer)
                }
            case .stream(let length, let produce):
                let produced = try await produce(writer)
                if let length, produced != length {
                    throw LupineError.multipartEncodingFailed(.streamLengthMismatch(part: partName ?? "(unnamed)", declared: length, produced: produced))
                }
            }
        }
    }

    /// The field name, for error messages; `nil` for a part given only header fields.
    let name: String?
    let headers: [(name: String, value: String)]
    let body: Body
}
