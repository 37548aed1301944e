import Foundation
import SwiftASN1
import X509

extension SecurityPolicy {
    /// The file name extensions ``certificates(in:)`` reads.
    public static let certificateFileExtensions: Set<String> = ["cer", "der", "crt", "pem"]

    /// The certificates (DER) in the `.cer`, `.der`, `.crt` and `.pem` files of `directory`, as
    /// AFNetworking's `certificatesInBundle:`. Each file may be DER or PEM (with one or more certificates).
    ///
    /// - Throws: ``LupineError/certificateLoadingFailed(path:reason:)`` when the folder cannot be
    ///   listed or a file holds no readable certificate.
    public static func certificates(in directory: URL) throws -> Set<[UInt8]> {
        let files: [URL]
        do {
            files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        } catch {
            throw LupineError.certificateLoadingFailed(path: directory.path, reason: "the folder cannot be read")
        }
        var certificates: Set<[UInt8]> = []
        for file in files.sorted(by: { $0.path < $1.path })
        where Self.certificateFileExtensions.contains(file.pathExtension.lowercased()) {
            certificates.formUnion(try Self.certificates(inFile: file))
        }
        return certificates
    }

    /// The certificates (DER) in one file, DER or PEM encoded.
    ///
    /// - Throws: ``LupineError/certificateLoadingFailed(path:reason:)`` when the file cannot be read
    ///   or holds no valid certificate.
    public static func certificates(inFile file: URL) throws -> [[UInt8]] {
        try Self.documents(inFile: file, pemLabels: ["CERTIFICATE"]).map(\.der)
    }

    /// The public keys (DER `SubjectPublicKeyInfo`) in one file: those of its certificates (DER or
    /// PEM) and its PEM `PUBLIC KEY` blocks, for ``pinnedPublicKeys``.
    ///
    /// - Throws: ``LupineError/certificateLoadingFailed(path:reason:)`` when the file holds neither.
    public static func publicKeys(inFile file: URL) throws -> [[UInt8]] {
        try Self.documents(inFile: file, pemLabels: ["CERTIFICATE", "PUBLIC KEY"]).map { document in
            guard document.label == "CERTIFICATE" else { return document.der }
            do {
                var serializer = DER.Serializer()
                try serializer.serialize(try Certificate(derEncoded: document.der).publicKey)
                return serializer.serializedBytes
            } catch {
                throw LupineError.certificateLoadingFailed(path: file.path, reason: "its public key cannot be encoded")
            }
        }
    }

    /// The DER documents of `file` with their PEM label (`CERTIFICATE` for a DER file), each checked to parse.
    private static func documents(inFile file: URL, pemLabels: Set<String>) throws -> [(label: String, der: [UInt8])] {
        let fail = { (reason: String) in LupineError.certificateLoadingFailed(path: file.path, reason: reason) }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw fail("the file cannot be read")
        }
        let bytes = Array(data)
        let documents: [(label: String, der: [UInt8])]
        if let text = String(bytes: bytes, encoding: .utf8), text.contains("-----BEGIN ") {
            guard let pem = try? PEMDocument.parseMultiple(pemString: text) else {
                throw fail("the PEM text is malformed")
            }
            documents = pem.filter { pemLabels.contains($0.discriminator) }.map { ($0.discriminator, $0.derBytes) }
        } else {
            documents = [("CERTIFICATE", bytes)]
        }
        guard !documents.isEmpty else {
            throw fail("it holds no \(pemLabels.sorted().joined(separator: " or ").lowercased())")
        }
        for document in documents {
            let parses =
                document.label == "CERTIFICATE"
                ? (try? Certificate(derEncoded: document.der)) != nil
                : (try? Certificate.PublicKey(derEncoded: document.der)) != nil
            guard parses else { throw fail("it holds a \(document.label.lowercased()) that cannot be parsed") }
        }
        return documents
    }
}
