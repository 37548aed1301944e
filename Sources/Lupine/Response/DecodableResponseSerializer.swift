import Foundation

/// Validates a response and decodes its body into `Value`, with a `JSONDecoder` by default.
///
/// An empty body is an error (``LupineError/ResponseSerializationFailureReason/inputDataNilOrZeroLength``)
/// unless the response may be empty — its status is in ``emptyResponseCodes`` or the request's
/// method is in ``emptyRequestMethods`` — and `Value` conforms to ``EmptyResponse``, as ``Empty``
/// does; then the value is `Value.emptyValue()`.
public struct DecodableResponseSerializer<Value: Decodable & Sendable>: ResponseSerializer {
    /// The status codes that pass validation (default 200..<300).
    public var acceptableStatusCodes: IndexSet
    /// The MIME types that pass validation: `application/json`, `text/json` and
    /// `text/javascript` by default; set it to match another ``decoder``.
    public var acceptableContentTypes: Set<String>?
    /// What decodes the body.
    public var decoder: any DataDecoder
    /// The status codes whose responses may have an empty body (default 204 and 205).
    public var emptyResponseCodes: Set<Int>
    /// The request methods whose responses may have an empty body (default `HEAD`).
    public var emptyRequestMethods: [HTTPMethod]

    /// Creates a serializer.
    public init(
        _ type: Value.Type = Value.self,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = [204, 205],
        emptyRequestMethods: [HTTPMethod] = [.HEAD],
        acceptableStatusCodes: IndexSet = IndexSet(integersIn: 200..<300),
        acceptableContentTypes: Set<String>? = ["application/json", "text/json", "text/javascript"]
    ) {
        self.decoder = decoder
        self.emptyResponseCodes = emptyResponseCodes
        self.emptyRequestMethods = emptyRequestMethods
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// Validates the response and decodes its body.
    public func serialize(head: ResponseHead?, data: [UInt8], request: Request?) -> SerializedResponse<Value> {
        self.validateThenParse(head: head, data: data) { () throws(LupineError) -> Value? in
            guard !data.isEmpty else { return try self.valueOfEmptyBody(head: head, request: request) }
            do {
                return try self.decoder.decode(Value.self, from: Data(data))
            } catch let error as DecodingError {
                throw .responseSerializationFailed(.decodingFailed(reason: error.reason))
            } catch {
                throw .responseSerializationFailed(.decodingFailed(reason: error.debugReason))
            }
        }
    }

    private func valueOfEmptyBody(head: ResponseHead?, request: Request?) throws(LupineError) -> Value {
        let emptyAllowed =
            head.map { self.emptyResponseCodes.contains($0.statusCode) } == true
            || request.map { self.emptyRequestMethods.contains($0.method) } == true
        guard emptyAllowed, let value = (Value.self as? any EmptyResponse.Type)?.emptyValue() as? Value else {
            throw .responseSerializationFailed(.inputDataNilOrZeroLength)
        }
        return value
    }
}
