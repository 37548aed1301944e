import Foundation

/// Fetches the certificate chain a TLS server presents, without a TLS library.
///
/// It offers only TLS 1.2, where the server's `Certificate` handshake message travels in clear
/// text, and reads records until that message arrives. Nothing else of the handshake is done.
enum TLSCertificateProbe {
    enum Failure: Error {
        case alert([UInt8])
        case unexpectedRecord(UInt8)
        case noCertificateMessage
    }

    /// The DER certificates the server at `host`:`port` sends, leaf first.
    static func certificates(host: String, port: Int, serverName: String = "localhost") async throws -> [[UInt8]] {
        let socket = try await Blocking.run { try BlockingSocket.open(host: host, port: port) }
        defer { socket.disconnect() }
        let hello = clientHello(serverName: serverName)
        try await Blocking.run { try socket.write(hello) }

        var received: [UInt8] = []
        var handshake: [UInt8] = []
        while true {
            while let record = takeRecord(from: &received) {
                switch record.type {
                case 22: handshake += record.payload
                case 21: throw Failure.alert(record.payload)
                default: throw Failure.unexpectedRecord(record.type)
                }
            }
            if let certificates = certificateMessage(in: handshake) {
                return certificates
            }
            let bytes = try await Blocking.run { try socket.read() }
            guard !bytes.isEmpty else { throw Failure.noCertificateMessage }
            received += bytes
        }
    }

    private static func clientHello(serverName: String) -> [UInt8] {
        let name = Array(serverName.utf8)
        var extensions: [UInt8] = []
        // server_name
        extensions += [0x00, 0x00] + u16(name.count + 5) + u16(name.count + 3) + [0x00] + u16(name.count) + name
        // supported_groups: secp256r1, x25519
        extensions += [0x00, 0x0A] + u16(6) + u16(4) + [0x00, 0x17, 0x00, 0x1D]
        // ec_point_formats: uncompressed
        extensions += [0x00, 0x0B] + u16(2) + [0x01, 0x00]
        // signature_algorithms: ecdsa_secp256r1_sha256, rsa_pss_rsae_sha256, rsa_pkcs1_sha256
        extensions += [0x00, 0x0D] + u16(8) + u16(6) + [0x04, 0x03, 0x08, 0x04, 0x04, 0x01]

        let cipherSuites: [UInt8] = [0xC0, 0x2B, 0xC0, 0x2C, 0xC0, 0x2F, 0xC0, 0x30, 0xCC, 0xA9, 0xCC, 0xA8]
        var body: [UInt8] = [0x03, 0x03]
        body += (0..<32).map { _ in UInt8.random(in: 0...255) }
        body += [0x00]
        body += u16(cipherSuites.count) + cipherSuites
        body += [0x01, 0x00]
        body += u16(extensions.count) + extensions

        let handshake: [UInt8] = [0x01] + u24(body.count) + body
        return [0x16, 0x03, 0x01] + u16(handshake.count) + handshake
    }

    private static func takeRecord(from bytes: inout [UInt8]) -> (type: UInt8, payload: [UInt8])? {
        guard bytes.count >= 5 else { return nil }
        let length = Int(bytes[3]) << 8 | Int(bytes[4])
        guard bytes.count >= 5 + length else { return nil }
        let record = (bytes[0], Array(bytes[5..<(5 + length)]))
        bytes.removeFirst(5 + length)
        return record
    }

    /// The certificates in the first complete `Certificate` message of `handshake`, if any.
    private static func certificateMessage(in handshake: [UInt8]) -> [[UInt8]]? {
        var offset = 0
        while offset + 4 <= handshake.count {
            let type = handshake[offset]
            let length = u24(handshake, at: offset + 1)
            guard offset + 4 + length <= handshake.count else { return nil }
            if type == 11 {
                var certificates: [[UInt8]] = []
                var cursor = offset + 7
                let end = offset + 4 + length
                while cursor + 3 <= end {
                    let certificateLength = u24(handshake, at: cursor)
                    certificates.append(Array(handshake[(cursor + 3)..<(cursor + 3 + certificateLength)]))
                    cursor += 3 + certificateLength
                }
                return certificates
            }
            offset += 4 + length
        }
        return nil
    }

    private static func u16(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    private static func u24(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 16)] + u16(value)
    }

    private static func u24(_ bytes: [UInt8], at offset: Int) -> Int {
        Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
    }
}
