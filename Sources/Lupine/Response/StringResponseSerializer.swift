import Foundation

/// Validates a response and decodes its body as text.
///
/// The encoding is ``encoding`` when set; otherwise the `charset` of the response's
/// `Content-Type` (IANA names such as `utf-8`, `utf-16`, `utf-16le`, `iso-8859-1`, `latin1`,
/// `us-ascii`, `windows-1252`), or UTF-8 when there is none. An unknown charset, or bytes that are
/// not valid in the encoding, fail with
/// ``LupineError/ResponseSerializationFailureReason/stringSerializationFailed(encoding:)``.
/// An empty body is the empty string. Accepts any content type by default.
public struct StringResponseSerializer: ResponseSerializer {
    /// The status codes that pass validation (default 200..<300).
    public var acceptableStatusCodes: IndexSet
    /// The MIME types that pass validation; `nil` (the default) accepts any.
    public var acceptableContentTypes: Set<String>?
    /// The encoding to use whatever the response says; `nil` (the default) follows the
    /// response's charset.
    public var encoding: String.Encoding?

    /// Creates a serializer.
    public init(
        encoding: String.Encoding? = nil,
        acceptableStatusCodes: IndexSet = IndexSet(integersIn: 200..<300),
        acceptableContentTypes: Set<String>? = nil
    ) {
        self.encoding = encoding
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// Validates the response and decodes its body as text.
    public func serialize(head: ResponseHead?, data: [UInt8], request: Request?) -> SerializedResponse<String> {
        self.validateThenParse(head: head, data: data) { () throws(LupineError) -> String? in
            let (encoding, name) = try self.resolvedEncoding(head: head)
            guard let string = String(bytes: data, encoding: encoding) else {
                throw .responseSerializationFailed(.stringSerializationFailed(encoding: name))
            }
            return string
        }
    }

    /// The encoding to decode with, and its name for an error.
    private func resolvedEncoding(head: ResponseHead?) throws(LupineError) -> (String.Encoding, String) {
        if let encoding = self.encoding {
            return (encoding, encoding.description)
        }
        guard let charset = head?.textEncodingName else { return (.utf8, "utf-8") }
        guard let encoding = String.Encoding(ianaCharsetName: charset) else {
            throw .responseSerializationFailed(.stringSerializationFailed(encoding: charset))
        }
        return (encoding, charset)
    }
}
