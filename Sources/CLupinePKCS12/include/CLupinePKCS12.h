// PKCS#12 bundles (.p12, .pfx) for Lupine's client identities, read by the system's libcrypto
// (OpenSSL 3, or 1.1) loaded at run time: NIOSSL's own reader traps on a bundle without a key or
// a certificate, and BoringSSL lacks the legacy ciphers (RC2, 3DES) older exports use. Building
// Lupine needs no OpenSSL; a machine without it cannot read bundles and says so.
#ifndef CLUPINE_PKCS12_H
#define CLUPINE_PKCS12_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    LUPINE_PKCS12_OK = 0,
    /// The system's libcrypto could not be loaded.
    LUPINE_PKCS12_UNAVAILABLE = 1,
    /// The bytes are not a PKCS#12 bundle.
    LUPINE_PKCS12_NOT_PKCS12 = 2,
    /// The bundle's integrity check fails with this passphrase.
    LUPINE_PKCS12_WRONG_PASSPHRASE = 3,
    /// The passphrase is right but a part does not decrypt (a cipher this libcrypto lacks, or damage).
    LUPINE_PKCS12_UNREADABLE = 4,
    /// The bundle holds no private key.
    LUPINE_PKCS12_NO_KEY = 5,
    /// The bundle holds no certificate.
    LUPINE_PKCS12_NO_CERTIFICATE = 6,
    /// Memory ran out, or the key could not be written out.
    LUPINE_PKCS12_FAILED = 7,
    /// The bundle has no integrity check (MAC), which OpenSSL's reader requires.
    LUPINE_PKCS12_NO_MAC = 8,
} lupine_pkcs12_status;

/// One DER value, allocated with malloc.
typedef struct {
    uint8_t *bytes;
    size_t length;
} lupine_der;

/// What a bundle holds: its private key (PKCS#8 DER) and its certificates (DER), the key's own
/// certificate first.
typedef struct {
    lupine_der key;
    lupine_der *certificates;
    size_t certificate_count;
} lupine_pkcs12_contents;

/// Whether the system's libcrypto loads; 1 or 0.
int lupine_pkcs12_available(void);

/// Reads the bundle of `length` bytes with `passphrase` (NUL-terminated; NULL for none, which also
/// tries the empty one, as OpenSSL's own tools do). On LUPINE_PKCS12_OK `contents` holds what it
/// read, to be released with lupine_pkcs12_release; otherwise `contents` is left empty.
lupine_pkcs12_status lupine_pkcs12_read(const uint8_t *bytes, size_t length, const char *passphrase,
                                        lupine_pkcs12_contents *contents);

/// Releases what lupine_pkcs12_read gave, wiping the key's bytes first.
void lupine_pkcs12_release(lupine_pkcs12_contents *contents);

#endif
