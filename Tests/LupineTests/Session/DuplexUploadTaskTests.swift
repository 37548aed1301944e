import Foundation
import Lupine
import LupineTestSupport
import NIOCore
import Testing

/// Upload tasks from a file against a full-duplex server (an echo, which answers before it
/// reads the body and reads it only as its answer is read): the task succeeds once both sides
/// are done, its progress reaches the total, and a cancel or an invalidated session mid-echo
/// completes it as cancelled; the file is closed however it ends.
@Suite(.timeLimit(.minutes(5))) struct DuplexUploadTaskTests {
    static let length = 32 << 20

    @Test func aFileUploadToAnEchoSucceedsWithTheWholeBody() async throws {
        let file = try DuplexUploadHostileTests.file(length: Self.length)
        try await Self.withEchoUpload(of: file) { connection, upload in
            try await connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(Self.length)\r\n\r\n")
            // Written whole only as the client reads it, while the server takes none of the body.
            try await connection.write(ByteBuffer(repeating: UInt8(ascii: "e"), count: Self.length))
            try await connection.channel.setOption(ChannelOptions.autoRead, value: true).get()
            connection.channel.read()
            let received = await connection.readBytes(Self.length)
            #expect(received.count == Self.length && received.allSatisfy { $0 == UInt8(ascii: "u") })
            let completion = try #require(await upload.completion.value)
            #expect(completion.error == nil, "\(String(describing: completion.error))")
            #expect(completion.responseData.count == Self.length)
            #expect(completion.metrics?.bodyBytesSent == Self.length)
            #expect(upload.progress.all.last == 1.0)
        }
        #expect(await DuplexUploadHostileTests.noDescriptorOpen(on: file), "the file body was left open")
    }

    enum Stop: String, CaseIterable, CustomTestStringConvertible {
        case taskCancelled, sessionInvalidated
        var testDescription: String { self.rawValue }
    }

    @Test(arguments: Stop.allCases)
    func stoppingMidEchoCompletesTheTaskAsCancelled(_ stop: Stop) async throws {
        let file = try DuplexUploadHostileTests.file(length: Self.length)
        try await Self.withEchoUpload(of: file) { connection, upload in
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
        #expect(await DuplexUploadHostileTests.noDescriptorOpen(on: file), "the file body was left open")
    }

    /// A running upload task from `file` to a scripted server, and how it completes.
    struct Upload {
        let manager: HTTPSessionManager
        let task: UploadTask
        let completion: Task<TaskCompletion?, Never>
        let progress: Recorder<Double>
    }

    /// Starts an upload task from `file`, reads its request head and stops reading the body,
    /// then runs `body` with the connection and the task.
    static func withEchoUpload(of file: URL, _ body: (ScriptedConnection, Upload) async throws -> Void) async throws {
        try await ScriptedServer.with { server in
            let manager = HTTPSessionManager(baseURL: server.url, configuration: TransportConfiguration(connectTimeout: .seconds(60)))
            manager.responseSerializer = HTTPResponseSerializer()
            try await running {
                let request = try manager.makeRequest(.POST, "echo", parameters: nil, headers: nil)
                let progress = Recorder<Double>()
                let (completions, finished) = AsyncStream.makeStream(of: TaskCompletion.self)
                let task = manager.uploadTask(with: request, fromFile: file, progress: { progress.append($0.fractionCompleted) }) {
                    finished.yield($0)
                    finished.finish()
                }
                task.resume()
                let completion = Task {
                    var iterator = completions.makeAsyncIterator()
                    return await iterator.next()
                }
                let connection = try await server.nextConnection()
                _ = await connection.readRequestHead()
                try await connection.channel.setOption(ChannelOptions.autoRead, value: false).get()
                try await body(connection, Upload(manager: manager, task: task, completion: completion, progress: progress))
            } thenAlways: {
                manager.invalidateSession(cancelingTasks: true)
            }
        }
    }
}
