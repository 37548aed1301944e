import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import NIOCore
import Testing

/// Multipart bodies and upload tasks end to end: through `LupineTestServer`'s `/post` (which
/// parses the form back into `form` and `files`) and `/upload` (which counts what arrived).
@Suite struct MultipartUploadTests {
    @Test(arguments: WireProtocol.allCases) func everyKindOfPartRoundTripsThroughPost(over wire: WireProtocol) async throws {
        let text = try temporaryFile(Array("plain text\n".utf8), name: "notes.txt")
        let binary = [UInt8](0...255) + [UInt8](0...255)
        let streamed = [UInt8](repeating: UInt8(ascii: "s"), count: 70_000)
        try await withSessionManager(over: wire) { _, manager in
            var sentForm: MultipartFormData?
            let request = try manager.makeMultipartRequest(
                "post",
                parameters: ["plain": "value", "ключ": "значение", "empty": ""],
                headers: nil
            ) { form in
                try form.appendPart(fileURL: text, name: "text")
                form.appendPart(fileData: binary, name: "binary", fileName: "bytes.bin", mimeType: "application/octet-stream")
                form.appendPart(fileData: [], name: "nothing", fileName: "empty.txt", mimeType: "text/plain")
                form.appendPart(fileData: Array("ünï".utf8), name: "名前", fileName: "ファイル.txt", mimeType: "text/plain")
                form.appendPart(
                    stream: AsyncStream { continuation in
                        for offset in stride(from: 0, to: streamed.count, by: 10_000) {
                            continuation.yield(Array(streamed[offset..<min(offset + 10_000, streamed.count)]))
                        }
                        continuation.finish()
                    },
                    name: "stream",
                    fileName: "stream.txt",
                    length: streamed.count,
                    mimeType: "text/plain"
                )
                sentForm = form
            }
            let response = try await manager.response(for: request, serializer: JSONResponseSerializer())
            let echo = try #require(response.value as? [String: any Sendable])
            let form = try #require(echo["form"] as? [String: any Sendable])
            #expect(form["plain"] as? String == "value")
            #expect(form["ключ"] as? String == "значение")
            #expect(form["empty"] as? String == "")
            let files = try #require(echo["files"] as? [String: any Sendable])
            #expect(files["text"] as? String == "plain text\n")
            #expect(files["binary"] as? String == "data:application/octet-stream;base64,\(Data(binary).base64EncodedString())")
            #expect(files["nothing"] as? String == "")
            #expect(files["名前"] as? String == "ünï")
            #expect(files["stream"] as? String == String(decoding: streamed, as: UTF8.self))
            let fileNames = try #require(echo["file_names"] as? [String: any Sendable])
            #expect(fileNames["名前"] as? String == "ファイル.txt")
            #expect(fileNames["text"] as? String == "notes.txt")
            #expect(fileNames["nothing"] as? String == "empty.txt")
            let headers = try #require(echo["headers"] as? [String: any Sendable])
            let length = try #require(sentForm?.contentLength)
            #expect(headers["Content-Length"] as? String == String(length))
            #expect(response.metrics?.bodyBytesSent == length)
        }
    }

    @Test(arguments: WireProtocol.allCases) func tenMixedPartsArriveInFull(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            let response = try await manager.post("post", parameters: nil) { form in
                for index in 0..<10 {
                    if index.isMultiple(of: 2) {
                        form.appendPart(formData: "field \(index)", name: "f\(index)")
                    } else {
                        form.appendPart(fileData: Array("file \(index)".utf8), name: "p\(index)", fileName: "p\(index).txt", mimeType: "text/plain")
                    }
                }
            }
            let echo = try #require(response.value as? [String: any Sendable])
            let form = try #require(echo["form"] as? [String: any Sendable])
            let files = try #require(echo["files"] as? [String: any Sendable])
            #expect(form.count == 5)
            #expect(files.count == 5)
            #expect(form["f4"] as? String == "field 4")
            #expect(files["p7"] as? String == "file 7")
        }
    }

    @Test(arguments: WireProtocol.allCases) func theContentLengthSentIsTheByteCountTheServerReceived(over wire: WireProtocol) async throws {
        let file = try temporaryFile([UInt8](repeating: 0x5A, count: 300_000), name: "data.bin")
        try await withSessionManager(over: wire) { _, manager in
            var announced: Int?
            let request = try manager.makeMultipartRequest("upload", parameters: ["k": "v"], headers: nil) { form in
                try form.appendPart(fileURL: file, name: "file")
                form.appendPart(
                    stream: AsyncStream {
                        $0.yield([1, 2, 3]); $0.finish()
                    }, name: "s", fileName: "s.bin", length: 3, mimeType: "application/octet-stream")
                announced = form.contentLength
            }
            let response = try await manager.response(for: request, serializer: JSONResponseSerializer())
            let echo = try #require(response.value as? [String: any Sendable])
            let length = try #require(announced)
            #expect(echo["content_length"] as? String == String(length))
            #expect(echo["bytes"] as? Int == length)
        }
    }

    @Test(arguments: WireProtocol.allCases) func aMissingFilePartFailsBeforeAnythingIsSent(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { server, manager in
            let missing = FileManager.default.temporaryDirectory.appending(path: "lupine-missing-\(UUID().uuidString).txt")
            let failure = Recorder<LupineError>()
            let task = manager.post("post", constructingBody: { try $0.appendPart(fileURL: missing, name: "f") }, success: nil) { _, error in
                failure.append(error)
            }
            #expect(task == nil)
            try await waitUntil("the failure is reported") { !failure.all.isEmpty }
            guard case .multipartEncodingFailed(.fileNotFound(missing)) = failure.all.first else {
                Issue.record("expected fileNotFound, got \(failure.all)")
                return
            }
            #expect(server.connections.accepted == 0)
        }
    }

    @Test(arguments: WireProtocol.allCases) func uploadTasksSendFilesBytesAndStreams(over wire: WireProtocol) async throws {
        let contents = [UInt8](repeating: 0x41, count: 3 * 1024 * 1024 + 7)
        let file = try temporaryFile(contents, name: "big.bin")
        try await withSessionManager(over: wire) { _, manager in
            let target = try manager.makeRequest(.PUT, "upload", parameters: nil, headers: nil)
            let readings = Recorder<Double>()
            let fromFile: TaskCompletion = await withCheckedContinuation { continuation in
                manager.uploadTask(with: target, fromFile: file, progress: { readings.append($0.fractionCompleted) }) {
                    continuation.resume(returning: $0)
                }.resume()
            }
            #expect((fromFile.serializedObject as? [String: any Sendable])?["bytes"] as? Int == contents.count)
            #expect(readings.all.last == 1.0)
            #expect(readings.all.contains { $0 > 0 && $0 < 1 })

            let fromBytes: TaskCompletion = await withCheckedContinuation { continuation in
                manager.uploadTask(with: target, from: Array("hello".utf8)) { continuation.resume(returning: $0) }.resume()
            }
            #expect((fromBytes.serializedObject as? [String: any Sendable])?["bytes"] as? Int == 5)

            var streamed = target
            streamed.body = .stream(length: nil) {
                AsyncThrowingStream { continuation in
                    for _ in 0..<100 {
                        continuation.yield(ByteBuffer(repeating: 0x42, count: 1000))
                    }
                    continuation.finish()
                }
            }
            let fromStream: TaskCompletion = await withCheckedContinuation { continuation in
                manager.uploadTask(withStreamedRequest: streamed) { continuation.resume(returning: $0) }.resume()
            }
            let echo = try #require(fromStream.serializedObject as? [String: any Sendable])
            #expect(echo["bytes"] as? Int == 100_000)
            #expect(echo["content_length"] is JSONNull)
            #expect(manager.uploadTasks.isEmpty)
        }
    }
}
