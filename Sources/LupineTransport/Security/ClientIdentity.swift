import Foundation
import NIOSSL

/// A client's certificate chain and private key, which TLS connections present to a server that
/// asks for one (mutual TLS), as AFNetworking answers a client-certificate challenge with an
/// `NSURLCredential` holding an identity.
///
/// Made from PEM or DER (a PEM file may hold the chain and the key together), or from a PKCS#12
/// bundle (`.p12`, `.pfx`, read by the system's libcrypto), and checked when made: a file that
/// cannot be read, a directory where a file was expected, a certificate or key that does not
/// parse, an encrypted key or bundle without its passphrase or with a wrong one, a bundle without
/// a key or a certificate, or a key that is not the certificate's each throw a
/// ``ClientIdentityError`` saying so, before any connection. Set it as ``TransportConfiguration/clientIdentity``: every connection of the
/// transport presents it, and the transport's pool holds only connections made with it.
public struct ClientIdentity: Sendable, Hashable {
    let certificateChain: [NIOSSLCertificate]
    let privateKey: NIOSSLPrivateKey

    /// An identity from the bytes of a certificate chain (leaf first) and of its private key,
    /// each PEM or DER; `passphrase` decrypts an encrypted PEM key.
    public init(certificateChain: [UInt8], privateKey: [UInt8], passphrase: String? = nil) throws(ClientIdentityError) {
        let chain = try Self.certificates(certificateChain)
        let key = try Self.privateKey(privateKey, passphrase: passphrase)
        try self.init(checking: chain, key)
    }

    /// An identity from files: the certificate chain's, and the private key's (by default the
    /// same file, a PEM holding both, as curl's `--cert` alone reads it). A certificate file
    /// without a key file that holds a PKCS#12 bundle is read as one, opened with `passphrase`.
    public init(certificateFile: URL, privateKeyFile: URL? = nil, passphrase: String? = nil) throws(ClientIdentityError) {
        let chain = try Self.read(certificateFile, what: "certificate")
        if privateKeyFile == nil, PKCS12Bundle.looksLikeBundle(chain) {
            try self.init(pkcs12: chain, passphrase: passphrase)
            return
        }
        let key = try privateKeyFile.map { (file) throws(ClientIdentityError) in try Self.read(file, what: "private key") } ?? chain
        try self.init(certificateChain: chain, privateKey: key, passphrase: passphrase)
    }

    /// An identity from a PKCS#12 bundle (`.p12`, `.pfx`): its private key and its
    /// certificates, opened with `passphrase` (`nil` for none; the empty one is tried too).
    /// Bundles are read by the system's libcrypto (OpenSSL 3 or 1.1, loaded when first needed;
    /// bundles in RC2 or 3DES need OpenSSL 3's legacy module): on a machine without it this
    /// throws, saying how to convert the bundle to PEM.
    public init(pkcs12 bytes: [UInt8], passphrase: String? = nil) throws(ClientIdentityError) {
        let bundle = try PKCS12Bundle(bytes, passphrase: passphrase)
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(bytes: bundle.privateKey, format: .der)
        } catch {
            throw ClientIdentityError(reason: "the bundle's private key does not parse")
        }
        var chain: [NIOSSLCertificate] = []
        for certificate in bundle.certificates {
            do {
                chain.append(try NIOSSLCertificate(bytes: certificate, format: .der))
            } catch {
                throw ClientIdentityError(reason: "a certificate in the bundle does not parse")
            }
        }
        // A bundle that does not mark which certificate is the key's lists them in any order:
        // the key's own leads the chain.
        for leaf in chain.indices {
            var ordered = chain
            ordered.insert(ordered.remove(at: leaf), at: 0)
            if let identity = try? Self(checking: ordered, key) {
                self = identity
                return
            }
        }
        throw ClientIdentityError(reason: "the private key is not the certificate's")
    }

    /// An identity from a PKCS#12 file, as ``init(pkcs12:passphrase:)`` reads its bytes.
    public init(pkcs12File file: URL, passphrase: String? = nil) throws(ClientIdentityError) {
        try self.init(pkcs12: try Self.read(file, what: "PKCS#12"), passphrase: passphrase)
    }

    private init(checking chain: [NIOSSLCertificate], _ key: NIOSSLPrivateKey) throws(ClientIdentityError) {
        guard !chain.isEmpty else { throw ClientIdentityError(reason: "it holds no certificate") }
        // BoringSSL refuses a key that is not the certificate's when a context takes both.
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateChain = chain.map { .certificate($0) }
        configuration.privateKey = .privateKey(key)
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw ClientIdentityError(reason: "the private key is not the certificate's")
        }
        self.certificateChain = chain
        self.privateKey = key
    }

    private static func certificates(_ bytes: [UInt8]) throws(ClientIdentityError) -> [NIOSSLCertificate] {
        guard !bytes.isEmpty else { throw ClientIdentityError(reason: "the certificate is empty") }
        if Self.isPEM(bytes), !String(decoding: bytes, as: UTF8.self).contains("CERTIFICATE-----") {
            throw ClientIdentityError(reason: "the PEM holds no certificate")
        }
        do {
            if Self.isPEM(bytes) {
                let chain = try NIOSSLCertificate.fromPEMBytes(bytes)
                guard !chain.isEmpty else { throw ClientIdentityError(reason: "the PEM holds no certificate") }
                return chain
            }
            return [try NIOSSLCertificate(bytes: bytes, format: .der)]
        } catch let error as ClientIdentityError {
            throw error
        } catch {
            throw ClientIdentityError(reason: "the certificate is neither PEM nor DER")
        }
    }

    private static func privateKey(_ bytes: [UInt8], passphrase: String?) throws(ClientIdentityError) -> NIOSSLPrivateKey {
        guard Self.isPEM(bytes) else {
            do {
                return try NIOSSLPrivateKey(bytes: bytes, format: .der)
            } catch {
                throw ClientIdentityError(reason: "the private key is neither PEM nor DER")
            }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains("PRIVATE KEY-----") else {
            throw ClientIdentityError(reason: "the PEM holds no private key")
        }
        let encrypted = text.contains("ENCRYPTED")
        if encrypted, passphrase == nil {
            throw ClientIdentityError(reason: "the private key is encrypted; give its passphrase")
        }
        do {
            guard let passphrase else { return try NIOSSLPrivateKey(bytes: bytes, format: .pem) }
            return try NIOSSLPrivateKey(bytes: bytes, format: .pem) { (set: NIOSSLPassphraseSetter<[UInt8]>) in
                set(Array(passphrase.utf8))
            }
        } catch {
            throw ClientIdentityError(reason: encrypted ? "the passphrase does not decrypt the private key" : "the private key does not parse")
        }
    }

    private static func isPEM(_ bytes: [UInt8]) -> Bool {
        String(decoding: bytes.prefix(64 * 1024), as: UTF8.self).contains("-----BEGIN ")
    }

    private static func read(_ file: URL, what: String) throws(ClientIdentityError) -> [UInt8] {
        let named = "the \(what) file \(MessageText.oneLine(file.path))"
        // Through symbolic links, as the read goes.
        var info = stat()
        guard stat(file.path, &info) == 0 else {
            let failure = errno
            guard failure == ENOENT || failure == ENOTDIR else {
                throw ClientIdentityError(reason: "\(named) cannot be read (\(String(cString: strerror(failure))))")
            }
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: file.path) {
                throw ClientIdentityError(reason: "\(named) is a symbolic link to \(MessageText.oneLine(target)), which does not exist")
            }
            throw ClientIdentityError(reason: "\(named) does not exist")
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw ClientIdentityError(reason: "\(named) is a directory")
        case S_IFREG:
            break
        default:
            // A FIFO or a device would block the read, or never end it.
            throw ClientIdentityError(reason: "\(named) is not a regular file")
        }
        // A certificate, a key or a bundle is kilobytes; a huge "file" is a mistake (a disk image,
        // a sparse file): refused by its size, before a byte of it is read.
        let limit = 1024 * 1024
        guard info.st_size <= limit else {
            throw ClientIdentityError(reason: "\(named) is larger than 1 MiB")
        }
        switch readRegularFile(file.path, limit: limit) {
        case .success(let bytes) where bytes.count <= limit:
            return bytes
        case .success:
            throw ClientIdentityError(reason: "\(named) is larger than 1 MiB")
        case .failure(let failure):
            throw ClientIdentityError(reason: "\(named) cannot be read (\(String(cString: strerror(failure.code))))")
        }
    }
}

/// An `errno` value from reading a file.
private struct ReadFailure: Error {
    let code: Int32
}

/// The bytes of the file at `path`, read to its end or to one byte past `limit` (a file that grew
/// since it was examined), or the `errno` of the failed open or read. At file scope, where `open`
/// and `read` are the C library's rather than the identity's own.
private func readRegularFile(_ path: String, limit: Int) -> Result<[UInt8], ReadFailure> {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return .failure(ReadFailure(code: errno)) }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while bytes.count <= limit {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            guard errno == EINTR else { return .failure(ReadFailure(code: errno)) }
            continue
        }
        if count == 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
    }
    return .success(bytes)
}

/// Why a ``ClientIdentity`` could not be made, in words a person can act on.
public struct ClientIdentityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public let reason: String

    /// An error saying `reason`.
    public init(reason: String) {
        self.reason = reason
    }

    public var description: String { "the client certificate cannot be used: \(self.reason)" }
}
