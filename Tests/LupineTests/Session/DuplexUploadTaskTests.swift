import Foundation
import LupineTestSupport
import NIOCore
import Testing

@testable import Lupine
@testable import LupineTransport

/// Upload tasks from a file against a full-duplex server (an echo, which answers before it
/// reads the body and reads it only as its answer is read): the task succeeds once both sides
/// are done, its progress reaches the total, and a cancel or an invalidated session mid-echo
/// completes it as cancelled; the file is closed however it ends.
@Suite(.timeLimit(.minutes(5))) struct DuplexUploadTaskTests {
    static let length = 8 << 20

    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case file, bytes, stream, multipart
        var testDescription: String { self.rawValue }
    }

    @Test(arguments: Kind.allCases)
    func anUploadToAnEchoSucceedsWithTheWholeBody(_ kind: Kind) async throws {
        let file = try DuplexUploadHostileTests.file(length: Self.length)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let body: Request.Body
        switch kind {
        case .file: body = .file(file)
        case .bytes: body = .bytes([UInt8](repeating: UInt8(ascii: "u"), count: Self.length))
        case .stream:
            body = .stream(length: Self.length) {
                AsyncThrowingStream { continuation in
                    for _ in 0..<(Self.length / (64 << 10)) {
                        continuation.yield(ByteBuffer(repeating: UInt8(ascii: "u"), count: 64 << 10))
                    }
                    continuation.finish()
                }
            }
        case .multipart:
            var form = MultipartFormData()
            try form.appendPart(fileURL: file, name: "file")
            body = .multipart(form)
        }
        try await Self.withEchoUpload(of: body) { connection, head, upload in
            let length = try #require(head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }.flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) })
            try await connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n")
            // Written whole only as the client reads it, while the server takes none of the body.
            try await connection.write(ByteBuffer(repeating: UInt8(ascii: "e"), count: length))
            try await connection.channel.setOption(ChannelOptions.autoRead, value: true).get()
            connection.channel.read()
            let received = await connection.readBytes(length)
            #expect(received.count == length)
            #expect(kind == .multipart || received.allSatisfy { $0 == UInt8(ascii: "u") })
            let completion = try #require(await upload.completion.value)
            #expect(completion.error == nil, "\(String(describing: completion.error))")
            #expect(completion.responseData.count == length)
            // The request ends once its end is queued, not written: the metrics, taken then, can
            // miss the last part of a body answered early (up to one write buffer).
            withKnownIssue("an early-answered upload completes before the socket took its last part", isIntermittent: true) {
                #expect(completion.metrics?.bodyBytesSent == length)
            }
            // What can be queued and unwritten: a channel turns unwritable only once its pending
            // bytes pass the high watermark (``NIOTransport/largestQueuedBody``), so the write that
            // passes it (a part of the body, at most as large) may be pending too. A slow run (under
            // ThreadSanitizer) met that: 128 KiB short.
            #expect((completion.metrics?.bodyBytesSent ?? 0) >= length - 2 * NIOTransport.largestQueuedBody)
            #expect(upload.progress.all.last == 1.0)
        }
        #expect(await OpenDescriptors.waitUntil(file), "the file body was left open")
    }

    enum Stop: String, CaseIterable, CustomTestStringConvertible {
        case taskCancelled, sessionInvalidated
        var testDescription: String { self.rawValue }
    }

    @Test(arguments: Stop.allCases)
    func stoppingMidEchoCompletesTheTaskAsCancelled(_ stop: Stop) async throws {
        let file = try DuplexUploadHostileTests.file(length: Self.length)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try await Self.withEchoUpload(of: .file(file)) { connection, _, upload in
            try await connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(Self.length)\r\n\r\n")
            try await connection.write(ByteBuffer(repeating: UInt8(ascii: "e"), count: 1 << 20))
            switch stop {
            case .taskCancelled: upload.task.cancel()
            case .sessionInvalidated: upload.manager.invalidateSession(cancelingTasks: true)
            }
            let completion = try #require(await upload.completion.value)
            #expect(completion.error.map { "\($0)" } == "\(LupineError.cancelled)")
            try? await connection.channel.setOption(ChannelOptions.autoRead, value: true).get()
            await connection.waitForClientClose()
        }
        #expect(await OpenDescriptors.waitUntil(file), "the file body was left open")
    }

    /// A running upload task from `file` to a scripted server, and how it completes.
    struct Upload {
        let manager: HTTPSessionManager
        let task: UploadTask
        let completion: Task<TaskCompletion?, Never>
        let progress: Recorder<Double>
    }

    /// Starts an upload task of `uploaded`, reads its request head and stops reading the body,
    /// then runs `body` with the connection, the head and the task.
    static func withEchoUpload(of uploaded: Request.Body, _ body: (ScriptedConnection, String, Upload) async throws -> Void) async throws {
        try await ScriptedServer.with { server in
            let manager = HTTPSessionManager(baseURL: server.url, configuration: TransportConfiguration(connectTimeout: .seconds(60)))
            manager.responseSerializer = HTTPResponseSerializer()
            try await running {
                var request = try manager.makeRequest(.POST, "echo", parameters: nil, headers: nil)
                request.body = uploaded
                let progress = Recorder<Double>()
                let (completions, finished) = AsyncStream.makeStream(of: TaskCompletion.self)
                let task = manager.uploadTask(withStreamedRequest: request, progress: { progress.append($0.fractionCompleted) }) {
                    finished.yield($0)
                    finished.finish()
                }
                task.resume()
                let completion = Task {
                    var iterator = completions.makeAsyncIterator()
                    return await iterator.next()
                }
                let connection = try await server.nextConnection()
                let head = await connection.readRequestHead() ?? ""
                try await connection.channel.setOption(ChannelOptions.autoRead, value: false).get()
                try await body(connection, head, Upload(manager: manager, task: task, completion: completion, progress: progress))
            } thenAlways: {
                manager.invalidateSession(cancelingTasks: true)
            }
        }
    }
}
