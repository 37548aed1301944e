import LupineTransport
import NIOHTTP1

extension HeaderFieldValidation {
    /// Throws ``LupineError/invalidHeader(name:reason:)`` for the first field of `headers` that
    /// cannot be sent.
    static func validate(_ headers: HTTPHeaders) throws(LupineError) {
        if let violation = Self.firstViolation(in: headers) {
            throw .invalidHeader(name: violation.name, reason: violation.reason)
        }
    }
}

extension Request {
    /// Checks the request's header fields as Lupine does before sending it, so a program can
    /// refuse bad input where it enters (a command line, a configuration file) rather than when
    /// the task fails.
    ///
    /// - Throws: ``LupineError/invalidHeader(name:reason:)`` for the first field that cannot be sent.
    public func validateHeaders() throws(LupineError) {
        try HeaderFieldValidation.validate(self.headers)
    }
}
