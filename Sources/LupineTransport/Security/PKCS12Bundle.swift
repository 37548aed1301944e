import CLupinePKCS12

/// What a PKCS#12 bundle (`.p12`, `.pfx`) holds, read by the system's libcrypto.
///
/// NIOSSL's own reader traps on a bundle that lacks a key or a certificate, and BoringSSL has
/// none of the legacy ciphers (RC2, 3DES) that older exports use, so bundles are read by
/// OpenSSL 3 (or 1.1), loaded when the first bundle is read; the legacy ciphers come from its
/// `legacy` provider, loaded into a library context of Lupine's own. A machine without libcrypto
/// cannot read bundles, and says so.
struct PKCS12Bundle {
    /// The private key, PKCS#8 DER.
    let privateKey: [UInt8]
    /// The certificates, DER, the one the bundle pairs with the key first.
    let certificates: [[UInt8]]

    /// Reads `bytes` with `passphrase` (`nil` for none, which tries the empty one too, as
    /// OpenSSL's tools do).
    init(_ bytes: [UInt8], passphrase: String?) throws(ClientIdentityError) {
        if let passphrase, passphrase.utf8.contains(0) {
            throw ClientIdentityError(reason: "the passphrase holds a NUL character")
        }
        var contents = lupine_pkcs12_contents()
        let status = bytes.withUnsafeBufferPointer { buffer in
            if let passphrase {
                return lupine_pkcs12_read(buffer.baseAddress, buffer.count, passphrase, &contents)
            }
            return lupine_pkcs12_read(buffer.baseAddress, buffer.count, nil, &contents)
        }
        defer { lupine_pkcs12_release(&contents) }
        switch status {
        case LUPINE_PKCS12_OK:
            break
        case LUPINE_PKCS12_UNAVAILABLE:
            throw ClientIdentityError(
                reason: "PKCS#12 bundles are read with the system's libcrypto (OpenSSL 3 or 1.1), which this machine lacks; "
                    + "convert it with `openssl pkcs12 -in BUNDLE -nodes -out identity.pem`"
            )
        case LUPINE_PKCS12_NOT_PKCS12:
            throw ClientIdentityError(reason: "the bundle is not PKCS#12")
        case LUPINE_PKCS12_WRONG_PASSPHRASE:
            throw ClientIdentityError(
                reason: passphrase == nil ? "the bundle is protected by a passphrase; give it" : "the passphrase does not open the bundle"
            )
        case LUPINE_PKCS12_UNREADABLE:
            throw ClientIdentityError(
                reason: "the bundle does not decrypt (damaged, or in a cipher this machine's OpenSSL does not provide, such as RC2 without its legacy module)"
            )
        case LUPINE_PKCS12_NO_KEY:
            throw ClientIdentityError(reason: "the bundle holds no private key")
        case LUPINE_PKCS12_NO_MAC:
            throw ClientIdentityError(reason: "the bundle has no integrity check (exported with -nomac); export it again with one")
        case LUPINE_PKCS12_NO_CERTIFICATE:
            throw ClientIdentityError(reason: "the bundle holds no certificate")
        default:
            throw ClientIdentityError(reason: "the bundle could not be read (out of memory)")
        }
        self.privateKey = Self.bytes(of: contents.key)
        self.certificates = (0..<contents.certificate_count).map { Self.bytes(of: contents.certificates[$0]) }
    }

    private static func bytes(of der: lupine_der) -> [UInt8] {
        guard let start = der.bytes else { return [] }
        return Array(UnsafeBufferPointer(start: start, count: der.length))
    }

    /// Whether `bytes` look like a PKCS#12 bundle: a DER SEQUENCE whose first element is the
    /// INTEGER 3 (the bundle's version), as no certificate or key begins.
    static func looksLikeBundle(_ bytes: [UInt8]) -> Bool {
        guard bytes.count > 8, bytes[0] == 0x30 else { return false }
        // The SEQUENCE's length takes one byte, or 0x8N and N more.
        let lengthBytes = bytes[1] < 0x80 ? 0 : Int(bytes[1] & 0x7F)
        let version = 2 + lengthBytes
        guard lengthBytes <= 4, bytes.count > version + 2 else { return false }
        return bytes[version] == 0x02 && bytes[version + 1] == 0x01 && bytes[version + 2] == 0x03
    }
}
