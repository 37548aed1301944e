import Foundation
import Lupine
import LupineImage
import LupineTestServer
import Testing

// The README's "Images" examples, verbatim (the first test checks that each of their lines is
// here, in order), run against the test server.

@Suite struct ImageReadmeExampleTests {
    @Test func theImageExamplesOfTheREADMEAreHereVerbatim() throws {
        try ReadmeSection.expectExamples(under: "## Images", count: 2, inFile: #filePath)
    }

    @Test func anImageThroughTheSerializer() async throws {
        try await withSessionManager { _, manager in
            let image = try await manager.request(.GET, "image/png", serializer: ImageResponseSerializer()).result.get()
            print(image.format, image.pixelWidth, image.pixelHeight)  // png 16 16
            print(image.decoded?.byteCount as Any)  // Optional(1024) when decoded (16 × 16 × 4), else nil
            #expect(image.format == .png && image.pixelWidth == 16 && image.pixelHeight == 16)
            #expect(image.decoded.map { $0.byteCount == 1024 } ?? true)
        }
    }

    @Test func imagesThroughTheDownloader() async throws {
        try await withSessionManager { server, manager in
            let avatarURL = server.baseURL.appending(path: "image/png")
            let bannerURL = server.baseURL.appending(path: "image/jpeg")
            let (done, finished) = AsyncStream<String>.makeStream()
            let downloader = ImageDownloader(sessionManager: manager)
            let receipt = downloader.downloadImage(
                for: Request(url: avatarURL),
                success: { _, response, image in
                    print("\(image.format.displayName) \(image.pixelWidth)×\(image.pixelHeight)", response == nil ? "from the cache" : "")
                    finished.yield("\(image.format.displayName) \(image.pixelWidth)×\(image.pixelHeight)")
                },
                failure: { _, _, error in
                    print(error)
                    finished.yield("\(error)")
                })
            let banner = try await downloader.downloadImage(for: Request(url: bannerURL)).image
            #expect(receipt != nil)
            #expect(banner.format == .jpeg)
            var outcomes = done.makeAsyncIterator()
            #expect(await outcomes.next() == "PNG 16×16")
        }
    }
}
