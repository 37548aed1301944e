import Foundation

/// The Swift-concurrency call style: each verb returns the ``Response`` or throws the
/// ``LupineError``; cancelling the calling Swift task cancels the request.
extension HTTPSessionManager {
    /// Sends `method` to `urlString` and serializes the response with `serializer`.
    // Inlinable, as `response(for:serializer:)`: the caller's module specializes it.
    @inlinable
    public func request<Serializer: ResponseSerializer>(
        _ method: HTTPMethod,
        _ urlString: String,
        parameters: [String: any Sendable]? = nil,
        headers: [String: String]? = nil,
        serializer: Serializer
    ) async throws -> Response<Serializer.SerializedObject> {
        let request = try self.makeRequestThrowingLupineError(method, urlString, parameters: parameters, headers: headers)
        return try await self.response(for: request, serializer: serializer)
    }

    /// Runs `request` as a data task and serializes its response with `serializer`; the value
    /// keeps the serializer's type from the serializer to the ``Response``.
    // Inlinable, as `request(_:_:parameters:headers:serializer:)`, so that the caller's module
    // specializes the serialization for its serializer; the task itself runs in the non-generic
    // `runDataTask(_:serialization:)`.
    @inlinable
    public func response<Serializer: ResponseSerializer>(
        for request: Request,
        serializer: Serializer
    ) async throws -> Response<Serializer.SerializedObject> {
        let typed = TypedValue<Serializer.SerializedObject>()
        let serialization = TaskSerialization(serializer: serializer) { head, data, sent in
            let result = serializer.serialize(head: head, data: data, request: sent)
            typed.set(result.value)
            return SerializedResponse(value: result.value.map { $0 as any Sendable }, error: result.error)
        }
        let (completion, sentRequest) = await self.runDataTask(request, serialization: serialization)
        if let error = completion.error {
            throw error
        }
        guard let value = typed.take() else {
            throw LupineError.responseSerializationFailed(.inputDataNilOrZeroLength)
        }
        return Response(
            request: sentRequest,
            head: completion.response,
            data: completion.responseData,
            result: .success(value),
            metrics: completion.metrics,
            redirectChain: completion.redirectChain
        )
    }

    /// ``makeRequest(_:_:parameters:headers:)`` with any failure as a ``LupineError``.
    @usableFromInline
    func makeRequestThrowingLupineError(
        _ method: HTTPMethod,
        _ urlString: String,
        parameters: [String: any Sendable]?,
        headers: [String: String]?
    ) throws(LupineError) -> Request {
        do {
            return try self.makeRequest(method, urlString, parameters: parameters, headers: headers)
        } catch {
            throw LupineError(translating: error, from: .requestBuilding)
        }
    }

    /// `GET` with the manager's response serializer.
    public func get(
        _ urlString: String,
        parameters: [String: any Sendable]? = nil,
        headers: [String: String]? = nil
    ) async throws -> Response<any Sendable> {
        try await self.request(.GET, urlString, parameters: parameters, headers: headers, serializer: ErasedResponseSerializer(self.responseSerializer))
    }

    /// `GET`, decoding the JSON body as `type`.
    public func get<Value: Decodable & Sendable>(
        _ urlString: String,
        parameters: [String: any Sendable]? = nil,
        headers: [String: String]? = nil,
        as type: Value.Type,
        decoder: JSONDecoder = JSONDecoder()
    ) async throws -> Response<Value> {
        try await self.request(
            .GET,
            urlString,
            parameters: parameters,
            headers: headers,
            serializer: DecodableResponseSerializer<Value>(decoder: decoder)
        )
    }

    /// `HEAD`; the response has no body.
    public func head(
        _ urlString: String,
        parameters: [String: any Sendable]? = nil,
        headers: [String: String]? = nil
    ) async throws -> Response<[UInt8]> {
        try await self.request(.HEAD, urlString, parameters: parameters, headers: headers, serializer: HTTPResponseSerializer())
    }

    /// `POST` with the manager's response serializer.
    public func post(
        _ urlString: String,
        parameters: [String: any Sendable]? = nil,
        headers: [String: String]? = nil
    ) async throws -> Response<any Sendable> {
        try await self.request(.POST, urlString, parameters: parameters, headers: headers, serializer: ErasedResponseSerializer(self.responseSerializer))
    }

    /// `POST` with a `multipart/form-data` body: `parameters` as form fields, then the parts
    /// `constructingBody` appends; the response goes through the manager's response serializer.
    public func post(
        _ urlString: String,
        parameters: [String: any Sendable]? = nil,
        headers: [String: String]? = nil,
        constructingBody: (inout MultipartFormData) throws -> Void
    ) async throws -> Response<any Sendable> {
        let request: Request
        do {
            request = try self.makeMultipartRequest(urlString, parameters: parameters, headers: headers, constructingBody: constructingBody)
        } catch {
            throw LupineError(translating: error, from: .requestBuilding)
        }
        return try await self.response(for: request, serializer: ErasedResponseSerializer(self.responseSerializer))
    }

    /// `PUT` with the manager's response serializer.
    public func put(
        _ urlString: String,
        parameters: [String: any Sendable]? = nil,
        headers: [String: String]? = nil
    ) async throws -> Response<any Sendable> {
        try await self.request(.PUT, urlString, parameters: parameters, headers: headers, serializer: ErasedResponseSerializer(self.responseSerializer))
    }

    /// `PATCH` with the manager's response serializer.
    public func patch(
        _ urlString: String,
        parameters: [String: any Sendable]? = nil,
        headers: [String: String]? = nil
    ) async throws -> Response<any Sendable> {
        try await self.request(.PATCH, urlString, parameters: parameters, headers: headers, serializer: ErasedResponseSerializer(self.responseSerializer))
    }

    /// `DELETE` with the manager's response serializer.
    public func delete(
        _ urlString: String,
        parameters: [String: any Sendable]? = nil,
        headers: [String: String]? = nil
    ) async throws -> Response<any Sendable> {
        try await self.request(.DELETE, urlString, parameters: parameters, headers: headers, serializer: ErasedResponseSerializer(self.responseSerializer))
    }
}

/// Any response serializer, with its value type erased to `any Sendable`.
public struct ErasedResponseSerializer: ResponseSerializer {
    private var base: any ResponseSerializer

    /// Wraps `base`.
    public init(_ base: any ResponseSerializer) {
        self.base = base
    }

    public var acceptableStatusCodes: IndexSet {
        get { self.base.acceptableStatusCodes }
        set { self.base.acceptableStatusCodes = newValue }
    }

    public var acceptableContentTypes: Set<String>? {
        get { self.base.acceptableContentTypes }
        set { self.base.acceptableContentTypes = newValue }
    }

    /// Serializes with the wrapped serializer; a body that yields no value (an empty JSON body)
    /// becomes `Optional<any Sendable>.none`, so a successful response always has a value.
    public func serialize(head: ResponseHead?, data: [UInt8], request: Request?) -> SerializedResponse<any Sendable> {
        let result = self.base.serializeAny(head: head, data: data, request: request)
        return SerializedResponse(value: result.value ?? (Optional<any Sendable>.none as any Sendable), error: result.error)
    }
}
