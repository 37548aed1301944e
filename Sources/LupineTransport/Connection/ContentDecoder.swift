import CLupineCodings
import NIOCore

/// Decodes one response body's stream of one ``ContentCoding``, chunk by chunk.
///
/// Confined to the channel's event loop, as the ``ResponseDecoder`` that owns it.
final class ContentDecoder {
    /// The most bytes one decoded chunk holds: the decompression limit is checked after each.
    static let maximumChunkSize = 64 * 1024

    let coding: ContentCoding
    private let decoder: OpaquePointer
    private var ended = false

    /// A decoder, or `nil` if the coding is not available here or memory is short.
    init?(_ coding: ContentCoding) {
        guard let decoder = lupine_decoder_create(coding.cValue) else { return nil }
        self.coding = coding
        self.decoder = decoder
    }

    deinit {
        lupine_decoder_destroy(self.decoder)
    }

    /// Decodes `input`, handing each decoded chunk to `chunk` as soon as it is full.
    func decode(
        _ input: ByteBuffer,
        allocator: ByteBufferAllocator,
        chunk: (ByteBuffer) throws -> Void
    ) throws {
        var input = input
        var status = LUPINE_DECODE_NEEDS_INPUT
        // Output may wait inside the decoder after the last input byte was taken.
        while input.readableBytes > 0 || status == LUPINE_DECODE_OUTPUT_FULL {
            guard !self.ended else { throw self.failure("it has bytes after its end") }
            var output = allocator.buffer(capacity: min(Self.maximumChunkSize, max(4096, input.readableBytes * 4)))
            var consumed = 0
            var produced = 0
            status = input.withUnsafeReadableBytes { source in
                output.withUnsafeMutableWritableBytes { target in
                    lupine_decoder_run(
                        self.decoder,
                        source.baseAddress?.assumingMemoryBound(to: UInt8.self), source.count, &consumed,
                        target.baseAddress?.assumingMemoryBound(to: UInt8.self), target.count, &produced
                    )
                }
            }
            input.moveReaderIndex(forwardBy: consumed)
            output.moveWriterIndex(forwardBy: produced)
            switch status {
            case LUPINE_DECODE_CORRUPT:
                throw self.failure("it is not valid \(self.coding.rawValue)")
            case LUPINE_DECODE_TRAILING:
                throw self.failure("it has bytes after its end")
            case LUPINE_DECODE_TOO_LARGE:
                throw self.failure("it needs a window larger than 8 MiB")
            case LUPINE_DECODE_END:
                self.ended = true
            default:
                // A decoder that takes nothing and gives nothing would be asked forever.
                guard consumed > 0 || produced > 0 || input.readableBytes == 0 else { throw self.failure("it is not valid \(self.coding.rawValue)") }
            }
            if produced > 0 {
                try chunk(output)
            }
        }
    }

    /// Checks, once the body has ended, that the coded stream ended too.
    func finish() throws {
        guard lupine_decoder_is_complete(self.decoder) == 1 else {
            throw self.failure("it ends too early")
        }
    }

    private func failure(_ reason: String) -> TransportError {
        .decompressionFailed(reason: "its \(self.coding.rawValue) stream: \(reason)")
    }
}

@available(*, unavailable)
extension ContentDecoder: Sendable {}
