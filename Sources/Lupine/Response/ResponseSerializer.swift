import Foundation

/// What a response serializer makes of a body: a value, an error, or both — when only the
/// status code is unacceptable, the body is still parsed and handed over with the error, as
/// AFNetworking does.
public struct SerializedResponse<Value: Sendable>: Sendable {
    /// The parsed value, if the body could be parsed.
    public var value: Value?
    /// Why the response is not acceptable or could not be parsed, if so.
    public var error: LupineError?

    /// Creates a result.
    public init(value: Value?, error: LupineError?) {
        self.value = value
        self.error = error
    }
}

/// Turns a response head and body into a value, after validating the status code and content
/// type. Serializers are pure values: they never touch the network, so they are testable with
/// a head and some bytes.
public protocol ResponseSerializer: Sendable {
    /// The type of the values this serializer produces.
    associatedtype SerializedObject: Sendable

    /// The status codes that pass validation (default 200..<300).
    var acceptableStatusCodes: IndexSet { get set }
    /// The MIME types that pass validation; `nil` accepts any.
    var acceptableContentTypes: Set<String>? { get set }

    /// Validates and parses one response.
    func serialize(head: ResponseHead?, data: [UInt8], request: Request?) -> SerializedResponse<SerializedObject>
}

extension ResponseSerializer {
    /// Checks the status code and content type. Returns the validation error, or `nil` when valid.
    ///
    /// As AFNetworking's `validateResponse:data:error:` does, an empty body is never a content
    /// type error, whatever the type says: there is nothing in it to misread (a `204`, or a
    /// `200` with `Content-Length: 0` and `text/html` from a proxy), and the serializers give no
    /// value and no error for it.
    ///
    /// As AFNetworking does, an unacceptable status code is the error reported even when the
    /// content type is unacceptable too (an HTML error page to a JSON serializer); the
    /// content-type failure is then its `underlying` error.
    public func validationError(head: ResponseHead?, data: [UInt8]) -> LupineError? {
        guard let head else { return nil }
        var contentTypeError: LupineError?
        if let acceptable = self.acceptableContentTypes {
            let mimeType = head.mimeType
            if !data.isEmpty, !(mimeType.map { acceptable.contains($0) } ?? false) {
                contentTypeError = .responseValidationFailed(
                    .unacceptableContentType(
                        contentType: mimeType,
                        acceptable: acceptable.sorted(),
                        head: head,
                        body: data
                    )
                )
            }
        }
        if !self.acceptableStatusCodes.contains(head.statusCode) {
            return .responseValidationFailed(
                .unacceptableStatusCode(code: head.statusCode, head: head, body: data, underlying: contentTypeError)
            )
        }
        return contentTypeError
    }

    /// Applies the rule every serializer shares, AFNetworking's: validate first, then parse.
    ///
    /// - An unacceptable content type stops parsing: the validation error is returned alone (the
    ///   status error carrying it, when the status code is unacceptable too).
    /// - An unacceptable status code alone does not stop parsing: the parsed value is returned
    ///   together with the validation error (which carries the body), so a 404 with a JSON body
    ///   still hands over its JSON.
    /// - When parsing fails, the validation error, if any, is reported in preference to the
    ///   parsing error, since it is the first thing that went wrong; otherwise the parsing error.
    ///
    /// Custom serializers call this from ``serialize(head:data:request:)`` with their parser.
    /// - Parameters:
    ///   - head: The response head, or `nil` when none arrived (nothing is validated then).
    ///   - data: The body bytes.
    ///   - parse: Makes the value of the body; `nil` means the body holds no value.
    public func validateThenParse(
        head: ResponseHead?,
        data: [UInt8],
        parse: () throws(LupineError) -> SerializedObject?
    ) -> SerializedResponse<SerializedObject> {
        let validationError = self.validationError(head: head, data: data)
        switch validationError {
        case .responseValidationFailed(.unacceptableContentType),
            .responseValidationFailed(.unacceptableStatusCode(_, _, _, underlying: .some)):
            return SerializedResponse(value: nil, error: validationError)
        default:
            break
        }
        do {
            return SerializedResponse(value: try parse(), error: validationError)
        } catch {
            return SerializedResponse(value: nil, error: validationError ?? error)
        }
    }
}
