import Foundation
import NIOCore

/// Streaming a response body as it arrives, keeping none of it: memory stays flat whatever the
/// body's size (Alamofire's `DataStreamRequest`). For a program that pipes a body somewhere
/// (a file, a socket, standard output) rather than serializing it.
extension SessionManager {
    /// Sends `request` and hands the final response (after redirects and authentication) to
    /// `receiveHead`, then each body chunk to `receiveChunk` as it arrives. The next chunk is read
    /// only once the handler returns, so a slow handler slows the socket instead of filling memory.
    ///
    /// Every status is delivered: no status or content-type validation happens, since no
    /// serializer sees the body. A handler that throws ends the task: a ``LupineError`` as
    /// itself, any other error as ``LupineError/ResponseSerializationFailureReason/handlerFailed(_:)``.
    /// Cancelling the calling Swift task cancels the request.
    ///
    /// - Returns: the response, with an empty ``Response/data``.
    /// - Throws: the ``LupineError`` the task failed with.
    public func stream(
        _ request: Request,
        receiveHead: @escaping @Sendable (ResponseHead) async throws -> Void = { _ in },
        receiveChunk: @escaping @Sendable (ByteBuffer) async throws -> Void
    ) async throws(LupineError) -> Response<Void> {
        let (completion, task) = await self.runToCompletion { completionHandler in
            self.makeTask(
                DataTask.self,
                with: request,
                bodyDestination: .handlers(head: receiveHead, chunk: receiveChunk),
                serialization: TaskSerialization(HTTPResponseSerializer(acceptableStatusCodes: IndexSet(integersIn: 0..<1000))),
                hooks: SessionHooks(),
                uploadProgress: nil,
                downloadProgress: nil,
                completesOnQueue: false,
                completionHandler: completionHandler
            )
        }
        if let error = completion.error {
            throw error
        }
        return Response(
            request: task.currentRequest,
            head: completion.response,
            data: [],
            result: .success(()),
            metrics: completion.metrics,
            redirectChain: completion.redirectChain
        )
    }
}
