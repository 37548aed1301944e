import Foundation

/// AFNetworking's call style: each verb builds the request, resumes a task and returns it, or
/// returns `nil` after calling `failure` when the request cannot be built.
extension HTTPSessionManager {
    /// Called with the task and the serialized value when a request succeeds.
    public typealias Success = @Sendable (DataTask, (any Sendable)?) -> Void
    /// Called with the task (nil when none was created) and the error when a request fails.
    public typealias Failure = @Sendable (DataTask?, LupineError) -> Void

    /// `GET`, parameters in the query.
    @discardableResult
    public func get(
        _ urlString: String,
        parameters: [String: any Sendable]? = nil,
        headers: [String: String]? = nil,
        progress: (@Sendable (Progress) -> Void)? = nil,
        success: Success?,
        failure: Failure?
    ) -> DataTask? {
        self.dataTask({ try self.makeRequest(.GET, urlString, parameters: parameters, headers: headers) }, uploadProgress: nil, downloadProgress: progress, success, failure)
    }

    /// `HEAD`, parameters in the query; `success` gets no value.
    @discardableResult
    public func head(
        _ urlString: String,
        parameters: [String: any Sendable]? = nil,
        headers: [String: String]? = nil,
        success: (@Sendable (DataTask) -> Void)?,
        failure: Failure?
    ) -> DataTask? {
        self.dataTask({ try self.makeRequest(.HEAD, urlString, parameters: parameters, headers: headers) }, uploadProgress: nil, downloadProgress: nil, { task, _ in success?(task) }, failure)
    }

    /// `POST`, parameters in the body.
    @discardableResult
    public func post(
        _ urlString: String,
        parameters: [String: any Sendable]? = nil,
        headers: [String: String]? = nil,
        progress: (@Sendable (Progress) -> Void)? = nil,
        success: Success?,
        failure: Failure?
    ) -> DataTask? {
        self.dataTask({ try self.makeRequest(.POST, urlString, parameters: parameters, headers: headers) }, uploadProgress: progress, downloadProgress: nil, success, failure)
    }

    /// `PUT`, parameters in the body.
    @discardableResult
    public func put(
        _ urlString: String,
        parameters: [String: any Sendable]? = nil,
        headers: [String: String]? = nil,
        success: Success?,
        failure: Failure?
    ) -> DataTask? {
        self.dataTask({ try self.makeRequest(.PUT, urlString, parameters: parameters, headers: headers) }, uploadProgress: nil, downloadProgress: nil, success, failure)
    }

    /// `PATCH`, parameters in the body.
    @discardableResult
    public func patch(
        _ urlString: String,
        parameters: [String: any Sendable]? = nil,
        headers: [String: String]? = nil,
        success: Success?,
        failure: Failure?
    ) -> DataTask? {
        self.dataTask({ try self.makeRequest(.PATCH, urlString, parameters: parameters, headers: headers) }, uploadProgress: nil, downloadProgress: nil, success, failure)
    }

    /// `DELETE`, parameters in the query.
    @discardableResult
    public func delete(
        _ urlString: String,
        parameters: [String: any Sendable]? = nil,
        headers: [String: String]? = nil,
        success: Success?,
        failure: Failure?
    ) -> DataTask? {
        self.dataTask({ try self.makeRequest(.DELETE, urlString, parameters: parameters, headers: headers) }, uploadProgress: nil, downloadProgress: nil, success, failure)
    }

    /// `POST` with a `multipart/form-data` body: `parameters` as form fields, then the parts
    /// `constructingBody` appends. A missing file part fails here, before anything is sent.
    @discardableResult
    public func post(
        _ urlString: String,
        parameters: [String: any Sendable]? = nil,
        headers: [String: String]? = nil,
        constructingBody: (inout MultipartFormData) throws -> Void,
        progress: (@Sendable (Progress) -> Void)? = nil,
        success: Success?,
        failure: Failure?
    ) -> DataTask? {
        self.dataTask(
            { try self.makeMultipartRequest(urlString, parameters: parameters, headers: headers, constructingBody: constructingBody) },
            uploadProgress: progress,
            downloadProgress: nil,
            success,
            failure
        )
    }

    /// Builds the request, then creates and resumes its task (AFNetworking's `dataTaskWithHTTPMethod:…`).
    private func dataTask(
        _ build: () throws -> Request,
        uploadProgress: (@Sendable (Progress) -> Void)?,
        downloadProgress: (@Sendable (Progress) -> Void)?,
        _ success: Success?,
        _ failure: Failure?
    ) -> DataTask? {
        let request: Request
        do {
            request = try build()
        } catch {
            let lupineError = LupineError(translating: error, from: .requestBuilding)
            (self.completionQueue ?? self.defaultCompletionQueue).async { failure?(nil, lupineError) }
            return nil
        }
        let task = self.makeTask(
            DataTask.self,
            with: request,
            serialization: TaskSerialization(self.responseSerializer),
            hooks: SessionHooks(),
            uploadProgress: uploadProgress,
            downloadProgress: downloadProgress,
            completesOnQueue: true
        ) { task, completion in
            if let error = completion.error {
                failure?(task, error)
            } else {
                success?(task, completion.serializedObject)
            }
        }
        task.resume()
        return task
    }
}
