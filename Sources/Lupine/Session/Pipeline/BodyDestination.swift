import NIOCore

/// Where a task's response body goes: memory for data and upload tasks, a caller's handlers for
/// a stream, a file for a download. The execution loop makes the matching ``ResponseSink``.
enum BodyDestination: Sendable {
    case memory
    case handlers(head: @Sendable (ResponseHead) async throws -> Void, chunk: @Sendable (ByteBuffer) async throws -> Void)
    case file(DownloadPlan)
}
