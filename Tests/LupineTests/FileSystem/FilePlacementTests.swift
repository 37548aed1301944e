import Foundation
import LupineTestSupport
import Testing

@testable import Lupine

/// Where ``FilePlacement`` puts a finished file, checked with real files in a folder of the
/// test's own: what it refuses, and that files placed at one path at the same moment never
/// replace each other (found by the hostile pass of `SessionHooks.downloadTaskDidFinishDownloading`:
/// two downloads the hook sent to one path both reported success, and one body was lost).
@Suite struct FilePlacementTests {
    /// Eight threads place eight files at one path at once, fifty times: each time exactly one
    /// arrives, the others fail with "a file already exists there" and keep their own file.
    @Test func filesPlacedAtOnePathAtOnceNeverReplaceEachOther() throws {
        let folder = try temporaryFolder()
        for round in 0..<50 {
            let target = folder.appending(path: "same-\(round).bin")
            let sources = try (0..<8).map { index in
                let source = folder.appending(path: "source-\(round)-\(index).bin")
                try Data("body \(index)".utf8).write(to: source)
                return source
            }
            let placed = Recorder<Int>()
            let refused = Recorder<String>()
            DispatchQueue.concurrentPerform(iterations: sources.count) { index in
                do {
                    _ = try FilePlacement.place(sources[index], at: target, replacing: false)
                    placed.append(index)
                } catch FilePlacement.Failure.failed(_, let reason) {
                    refused.append(reason)
                } catch {
                    refused.append("\(error)")
                }
            }
            let winner = try #require(placed.all.first)
            #expect(placed.all.count == 1, "round \(round): \(placed.all) all placed")
            #expect(refused.all.allSatisfy { $0 == "a file already exists there" }, "\(refused.all)")
            #expect(try String(contentsOf: target, encoding: .utf8) == "body \(winner)")
            for index in sources.indices where index != winner {
                #expect(FileManager.default.fileExists(atPath: sources[index].path), "a refused file stays where it was")
            }
        }
    }

    /// A URL of another scheme, a relative one (both would name a file in the working
    /// directory) and one ending in `/` are refused; the file stays where it was.
    @Test func onlyAFileURLNamingAFileIsAPlace() throws {
        let folder = try temporaryFolder()
        let source = folder.appending(path: "source.bin")
        try Data("body".utf8).write(to: source)
        let places = [
            try #require(URL(string: "https://example.com" + folder.appending(path: "remote.bin").path)),
            try #require(URL(string: "relative.bin")),
            URL(fileURLWithPath: folder.appending(path: "trailing").path + "/", isDirectory: true),
        ]
        for place in places {
            #expect {
                _ = try FilePlacement.place(source, at: place, replacing: true, creatingFolders: true)
            } throws: { error in
                guard case FilePlacement.Failure.notReplaceable = error else { return false }
                return true
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["source.bin"])
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/relative.bin"))
    }
}
