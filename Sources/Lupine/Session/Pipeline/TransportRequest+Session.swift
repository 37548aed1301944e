import Foundation
import NIOCore

extension TransportRequest {
    /// The transport's form of a session request; body bytes reaching the socket are reported to
    /// `progress`, and `cancellation` cancels it.
    init(_ request: Request, progress: TaskDelegate, cancellation: TransportCancellation) {
        let body: TransportRequestBody?
        switch request.body {
        case .none: body = nil
        case .bytes(let bytes): body = .bytes(bytes)
        case .file(let url): body = .file(path: url.path)
        case .stream(let length, let chunks): body = .stream(chunks(), length: length)
        case .multipart(let form): body = TransportRequestBody(source: .stream(length: form.contentLength, produce: form.write(to:)))
        }
        self.init(
            method: request.method,
            url: request.url,
            headers: request.headers,
            body: body,
            timeout: request.timeoutInterval.flatMap { seconds in
                // Anything not finite or beyond ~290 years means no limit (and must not overflow).
                seconds.isFinite && seconds > 0 && seconds < 9e9 ? .nanoseconds(Int64(seconds * 1_000_000_000)) : nil
            },
            bodyProgress: Self.bodyProgress(for: body, reportingTo: progress),
            cancellation: cancellation
        )
        self.httpVersion = request.httpVersion
        self.proxy = request.proxy
    }

    /// What reports body bytes taken by the socket to `progress`; a request without a body has
    /// no upload to report, and gets no closure.
    private static func bodyProgress(
        for body: TransportRequestBody?,
        reportingTo progress: TaskDelegate
    ) -> (@Sendable (Int) -> Void)? {
        guard body != nil else { return nil }
        return { [weak progress] total in progress?.socketDidTakeBody(bytes: total) }
    }
}
