// Content codings for Lupine's transport: gzip and deflate through zlib, which every platform
// has, and brotli and zstd through the system's libbrotlidec and libzstd when they are installed.
// Those two are loaded at run time, so building Lupine needs neither, and a machine without them
// simply does not offer them in Accept-Encoding.
#ifndef CLUPINE_CODINGS_H
#define CLUPINE_CODINGS_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    LUPINE_CODING_GZIP = 1,
    LUPINE_CODING_DEFLATE = 2,
    LUPINE_CODING_BROTLI = 3,
    LUPINE_CODING_ZSTD = 4,
} lupine_coding;

typedef enum {
    /// Every input byte was taken; the stream has not ended.
    LUPINE_DECODE_NEEDS_INPUT = 0,
    /// The output is full: drain it and call again with the input not yet taken.
    LUPINE_DECODE_OUTPUT_FULL = 1,
    /// The stream ended; input after `consumed` is not part of it.
    LUPINE_DECODE_END = 2,
    /// The input is not a valid stream of the coding.
    LUPINE_DECODE_CORRUPT = -1,
    /// The stream asks for more memory than a decoder may take (a zstd window over 8 MiB).
    LUPINE_DECODE_TOO_LARGE = -2,
    /// Bytes follow the end of the stream that do not start another (gzip) member.
    LUPINE_DECODE_TRAILING = -3,
} lupine_decode_status;

typedef struct lupine_decoder lupine_decoder;

/// Whether `coding` can be decoded here (its library loads); 1 or 0.
int lupine_coding_available(lupine_coding coding);

/// A decoder for one stream of `coding`, or NULL when the coding is not available or memory is short.
lupine_decoder *lupine_decoder_create(lupine_coding coding);

/// Decodes from `input` into `output` as far as both allow.
lupine_decode_status lupine_decoder_run(
    lupine_decoder *decoder,
    const uint8_t *input, size_t input_length, size_t *consumed,
    uint8_t *output, size_t output_capacity, size_t *produced);

/// Whether the stream read so far is complete, or no byte of it came (an empty body): 1 or 0.
int lupine_decoder_is_complete(const lupine_decoder *decoder);

void lupine_decoder_destroy(lupine_decoder *decoder);

/// The most bytes `lupine_encode` may write for `length` input bytes (brotli and zstd only).
size_t lupine_encode_bound(lupine_coding coding, size_t length);

/// Encodes `input` in one go (brotli and zstd only: the test server's), returning the encoded
/// length, or 0 when the coding is not available or the output is too small.
size_t lupine_encode(lupine_coding coding, const uint8_t *input, size_t length, uint8_t *output, size_t capacity);

#endif
