/// Where in a task's life an error came from, which decides what it is reported as.
enum ErrorSource {
    /// Building the request (a serializer, the verb's parameters).
    case requestBuilding
    /// A ``RequestAdapter``.
    case adapter
    /// The transport: connecting, sending, receiving, the request body's producer.
    case transport
    /// A caller's response handler (a stream's head or chunk handler).
    case responseHandler
}

extension LupineError {
    /// The one place where any error a task meets becomes a ``LupineError``: a `LupineError` is
    /// reported as itself, whatever its source; a cancellation as ``cancelled``; anything else
    /// as the failure of the part that threw it, so a caller's own error is never reported as a
    /// transport failure.
    init(translating error: any Error, from source: ErrorSource) {
        switch (error, source) {
        case (let error as LupineError, _):
            self = error
        case (TransportError.cancelled, _), (is CancellationError, _):
            self = .cancelled
        // A failure of Lupine's own body producer (a multipart part) is reported as itself.
        case (TransportError.requestBodyFailed(let underlying as LupineError), _):
            self = underlying
        case (TransportError.serverTrustRejected(let host, let reason, let chain), _):
            self = .serverTrustEvaluationFailed(host: host, reason: reason, certificateChain: chain)
        case (TransportError.invalidHeader(let name, let reason), _):
            self = .invalidHeader(name: name, reason: reason)
        case (let error as TransportError, _):
            self = .transport(error)
        case (_, .adapter):
            self = .requestAdaptationFailed(underlying: error)
        case (_, .responseHandler):
            self = .responseSerializationFailed(.handlerFailed(error))
        case (_, .requestBuilding):
            self = .parameterEncodingFailed(.customEncodingFailed(error: error))
        case (_, .transport):
            self = .transport(.requestBodyFailed(underlying: error))
        }
    }
}
