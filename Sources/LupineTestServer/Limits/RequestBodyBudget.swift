import Hummingbird
import NIOConcurrencyHelpers

/// Bounds the request bodies that the echo endpoints buffer: each one up to a per-request cap,
/// all of them together up to a server-wide budget.
///
/// A body is reserved against the budget before it is read: its whole `Content-Length` at once,
/// or chunk by chunk when it has none. The reservation is returned when the request's handling
/// ends, whether it succeeded, failed or lost its connection.
final class RequestBodyBudget: Sendable {
    /// Largest body one request may buffer.
    let maximumRequestSize: Int
    /// Largest number of body bytes all requests together may buffer.
    let capacity: Int
    private let state = NIOLockedValueBox(RequestBodyStatistics())

    init(maximumRequestSize: Int, capacity: Int) {
        self.maximumRequestSize = maximumRequestSize
        self.capacity = capacity
    }

    /// A snapshot of the counts.
    var statistics: RequestBodyStatistics {
        state.withLockedValue { $0 }
    }

    /// Reads the whole body of `request` within the limits and passes its bytes to `body`; they
    /// stay reserved until `body` returns.
    ///
    /// Throws an ``HTTPError`` that answers 413 when the body is over the per-request cap and 503
    /// when the budget cannot hold it now, in both cases closing the connection so that the rest of
    /// the body is never read.
    func withBody<Result>(
        of request: Request,
        _ body: ([UInt8]) async throws -> Result
    ) async throws -> Result {
        var reserved = 0
        defer { release(reserved) }
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        if let declared {
            try reserve(declared, alreadyReserved: &reserved)
        }
        var bytes: [UInt8] = []
        // The declared length is the client's word: room grows with what comes beyond 1 MiB.
        bytes.reserveCapacity(min(declared ?? 0, 1 << 20))
        for try await fragment in request.body {
            try reserve(bytes.count + fragment.readableBytes, alreadyReserved: &reserved)
            bytes.append(contentsOf: fragment.readableBytesView)
        }
        return try await body(bytes)
    }

    private enum Verdict {
        case reserved
        case overRequestCap
        case overBudget
    }

    /// Grows the reservation held in `reserved` to `total` bytes, or throws the error to answer.
    private func reserve(_ total: Int, alreadyReserved reserved: inout Int) throws {
        let extra = max(total - reserved, 0)
        let verdict = state.withLockedValue { statistics -> Verdict in
            if total > maximumRequestSize {
                statistics.rejectedRequests += 1
                return .overRequestCap
            }
            if extra > capacity - statistics.bufferedBytes {
                statistics.rejectedRequests += 1
                return .overBudget
            }
            statistics.bufferedBytes += extra
            statistics.peakBufferedBytes = max(statistics.peakBufferedBytes, statistics.bufferedBytes)
            return .reserved
        }
        switch verdict {
        case .reserved:
            reserved += extra
        case .overRequestCap:
            throw HTTPError(
                .contentTooLarge,
                headers: [.connection: "close"],
                message: "The request body is larger than this server's limit of \(maximumRequestSize) bytes; "
                    + "send a smaller body, or use /upload, which does not keep it."
            )
        case .overBudget:
            throw HTTPError(
                .serviceUnavailable,
                headers: [.connection: "close", .retryAfter: "1"],
                message: "The server is already holding its limit of \(capacity) request-body bytes for other "
                    + "requests; retry when they finish."
            )
        }
    }

    private func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        state.withLockedValue { $0.bufferedBytes -= bytes }
    }
}
