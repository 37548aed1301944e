import Foundation
import Lupine
import LupineOpenAPI
import LupineTestServer
import Testing

// The README's "OpenAPI clients" example, verbatim (LupineTests' OpenAPIReadmeExampleTests
// checks that each of its lines is here, in order), run against the test server with the
// generated client of Generated/.

@Suite struct ReadmeExampleTests {
    @Test func theREADMEsExampleRuns() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "lupine-openapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "download")
        try Data().write(to: path)
        let file = try FileHandle(forWritingTo: path)
        let server = try await LupineTestServer.start()
        let serverURL = server.baseURL

        let manager = HTTPSessionManager()
        let client = Client(serverURL: serverURL, transport: LupineClientTransport(manager: manager))
        let echo = try await client.getEcho(query: .init(name: "lupine")).ok.body.json
        print(echo.args?.name ?? "")  // lupine
        #expect(echo.args?.name == "lupine")

        let download = try await client.getBytes(path: .init(n: 10_000_000)).ok.body.binary
        for try await chunk in download {
            try file.write(contentsOf: chunk)
        }

        try file.close()
        manager.invalidateSession(cancelingTasks: true)
        await server.stop()
        #expect(try Data(contentsOf: path).elementsEqual(DeterministicBytes.bytes(in: 0..<10_000_000)))
    }
}
