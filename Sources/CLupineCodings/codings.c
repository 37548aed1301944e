#include "CLupineCodings.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

// The parts of libbrotlidec, libbrotlienc and libzstd used here, declared as their stable ABIs
// define them (brotli 1.0, zstd 1.4), and looked up when first needed.

typedef void *(*brotli_create_fn)(void *, void *, void *);
typedef int (*brotli_decompress_stream_fn)(void *, size_t *, const uint8_t **, size_t *, uint8_t **, size_t *);
typedef void (*brotli_destroy_fn)(void *);
typedef int (*brotli_compress_fn)(int, int, int, size_t, const uint8_t *, size_t *, uint8_t *);
typedef size_t (*brotli_bound_fn)(size_t);

typedef struct { const void *src; size_t size; size_t pos; } zstd_in_buffer;
typedef struct { void *dst; size_t size; size_t pos; } zstd_out_buffer;
typedef void *(*zstd_create_fn)(void);
typedef size_t (*zstd_free_fn)(void *);
typedef size_t (*zstd_set_parameter_fn)(void *, int, int);
typedef size_t (*zstd_decompress_stream_fn)(void *, zstd_out_buffer *, zstd_in_buffer *);
typedef unsigned (*zstd_is_error_fn)(size_t);
typedef size_t (*zstd_compress_fn)(void *, size_t, const void *, size_t, int);
typedef size_t (*zstd_bound_fn)(size_t);

enum {
    BROTLI_RESULT_ERROR = 0,
    BROTLI_RESULT_SUCCESS = 1,
    BROTLI_RESULT_NEEDS_MORE_INPUT = 2,
    BROTLI_RESULT_NEEDS_MORE_OUTPUT = 3,
    ZSTD_D_WINDOW_LOG_MAX = 100,
    // RFC 9659 §3: a decoder may refuse a zstd window over 8 MiB.
    ZSTD_HTTP_WINDOW_LOG = 23,
};

static struct {
    brotli_create_fn create;
    brotli_decompress_stream_fn decompress_stream;
    brotli_destroy_fn destroy;
    brotli_compress_fn compress;
    brotli_bound_fn bound;
} brotli;

static struct {
    zstd_create_fn create;
    zstd_free_fn free;
    zstd_set_parameter_fn set_parameter;
    zstd_decompress_stream_fn decompress_stream;
    zstd_is_error_fn is_error;
    zstd_compress_fn compress;
    zstd_bound_fn bound;
} zstd;

static pthread_once_t libraries_once = PTHREAD_ONCE_INIT;

static void *open_first(const char *const *names) {
    for (; *names != NULL; names++) {
        void *handle = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
        if (handle != NULL) return handle;
    }
    return NULL;
}

static void load_libraries(void) {
    static const char *const brotli_decoders[] = {
        "libbrotlidec.so.1", "libbrotlidec.1.dylib", "/opt/homebrew/lib/libbrotlidec.1.dylib",
        "/usr/local/lib/libbrotlidec.1.dylib", NULL};
    static const char *const brotli_encoders[] = {
        "libbrotlienc.so.1", "libbrotlienc.1.dylib", "/opt/homebrew/lib/libbrotlienc.1.dylib",
        "/usr/local/lib/libbrotlienc.1.dylib", NULL};
    static const char *const zstd_libraries[] = {
        "libzstd.so.1", "libzstd.1.dylib", "/opt/homebrew/lib/libzstd.1.dylib", "/usr/local/lib/libzstd.1.dylib", NULL};

    void *decoder = open_first(brotli_decoders);
    if (decoder != NULL) {
        brotli.create = (brotli_create_fn)dlsym(decoder, "BrotliDecoderCreateInstance");
        brotli.decompress_stream = (brotli_decompress_stream_fn)dlsym(decoder, "BrotliDecoderDecompressStream");
        brotli.destroy = (brotli_destroy_fn)dlsym(decoder, "BrotliDecoderDestroyInstance");
        if (brotli.create == NULL || brotli.decompress_stream == NULL || brotli.destroy == NULL) {
            brotli.create = NULL;
        }
    }
    void *encoder = open_first(brotli_encoders);
    if (encoder != NULL) {
        brotli.compress = (brotli_compress_fn)dlsym(encoder, "BrotliEncoderCompress");
        brotli.bound = (brotli_bound_fn)dlsym(encoder, "BrotliEncoderMaxCompressedSize");
        if (brotli.compress == NULL || brotli.bound == NULL) brotli.compress = NULL;
    }
    void *library = open_first(zstd_libraries);
    if (library != NULL) {
        zstd.create = (zstd_create_fn)dlsym(library, "ZSTD_createDStream");
        zstd.free = (zstd_free_fn)dlsym(library, "ZSTD_freeDStream");
        zstd.set_parameter = (zstd_set_parameter_fn)dlsym(library, "ZSTD_DCtx_setParameter");
        zstd.decompress_stream = (zstd_decompress_stream_fn)dlsym(library, "ZSTD_decompressStream");
        zstd.is_error = (zstd_is_error_fn)dlsym(library, "ZSTD_isError");
        zstd.compress = (zstd_compress_fn)dlsym(library, "ZSTD_compress");
        zstd.bound = (zstd_bound_fn)dlsym(library, "ZSTD_compressBound");
        if (zstd.create == NULL || zstd.free == NULL || zstd.set_parameter == NULL || zstd.decompress_stream == NULL
            || zstd.is_error == NULL) {
            zstd.create = NULL;
        }
        if (zstd.compress == NULL || zstd.bound == NULL || zstd.is_error == NULL) zstd.compress = NULL;
    }
}

int lupine_coding_available(lupine_coding coding) {
    pthread_once(&libraries_once, load_libraries);
    switch (coding) {
    case LUPINE_CODING_GZIP:
    case LUPINE_CODING_DEFLATE:
        return 1;
    case LUPINE_CODING_BROTLI:
        return brotli.create != NULL;
    case LUPINE_CODING_ZSTD:
        return zstd.create != NULL;
    }
    return 0;
}

struct lupine_decoder {
    lupine_coding coding;
    z_stream zlib;
    // deflate: whether the stream may still turn out to be raw (no zlib wrapper), as some servers send it.
    int may_be_raw;
    void *state;
    // gzip: whether the input so far ends exactly after a member.
    int between_members;
    // Whether any input was taken, and whether the stream (zstd: its last frame) is complete.
    int started;
    int complete;
};

lupine_decoder *lupine_decoder_create(lupine_coding coding) {
    if (!lupine_coding_available(coding)) return NULL;
    lupine_decoder *decoder = calloc(1, sizeof(lupine_decoder));
    if (decoder == NULL) return NULL;
    decoder->coding = coding;
    switch (coding) {
    case LUPINE_CODING_GZIP:
    case LUPINE_CODING_DEFLATE:
        // gzip: a gzip or zlib header, detected (curl does the same); deflate: the zlib wrapper RFC
        // 9110 names, or raw deflate if the first bytes say so.
        if (inflateInit2(&decoder->zlib, coding == LUPINE_CODING_GZIP ? MAX_WBITS + 32 : MAX_WBITS) != Z_OK) {
            free(decoder);
            return NULL;
        }
        decoder->may_be_raw = coding == LUPINE_CODING_DEFLATE;
        break;
    case LUPINE_CODING_BROTLI:
        decoder->state = brotli.create(NULL, NULL, NULL);
        break;
    case LUPINE_CODING_ZSTD:
        decoder->state = zstd.create();
        if (decoder->state != NULL
            && zstd.is_error(zstd.set_parameter(decoder->state, ZSTD_D_WINDOW_LOG_MAX, ZSTD_HTTP_WINDOW_LOG))) {
            zstd.free(decoder->state);
            decoder->state = NULL;
        }
        break;
    }
    if ((coding == LUPINE_CODING_BROTLI || coding == LUPINE_CODING_ZSTD) && decoder->state == NULL) {
        free(decoder);
        return NULL;
    }
    return decoder;
}

static lupine_decode_status run_zlib(
    lupine_decoder *decoder, const uint8_t *input, size_t input_length, size_t *consumed, uint8_t *output,
    size_t output_capacity, size_t *produced) {
    z_stream *stream = &decoder->zlib;
    *consumed = 0;
    *produced = 0;
    for (;;) {
        // zlib counts in unsigned int: at most 1 GiB a call.
        uInt input_step = (uInt)(input_length - *consumed > (1u << 30) ? (1u << 30) : input_length - *consumed);
        uInt output_step = (uInt)(output_capacity - *produced > (1u << 30) ? (1u << 30) : output_capacity - *produced);
        stream->next_in = (Bytef *)(input + *consumed);
        stream->avail_in = input_step;
        stream->next_out = output + *produced;
        stream->avail_out = output_step;
        int result = inflate(stream, Z_NO_FLUSH);
        *consumed += input_step - stream->avail_in;
        *produced += output_step - stream->avail_out;
        if (result == Z_DATA_ERROR && decoder->between_members) {
            return LUPINE_DECODE_TRAILING;
        }
        if (result == Z_DATA_ERROR && decoder->may_be_raw) {
            decoder->may_be_raw = 0;
            if (inflateReset2(stream, -MAX_WBITS) != Z_OK) return LUPINE_DECODE_CORRUPT;
            *consumed = 0;
            *produced = 0;
            continue;
        }
        if (result == Z_STREAM_END) {
            if (decoder->coding != LUPINE_CODING_GZIP) return LUPINE_DECODE_END;
            // Another member may follow (RFC 1952 §2.2), in this input or a later one; bytes
            // that do not start one are after the end.
            if (inflateReset(stream) != Z_OK) return LUPINE_DECODE_CORRUPT;
            decoder->between_members = 1;
            if (*consumed == input_length) return LUPINE_DECODE_NEEDS_INPUT;
            if (*produced == output_capacity) return LUPINE_DECODE_OUTPUT_FULL;
            continue;
        }
        if (input_step - stream->avail_in > 0) decoder->between_members = 0;
        if (result == Z_MEM_ERROR) return LUPINE_DECODE_TOO_LARGE;
        if (result != Z_OK && result != Z_BUF_ERROR) return LUPINE_DECODE_CORRUPT;
        if (*produced > 0 || *consumed > 0) decoder->may_be_raw = 0;
        if (*produced == output_capacity) return LUPINE_DECODE_OUTPUT_FULL;
        if (*consumed == input_length) return LUPINE_DECODE_NEEDS_INPUT;
        if (result == Z_BUF_ERROR) return LUPINE_DECODE_CORRUPT;
    }
}

static lupine_decode_status run(
    lupine_decoder *decoder, const uint8_t *input, size_t input_length, size_t *consumed, uint8_t *output,
    size_t output_capacity, size_t *produced) {
    switch (decoder->coding) {
    case LUPINE_CODING_GZIP:
    case LUPINE_CODING_DEFLATE:
        return run_zlib(decoder, input, input_length, consumed, output, output_capacity, produced);
    case LUPINE_CODING_BROTLI: {
        size_t available_in = input_length;
        size_t available_out = output_capacity;
        const uint8_t *next_in = input;
        uint8_t *next_out = output;
        int result = brotli.decompress_stream(decoder->state, &available_in, &next_in, &available_out, &next_out, NULL);
        *consumed = input_length - available_in;
        *produced = output_capacity - available_out;
        switch (result) {
        case BROTLI_RESULT_SUCCESS:
            return LUPINE_DECODE_END;
        case BROTLI_RESULT_NEEDS_MORE_INPUT:
            return LUPINE_DECODE_NEEDS_INPUT;
        case BROTLI_RESULT_NEEDS_MORE_OUTPUT:
            return LUPINE_DECODE_OUTPUT_FULL;
        default:
            return LUPINE_DECODE_CORRUPT;
        }
    }
    case LUPINE_CODING_ZSTD: {
        zstd_in_buffer in = {input, input_length, 0};
        zstd_out_buffer out = {output, output_capacity, 0};
        for (;;) {
            size_t result = zstd.decompress_stream(decoder->state, &out, &in);
            *consumed = in.pos;
            *produced = out.pos;
            if (zstd.is_error(result)) {
                // ZSTD_error_frameParameter_windowTooLarge is 16 in every release since 1.3.
                return result == (size_t)-16 ? LUPINE_DECODE_TOO_LARGE : LUPINE_DECODE_CORRUPT;
            }
            decoder->complete = result == 0;
            // Frames may follow one another (RFC 8878 §3.1): a body ends complete after any of them.
            if (out.pos == out.size) return LUPINE_DECODE_OUTPUT_FULL;
            if (in.pos == in.size) return LUPINE_DECODE_NEEDS_INPUT;
        }
    }
    }
    return LUPINE_DECODE_CORRUPT;
}

lupine_decode_status lupine_decoder_run(
    lupine_decoder *decoder, const uint8_t *input, size_t input_length, size_t *consumed, uint8_t *output,
    size_t output_capacity, size_t *produced) {
    lupine_decode_status status = run(decoder, input, input_length, consumed, output, output_capacity, produced);
    decoder->started = decoder->started || *consumed > 0;
    if (status == LUPINE_DECODE_END) decoder->complete = 1;
    if (decoder->coding == LUPINE_CODING_GZIP) decoder->complete = decoder->between_members;
    return status;
}

int lupine_decoder_is_complete(const lupine_decoder *decoder) {
    return !decoder->started || decoder->complete;
}

void lupine_decoder_destroy(lupine_decoder *decoder) {
    if (decoder == NULL) return;
    switch (decoder->coding) {
    case LUPINE_CODING_GZIP:
    case LUPINE_CODING_DEFLATE:
        inflateEnd(&decoder->zlib);
        break;
    case LUPINE_CODING_BROTLI:
        brotli.destroy(decoder->state);
        break;
    case LUPINE_CODING_ZSTD:
        zstd.free(decoder->state);
        break;
    }
    free(decoder);
}

size_t lupine_encode_bound(lupine_coding coding, size_t length) {
    pthread_once(&libraries_once, load_libraries);
    if (coding == LUPINE_CODING_BROTLI && brotli.compress != NULL) return brotli.bound(length);
    if (coding == LUPINE_CODING_ZSTD && zstd.compress != NULL) return zstd.bound(length);
    return 0;
}

size_t lupine_encode(lupine_coding coding, const uint8_t *input, size_t length, uint8_t *output, size_t capacity) {
    pthread_once(&libraries_once, load_libraries);
    if (coding == LUPINE_CODING_BROTLI && brotli.compress != NULL) {
        size_t encoded = capacity;
        // Quality 5, a 4 MiB window, generic mode: what servers commonly send.
        return brotli.compress(5, 22, 0, length, input, &encoded, output) ? encoded : 0;
    }
    if (coding == LUPINE_CODING_ZSTD && zstd.compress != NULL) {
        size_t encoded = zstd.compress(output, capacity, input, length, 3);
        return zstd.is_error(encoded) ? 0 : encoded;
    }
    return 0;
}
