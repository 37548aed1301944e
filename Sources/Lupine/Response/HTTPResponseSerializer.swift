import Foundation

/// Validates the status code and content type and hands the body over as bytes, as
/// AFNetworking's `AFHTTPResponseSerializer` does.
///
/// Accepts any content type by default. With an unacceptable status code the bytes are still
/// returned, together with the validation error.
public struct HTTPResponseSerializer: ResponseSerializer {
    /// The status codes that pass validation (default 200..<300).
    public var acceptableStatusCodes: IndexSet
    /// The MIME types that pass validation; `nil` (the default) accepts any.
    public var acceptableContentTypes: Set<String>?

    /// Creates a serializer.
    public init(
        acceptableStatusCodes: IndexSet = IndexSet(integersIn: 200..<300),
        acceptableContentTypes: Set<String>? = nil
    ) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// Validates the response and returns the body bytes.
    public func serialize(head: ResponseHead?, data: [UInt8], request: Request?) -> SerializedResponse<[UInt8]> {
        self.validateThenParse(head: head, data: data) { data }
    }
}
