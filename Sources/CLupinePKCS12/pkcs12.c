#include "CLupinePKCS12.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// The parts of libcrypto used here, declared as OpenSSL 1.1 and 3 export them (opaque pointers
// stand for its types), and looked up when a bundle is first read.
typedef void *(*d2i_pkcs12_fn)(void **, const unsigned char **, long);
typedef void (*free_fn)(void *);
typedef int (*mac_present_fn)(const void *);
typedef int (*verify_mac_fn)(void *, const char *, int);
typedef int (*parse_fn)(void *, const char *, void **, void **, void **);
typedef int (*i2d_fn)(const void *, unsigned char **);
typedef void *(*pkey_to_pkcs8_fn)(const void *);
typedef int (*stack_num_fn)(const void *);
typedef void *(*stack_value_fn)(const void *, int);
typedef void (*stack_pop_free_fn)(void *, void (*)(void *));
typedef void (*clear_error_fn)(void);
typedef void *(*library_context_new_fn)(void);
typedef void *(*provider_load_fn)(void *, const char *);
typedef void *(*set_default_context_fn)(void *);

static struct {
    d2i_pkcs12_fn d2i_pkcs12;
    free_fn pkcs12_free;
    mac_present_fn mac_present;
    verify_mac_fn verify_mac;
    parse_fn parse;
    free_fn pkey_free;
    free_fn x509_free;
    i2d_fn i2d_x509;
    pkey_to_pkcs8_fn pkey_to_pkcs8;
    i2d_fn i2d_pkcs8;
    free_fn pkcs8_free;
    stack_num_fn stack_num;
    stack_value_fn stack_value;
    stack_pop_free_fn stack_pop_free;
    clear_error_fn clear_error;
    set_default_context_fn set_default_context;
    // OpenSSL 3: a library context of Lupine's own with the default and legacy providers, so that
    // bundles in RC2 or 3DES (older exports, Windows, macOS) read without changing the process's
    // default context, which other users of libcrypto share. NULL on 1.1, whose ciphers are all built in.
    void *context;
    int loaded;
} crypto;

static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;

static void load_crypto(void) {
    static const char *const names[] = {
        "libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.3.dylib", "/opt/homebrew/opt/openssl@3/lib/libcrypto.3.dylib",
        "/usr/local/opt/openssl@3/lib/libcrypto.3.dylib", NULL};
    void *library = NULL;
    for (const char *const *name = names; *name != NULL && library == NULL; name++) {
        library = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) return;
    crypto.d2i_pkcs12 = (d2i_pkcs12_fn)dlsym(library, "d2i_PKCS12");
    crypto.pkcs12_free = (free_fn)dlsym(library, "PKCS12_free");
    crypto.mac_present = (mac_present_fn)dlsym(library, "PKCS12_mac_present");
    crypto.verify_mac = (verify_mac_fn)dlsym(library, "PKCS12_verify_mac");
    crypto.parse = (parse_fn)dlsym(library, "PKCS12_parse");
    crypto.pkey_free = (free_fn)dlsym(library, "EVP_PKEY_free");
    crypto.x509_free = (free_fn)dlsym(library, "X509_free");
    crypto.i2d_x509 = (i2d_fn)dlsym(library, "i2d_X509");
    crypto.pkey_to_pkcs8 = (pkey_to_pkcs8_fn)dlsym(library, "EVP_PKEY2PKCS8");
    crypto.i2d_pkcs8 = (i2d_fn)dlsym(library, "i2d_PKCS8_PRIV_KEY_INFO");
    crypto.pkcs8_free = (free_fn)dlsym(library, "PKCS8_PRIV_KEY_INFO_free");
    crypto.stack_num = (stack_num_fn)dlsym(library, "OPENSSL_sk_num");
    crypto.stack_value = (stack_value_fn)dlsym(library, "OPENSSL_sk_value");
    crypto.stack_pop_free = (stack_pop_free_fn)dlsym(library, "OPENSSL_sk_pop_free");
    crypto.clear_error = (clear_error_fn)dlsym(library, "ERR_clear_error");
    crypto.loaded = crypto.d2i_pkcs12 != NULL && crypto.pkcs12_free != NULL && crypto.mac_present != NULL
        && crypto.verify_mac != NULL && crypto.parse != NULL && crypto.pkey_free != NULL && crypto.x509_free != NULL
        && crypto.i2d_x509 != NULL && crypto.pkey_to_pkcs8 != NULL && crypto.i2d_pkcs8 != NULL && crypto.pkcs8_free != NULL
        && crypto.stack_num != NULL && crypto.stack_value != NULL && crypto.stack_pop_free != NULL
        && crypto.clear_error != NULL;

    library_context_new_fn context_new = (library_context_new_fn)dlsym(library, "OSSL_LIB_CTX_new");
    provider_load_fn provider_load = (provider_load_fn)dlsym(library, "OSSL_PROVIDER_load");
    crypto.set_default_context = (set_default_context_fn)dlsym(library, "OSSL_LIB_CTX_set0_default");
    if (crypto.loaded && context_new != NULL && provider_load != NULL && crypto.set_default_context != NULL) {
        void *context = context_new();
        if (context != NULL && provider_load(context, "default") != NULL) {
            // Without the legacy module (not installed) only RC2 and 3DES bundles fail.
            (void)provider_load(context, "legacy");
            crypto.context = context;
        }
        crypto.clear_error();
    }
}

int lupine_pkcs12_available(void) {
    pthread_once(&crypto_once, load_crypto);
    return crypto.loaded;
}

static void wipe(uint8_t *bytes, size_t length) {
    volatile uint8_t *volatile_bytes = bytes;
    for (size_t index = 0; index < length; index++) volatile_bytes[index] = 0;
}

static int copy_der(const void *value, i2d_fn encode, lupine_der *der) {
    int length = encode(value, NULL);
    if (length <= 0) return 0;
    uint8_t *bytes = malloc((size_t)length);
    if (bytes == NULL) return 0;
    unsigned char *cursor = bytes;
    if (encode(value, &cursor) != length) {
        wipe(bytes, (size_t)length);
        free(bytes);
        return 0;
    }
    der->bytes = bytes;
    der->length = (size_t)length;
    return 1;
}

void lupine_pkcs12_release(lupine_pkcs12_contents *contents) {
    if (contents->key.bytes != NULL) {
        wipe(contents->key.bytes, contents->key.length);
        free(contents->key.bytes);
    }
    for (size_t index = 0; index < contents->certificate_count; index++) free(contents->certificates[index].bytes);
    free(contents->certificates);
    memset(contents, 0, sizeof(*contents));
}

// The passphrase whose MAC checks out (NULL and "" are tried for none), or why none does.
static lupine_pkcs12_status choose_passphrase(void *bundle, const char *passphrase, const char **chosen) {
    // PKCS12_parse verifies the MAC and fails without one.
    if (!crypto.mac_present(bundle)) return LUPINE_PKCS12_NO_MAC;
    if (passphrase != NULL && *passphrase != '\0') {
        *chosen = passphrase;
        return crypto.verify_mac(bundle, passphrase, -1) ? LUPINE_PKCS12_OK : LUPINE_PKCS12_WRONG_PASSPHRASE;
    }
    if (crypto.verify_mac(bundle, NULL, 0)) {
        *chosen = NULL;
        return LUPINE_PKCS12_OK;
    }
    if (crypto.verify_mac(bundle, "", 0)) {
        *chosen = "";
        return LUPINE_PKCS12_OK;
    }
    return LUPINE_PKCS12_WRONG_PASSPHRASE;
}

static lupine_pkcs12_status read_bundle(const uint8_t *bytes, size_t length, const char *passphrase,
                                        lupine_pkcs12_contents *contents) {
    if (length == 0 || length > LONG_MAX) return LUPINE_PKCS12_NOT_PKCS12;
    const unsigned char *cursor = bytes;
    void *bundle = crypto.d2i_pkcs12(NULL, &cursor, (long)length);
    if (bundle == NULL) return LUPINE_PKCS12_NOT_PKCS12;
    const char *chosen = NULL;
    lupine_pkcs12_status status = choose_passphrase(bundle, passphrase, &chosen);
    void *key = NULL, *certificate = NULL, *others = NULL;
    if (status == LUPINE_PKCS12_OK && !crypto.parse(bundle, chosen, &key, &certificate, &others)) {
        status = LUPINE_PKCS12_UNREADABLE;
    }
    crypto.pkcs12_free(bundle);
    int other_count = others != NULL ? crypto.stack_num(others) : 0;
    if (status == LUPINE_PKCS12_OK && key == NULL) status = LUPINE_PKCS12_NO_KEY;
    if (status == LUPINE_PKCS12_OK && certificate == NULL && other_count <= 0) status = LUPINE_PKCS12_NO_CERTIFICATE;
    if (status == LUPINE_PKCS12_OK) {
        void *info = crypto.pkey_to_pkcs8(key);
        if (info == NULL || !copy_der(info, crypto.i2d_pkcs8, &contents->key)) status = LUPINE_PKCS12_FAILED;
        if (info != NULL) crypto.pkcs8_free(info);
    }
    if (status == LUPINE_PKCS12_OK) {
        size_t capacity = (size_t)(other_count > 0 ? other_count : 0) + 1;
        contents->certificates = calloc(capacity, sizeof(lupine_der));
        if (contents->certificates == NULL) status = LUPINE_PKCS12_FAILED;
    }
    if (status == LUPINE_PKCS12_OK && certificate != NULL) {
        if (copy_der(certificate, crypto.i2d_x509, &contents->certificates[0])) {
            contents->certificate_count = 1;
        } else {
            status = LUPINE_PKCS12_FAILED;
        }
    }
    for (int index = 0; status == LUPINE_PKCS12_OK && index < other_count; index++) {
        if (copy_der(crypto.stack_value(others, index), crypto.i2d_x509, &contents->certificates[contents->certificate_count])) {
            contents->certificate_count += 1;
        } else {
            status = LUPINE_PKCS12_FAILED;
        }
    }
    if (key != NULL) crypto.pkey_free(key);
    if (certificate != NULL) crypto.x509_free(certificate);
    if (others != NULL) crypto.stack_pop_free(others, crypto.x509_free);
    return status;
}

lupine_pkcs12_status lupine_pkcs12_read(const uint8_t *bytes, size_t length, const char *passphrase,
                                        lupine_pkcs12_contents *contents) {
    memset(contents, 0, sizeof(*contents));
    if (!lupine_pkcs12_available()) return LUPINE_PKCS12_UNAVAILABLE;
    // Lupine's context is this thread's default for the read only.
    void *previous = crypto.context != NULL ? crypto.set_default_context(crypto.context) : NULL;
    lupine_pkcs12_status status = read_bundle(bytes, length, passphrase, contents);
    if (crypto.context != NULL) crypto.set_default_context(previous);
    crypto.clear_error();
    if (status != LUPINE_PKCS12_OK) lupine_pkcs12_release(contents);
    return status;
}
