#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// Plain words for the low-level errors a transport meets, for one-sentence messages: no errno
/// numbers, no parenthesised internals, no build paths.
package enum TransportErrorWords {
    /// `host:port`, with an IPv6 address in brackets.
    package static func endpoint(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Why a TCP connection to `host:port` could not be made.
    package static func connectFailure(_ error: any Error, host: String, port: Int) -> String {
        let endpoint = self.endpoint(host: host, port: port)
        guard let code = (error as? IOError)?.errnoCode else {
            return "could not connect to \(endpoint): \(self.describe(error))"
        }
        switch code {
        case ECONNREFUSED: return "connection refused by \(endpoint)"
        case ETIMEDOUT: return "connection to \(endpoint) timed out"
        case ECONNRESET: return "connection to \(endpoint) was reset"
        case EHOSTUNREACH: return "no route to host \(endpoint)"
        case ENETUNREACH: return "the network of \(endpoint) is unreachable"
        default: return "could not connect to \(endpoint): \(self.systemMessage(code))"
        }
    }

    /// Why a TLS handshake failed, in words.
    package static func tlsFailure(_ error: any Error) -> String {
        switch error {
        case NIOSSLError.handshakeFailed(let error):
            return self.boringSSLFailure(error)
        case let error as BoringSSLError:
            return self.boringSSLFailure(error)
        case is IOError, ChannelError.eof, NIOSSLError.uncleanShutdown, TransportError.connectionClosedBeforeResponse:
            return "the server closed the connection during the handshake"
        default:
            return self.describe(error)
        }
    }

    /// What is wrong with a response NIO's HTTP/1 parser refused.
    package static func parserFailure(_ error: HTTPParserError) -> String {
        switch error {
        case .headerOverflow:
            return "the server's response headers exceed the 80 KiB limit"
        case .invalidHeaderToken:
            return "the server sent a malformed header"
        case .invalidContentLength, .unexpectedContentLength:
            return "the server sent an invalid Content-Length"
        case .invalidChunkSize:
            return "the server sent a malformed chunked body"
        case .trailingGarbage:
            return "the server sent bytes after the end of its response"
        case .closedConnection, .invalidEOFState:
            return "the server closed the connection in the middle of its response"
        default:
            return "the server's response is not HTTP/1.x"
        }
    }

    /// Any error in words: a system error as the system words it, a Lupine error as its
    /// description, anything else as its description on one line without file paths.
    package static func describe(_ error: any Error) -> String {
        if case NIOSSLError.uncleanShutdown = error {
            return "the TLS connection was closed without close_notify"
        }
        switch error {
        case let error as IOError:
            return self.systemMessage(error.errnoCode)
        case let error as TransportError:
            return error.description
        case let error as any CustomStringConvertible:
            return MessageText.oneLine(self.withoutSourceLocations(error.description))
        default:
            return MessageText.oneLine(self.withoutSourceLocations(String(describing: error)))
        }
    }

    /// The C library's message for `code`, starting in lower case (`connection refused`).
    package static func systemMessage(_ code: CInt) -> String {
        guard let message = strerror(code) else { return "system error \(code)" }
        let text = String(cString: message)
        return text.prefix(1).lowercased() + text.dropFirst()
    }

    private static func boringSSLFailure(_ error: BoringSSLError) -> String {
        switch error {
        case .sslError(let stack), .unknownError(let stack), .invalidSNIName(let stack), .failedToSetALPN(let stack):
            let codes = stack.compactMap { self.reasonCode(in: String(describing: $0)) }
            return codes.first.map(self.words(forTLSReason:)) ?? "the TLS library gave no reason"
        case .zeroReturn, .syscallError:
            return "the server closed the connection during the handshake"
        default:
            return "the TLS library stopped in an unexpected state"
        }
    }

    /// The reason code of a BoringSSL error string such as
    /// `error:1000010b:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER at /path/file.cc:123`.
    private static func reasonCode(in text: String) -> String? {
        guard let start = text.range(of: "OPENSSL_internal:")?.upperBound else { return nil }
        let code = text[start...].prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
        return code.isEmpty ? nil : String(code)
    }

    private static func words(forTLSReason code: String) -> String {
        switch code {
        case "WRONG_VERSION_NUMBER", "HTTP_REQUEST", "UNEXPECTED_RECORD":
            return "the server does not speak TLS on this port"
        case "CERTIFICATE_VERIFY_FAILED":
            return "the server's certificate was not accepted"
        case "TLSV1_ALERT_PROTOCOL_VERSION", "UNSUPPORTED_PROTOCOL":
            return "the server does not support TLS 1.2 or later"
        case "NO_SHARED_CIPHER", "SSLV3_ALERT_HANDSHAKE_FAILURE", "HANDSHAKE_FAILURE_ON_CLIENT_HELLO", "NO_CIPHERS_AVAILABLE":
            return "the server and Lupine have no TLS version or cipher in common"
        case "TLSV1_ALERT_CERTIFICATE_REQUIRED", "SSLV3_ALERT_BAD_CERTIFICATE", "TLSV1_ALERT_UNKNOWN_CA":
            return "the server requires a client certificate"
        case "TLSV1_ALERT_UNRECOGNIZED_NAME", "TLSV1_UNRECOGNIZED_NAME":
            return "the server does not serve this host name"
        default:
            return "the TLS library reports " + code.lowercased().replacingOccurrences(of: "_", with: " ")
        }
    }

    /// `text` without the ` at /path/file.cc:123` locations BoringSSL and others append.
    private static func withoutSourceLocations(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let range = rest.range(of: " at /") {
            result += rest[..<range.lowerBound]
            rest = rest[range.upperBound...].drop { !$0.isWhitespace && $0 != ")" && $0 != "]" }
        }
        return result + rest
    }
}
