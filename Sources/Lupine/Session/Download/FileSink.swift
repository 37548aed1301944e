import Foundation
import NIOCore

/// A download task's sink: the body streams into a temporary file in the plan's directory
/// (continuing the file of its resume data with `Range` and `If-Range`), then the file moves to
/// the destination.
///
/// A resumed download that the server answers with `200` (the resource changed, or ranges are
/// not supported) starts over from zero; a `416` either confirms the file is whole or starts
/// over, and so does a `206` whose validator is not the one `If-Range` sent (a server that
/// ignores `If-Range` would append another representation's bytes). A new body with no byte
/// never replaces the bytes resume data continue: that fails, and keeps them. A failure partway, a
/// transport error or a cancel that asked for resume data, keeps the temporary file and yields
/// resume data when the response had a validator. A file this run did not create (the file of
/// the resume data) is never deleted, whatever happens.
///
/// Downloads ask for `Accept-Encoding: identity` unless the request says otherwise: byte ranges
/// count the bytes of the encoded body, so only an unencoded body can be resumed.
struct FileSink: ResponseSink {
    let plan: DownloadPlan
    /// The task's request as every attempt starts from it.
    let original: Request
    var file: DownloadFile?
    /// Whether the next attempt continues the file rather than asking for the whole body.
    var resuming: Bool
    /// Present while the file can be resumed; resume data may carry no validator at all (a
    /// partial file a user asked to continue), and then neither does the continuation.
    var validator: (entityTag: String?, lastModified: String?)?
    /// The body of an answer that is not a success (an error page), for the validation error.
    var errorPage: [UInt8] = []

    init(plan: DownloadPlan, original: Request) {
        var original = original
        if original.value(forHTTPHeaderField: "Accept-Encoding") == nil {
            original.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        self.plan = plan
        self.original = original
        // Resume data at byte 0 (a file a caller wants written in place) ask for the whole body.
        self.resuming = (plan.resumeData?.bytesReceived ?? 0) > 0
        self.validator = plan.resumeData.map { (entityTag: $0.entityTag, lastModified: $0.lastModified) }
    }

    var cacheAccess: CacheAccess { .none }

    /// Whether the file is this run's own (it made it), so it may be removed.
    var ownsFile: Bool { self.plan.resumeData == nil }

    mutating nonisolated(nonsending) func prepare() async throws {
        if let resumeData = self.plan.resumeData {
            self.file = try await DownloadFile.reopen(resumeData)
        } else {
            self.file = try await DownloadFile.create(in: self.plan.directory)
        }
    }

    func request(for _: Request) -> Request {
        guard self.resuming, let file else { return self.original }
        var ranged = self.original
        ranged.setValue("bytes=\(file.length)-", forHTTPHeaderField: "Range")
        ranged.setValue(self.plan.resumeData?.ifRange, forHTTPHeaderField: "If-Range")
        return ranged
    }

    /// Writes the body of a successful answer to the file; keeps the body of any other answer
    /// (an error page) in memory, for the validation error.
    ///
    /// The file is cut (to nothing for a new body, to the resumed length for a `206`) only when
    /// the body's first bytes arrive, or when it ends empty: a head followed by a stall, a cut or
    /// a cancel leaves the file as it was. The head's validator counts from that cut on.
    mutating nonisolated(nonsending) func receive(_ body: inout ResponseStream, head: ResponseHead, task: SessionTask) async throws -> SinkVerdict {
        guard let file else { throw LupineError.cancelled }
        let length = head.contentLength
        // The whole file's length a 206 announced, with its Content-Range.
        var wholeLength: (Int, String?)?
        // The length the file is cut to when the body starts.
        var cut: Int?
        switch head.statusCode {
        case 206 where self.resuming:
            let contentRange = head.headers.first(name: "Content-Range")
            guard ContentRange(contentRange)?.first == file.length else {
                throw LupineError.downloadFailed(.unexpectedContentRange(contentRange))
            }
            if let resumeData = self.plan.resumeData, Self.validator(of: head, contradicts: resumeData) {
                // The server ignored If-Range: the rest it sends is of another representation.
                // The file is cut only once a whole new body comes, as after a 416.
                await body.discard()
                try task.checkCancellation()
                self.resuming = false
                self.validator = nil
                return .startOver
            }
            // Bytes past those the resume data account for go once the rest comes.
            cut = file.length
            task.delegate.willReceiveBody(length: length, alreadyReceived: file.length)
            // Its complete length, or else where its last byte puts the end (`bytes 500-999/*`).
            let end = ContentRange(contentRange)?.end
            wholeLength = end.map { ($0, contentRange) }
        case 416 where self.resuming:
            await body.discard()
            try task.checkCancellation()
            guard ContentRange(head.headers.first(name: "Content-Range"))?.completeLength == file.length else {
                // The file is cut only once a whole new body comes (a 2xx): until then a failed
                // attempt leaves it as it was, with no resume data for it.
                self.resuming = false
                self.validator = nil
                return .startOver
            }
            // The server says the file is already whole: nothing more to receive.
            try await file.truncate(to: file.length)
            task.delegate.willReceiveBody(length: 0, alreadyReceived: file.length)
            return .done
        case 200..<300:
            // What the file held goes once the new body comes.
            cut = 0
            task.delegate.willReceiveBody(length: length)
        default:
            task.delegate.willReceiveBody(length: length)
            self.errorPage = try await body.collect(expectedLength: length)
            return .done
        }
        let offered = ResumeData.isResumable(head) ? ResumeData.validator(of: head) ?? (head.statusCode == 206 ? self.validator : nil) : nil
        while let chunk = try await body.next() {
            // A decoder can hand over a part with no byte (an empty gzip member): not a body yet.
            guard chunk.readableBytes > 0 else { continue }
            if let length = cut {
                try await file.truncate(to: length)
                cut = nil
                self.validator = offered
            }
            try await file.append(chunk)
        }
        if let length = cut {
            // A body that ended cleanly without a byte. Nothing replaces bytes a caller asked to
            // continue: an empty answer is more often a broken server than an emptied resource.
            if length == 0, (self.plan.resumeData?.bytesReceived ?? 0) > 0, file.length > 0 {
                throw LupineError.downloadFailed(.emptyAnswerToResume(statusCode: head.statusCode, keptBytes: file.length))
            }
            try await file.truncate(to: length)
            self.validator = offered
        }
        // A short body that ended cleanly (no Content-Length to hold it to) is not a whole file.
        if let (whole, contentRange) = wholeLength, file.length != whole {
            throw LupineError.downloadFailed(.unexpectedContentRange(contentRange))
        }
        return .done
    }

    /// Whether a validator of a `206` differs from the one of the same kind the resume data hold
    /// (the entity tag or the date `If-Range` could send), which a server that honours `If-Range`
    /// never answers with a range.
    private static func validator(of head: ResponseHead, contradicts resumeData: ResumeData) -> Bool {
        let pairs = [(head.headers.first(name: "ETag"), resumeData.entityTag), (head.headers.first(name: "Last-Modified"), resumeData.lastModified)]
        return pairs.contains { received, kept in
            guard let received, let kept else { return false }
            return received != kept
        }
    }
}
