import Foundation

extension RequestSerializer {
    /// Builds a `multipart/form-data` request, as AFNetworking's
    /// `multipartFormRequestWithMethod:URLString:parameters:constructingBodyWithBlock:error:`:
    /// `parameters` become form fields first (flattened with the query-string rules, so
    /// `["user": ["name": "x"]]` is the field `user[name]`; a `Data` or `[UInt8]` value is sent
    /// as its raw bytes, a null as an empty field), then `constructingBody` appends parts.
    ///
    /// - Throws: ``LupineError/parameterEncodingFailed(_:)`` with
    ///   ``LupineError/ParameterEncodingFailureReason/methodNotAllowed(_:)`` for `GET` and `HEAD`,
    ///   or with ``LupineError/ParameterEncodingFailureReason/unsupportedValue(key:type:)`` for a
    ///   parameter the query-string rules do not define (a `Date`, a type of your own);
    ///   ``LupineError/invalidHeader(name:reason:)`` for a default header field HTTP does not
    ///   allow; ``LupineError/invalidURL(_:)``; whatever `constructingBody` throws (a missing file part).
    public func multipartFormRequest(
        method: HTTPMethod,
        urlString: String,
        relativeTo baseURL: URL? = nil,
        parameters: [String: any Sendable]? = nil,
        constructingBody: (inout MultipartFormData) throws -> Void
    ) throws -> Request {
        guard method != .GET, method != .HEAD else {
            throw LupineError.parameterEncodingFailed(.methodNotAllowed(method.rawValue))
        }
        var request = try self.base.serialize(
            self.base.makeRequest(method: method, urlString: urlString, relativeTo: baseURL),
            parameters: nil
        )
        var form = MultipartFormData()
        for pair in try QueryStringPair.pairs(field: nil, value: parameters ?? [:], keepingBytes: true) {
            switch pair.value {
            case .null: form.appendPart(formData: [], name: pair.field)
            case .text(let text): form.appendPart(formData: text, name: pair.field)
            case .bytes(let bytes): form.appendPart(formData: bytes, name: pair.field)
            }
        }
        try constructingBody(&form)
        request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
        request.body = .multipart(form)
        return request
    }

    /// Writes the multipart body of `request` to the file at `fileURL` (replacing it), and
    /// returns the request with that file as its body, ready for an upload from file, as
    /// AFNetworking's `requestWithMultipartFormRequest:writingStreamContentsToFile:completionHandler:`.
    ///
    /// - Throws: ``LupineError/multipartEncodingFailed(_:)`` when `request` has no multipart body,
    ///   a part cannot be read, or the file cannot be written (then the file is left as it was;
    ///   a directory, device or FIFO at `fileURL` is never replaced).
    public func requestWithMultipartFormRequest(_ request: Request, writingStreamContentsTo fileURL: URL) async throws -> Request {
        guard case .multipart(let form) = request.body else {
            throw LupineError.multipartEncodingFailed(.requestHasNoMultipartBody)
        }
        try await MultipartFileWriter.write(form, to: fileURL)
        var written = request
        written.body = .file(fileURL)
        return written
    }
}
