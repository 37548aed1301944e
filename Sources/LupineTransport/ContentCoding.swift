import CLupineCodings

/// A content coding a response body may arrive in (RFC 9110 §8.4.1), which the transport decodes
/// when ``TransportConfiguration/decompressesResponses`` is on.
///
/// gzip and deflate are decoded everywhere. br and zstd are decoded with the system's libbrotlidec
/// and libzstd, found when first needed: a machine without them does not name them in
/// `Accept-Encoding`, and a body that arrives in them anyway is handed over as it came.
public enum ContentCoding: String, Sendable, CaseIterable {
    /// gzip (RFC 1952); `x-gzip` is read as gzip.
    case gzip
    /// deflate in the zlib format (RFC 1950), or raw deflate (RFC 1951) as some servers send it.
    case deflate
    /// Brotli (RFC 7932).
    case brotli = "br"
    /// Zstandard (RFC 8878), with a window of at most 8 MiB as RFC 9659 allows a decoder to demand.
    case zstd

    /// Whether this machine decodes the coding.
    public var isAvailable: Bool {
        lupine_coding_available(self.cValue) == 1
    }

    /// The codings this machine decodes, in the order `Accept-Encoding` names them (looked up
    /// once: a library installed while the process runs is not seen).
    public static let available: [ContentCoding] = Self.allCases.filter(\.isAvailable)

    /// The `Accept-Encoding` value the transport sends on a request that has none: every
    /// available coding, such as `gzip, deflate, br, zstd`.
    public static let acceptEncoding: String = Self.available.map(\.rawValue).joined(separator: ", ")

    /// The coding a `Content-Encoding` token names (without case), if it is one of these.
    init?(token: String) {
        let token = token.lowercased()
        self.init(rawValue: token == "x-gzip" ? "gzip" : token)
    }

    var cValue: lupine_coding {
        switch self {
        case .gzip: return LUPINE_CODING_GZIP
        case .deflate: return LUPINE_CODING_DEFLATE
        case .brotli: return LUPINE_CODING_BROTLI
        case .zstd: return LUPINE_CODING_ZSTD
        }
    }
}
