import Foundation
import Lupine
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Cookie files on disk: read without blocking or holding huge lines, written atomically with
/// mode 0600, never replacing what is not a regular file.
@Suite("Netscape cookie files")
struct NetscapeCookieFileTests {
    /// A jar holding one host-only and one domain HttpOnly cookie.
    static func sampleJar() -> CookieStorage {
        let storage = CookieStorage()
        storage.store(["a=1", "sid=s3cret; Domain=example.com; HttpOnly; Max-Age=3600"], from: "https://www.example.com/", now: Date())
        return storage
    }

    static func cookieFileReason(_ error: LupineError) -> LupineError.CookieFileFailureReason? {
        if case .cookieFileFailed(let reason) = error {
            return reason
        }
        return nil
    }

    static func mode(_ url: URL) -> mode_t {
        var info = stat()
        return stat(url.path, &info) == 0 ? info.st_mode & 0o777 : 0
    }

    @Test func exportsWithMode0600AndImportsBack() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "jar.txt")
        try Data("old contents".utf8).write(to: file)
        chmod(file.path, 0o644)
        let jar = Self.sampleJar()
        try jar.exportNetscapeFile(to: file)
        #expect(Self.mode(file) == 0o600)
        #expect(try String(contentsOf: file, encoding: .utf8) == jar.netscapeText())
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["jar.txt"])  // no temporary left
        let copy = CookieStorage()
        #expect(try copy.importNetscapeFile(at: file).isEmpty)
        #expect(copy.pairs == ["a=1", "sid=s3cret"])
    }

    @Test func aMissingFileLoadsNothingWithoutError() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let storage = CookieStorage()
        #expect(try storage.importNetscapeFile(at: folder.appending(path: "none.txt")).isEmpty)
        symlink(folder.appending(path: "nowhere").path, folder.appending(path: "dangling").path)
        #expect(try storage.importNetscapeFile(at: folder.appending(path: "dangling")).isEmpty)
        #expect(storage.allCookies.isEmpty)
    }

    @Test func aDirectoryOrFIFOIsRefusedOnReadAndWriteAndLeftAlone() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let directory = folder.appending(path: "dir")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        let fifo = folder.appending(path: "fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let jar = Self.sampleJar()
        for target in [directory, fifo] {
            // Reading a FIFO nobody writes to would block forever if it were opened for reading.
            #expect(throws: LupineError.self) { try jar.importNetscapeFile(at: target) }
            do {
                try jar.exportNetscapeFile(to: target)
                Issue.record("\(target.lastPathComponent) was replaced")
            } catch {
                guard case .notARegularFile(let url, _)? = Self.cookieFileReason(error) else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect(url == target)
                #expect(error.description.contains("give the path of a regular file"))
            }
        }
        var info = stat()
        #expect(lstat(fifo.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["dir", "fifo"])
    }

    @Test func aSymlinkIsWrittenThroughToItsTarget() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appending(path: "real.txt")
        try Data().write(to: target)
        let link = folder.appending(path: "link.txt")
        #expect(symlink(target.path, link.path) == 0)
        try Self.sampleJar().exportNetscapeFile(to: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
        #expect(try String(contentsOf: target, encoding: .utf8).contains("sid\ts3cret"))
        // A link to nothing is not followed into creating a file somewhere.
        let dangling = folder.appending(path: "dangling.txt")
        #expect(symlink(folder.appending(path: "missing/x").path, dangling.path) == 0)
        #expect(throws: LupineError.self) { try Self.sampleJar().exportNetscapeFile(to: dangling) }
    }

    @Test func anUnwritableFolderIsATypedErrorAndTheOldFileStays() throws {
        let folder = try temporaryFolder()
        defer {
            chmod(folder.path, 0o700)
            try? FileManager.default.removeItem(at: folder)
        }
        let file = folder.appending(path: "jar.txt")
        try Data("previous".utf8).write(to: file)
        chmod(folder.path, 0o500)
        // Root ignores folder modes; /proc refuses new files to everyone.
        let target = getuid() == 0 ? URL(fileURLWithPath: "/proc/lupine-cookies.txt") : file
        do {
            try Self.sampleJar().exportNetscapeFile(to: target)
            Issue.record("written into a read-only folder")
        } catch {
            guard case .writeFailed? = Self.cookieFileReason(error) else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(error.description.hasPrefix("the cookies could not be saved to "))
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == "previous")
        #expect(throws: LupineError.self) { try Self.sampleJar().exportNetscapeFile(to: folder.appending(path: "missing/jar.txt")) }
    }

    @Test func aReadErrorIsTyped() {
        // A regular file whose reads fail: this process's memory at address 0.
        #expect {
            try CookieStorage().importNetscapeFile(at: URL(fileURLWithPath: "/proc/self/mem"))
        } throws: { error in
            guard case .readFailed? = Self.cookieFileReason(error as? LupineError ?? .cancelled) else { return false }
            return true
        }
    }

    @Test func aHugeLineIsSkippedWithoutBeingHeldAndRawBytesAreChecked() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "huge.txt")
        FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        let chunk = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
        try handle.write(contentsOf: Data("a.test\tFALSE\t/\tFALSE\t0\tbig\t".utf8))
        for _ in 0..<100 {
            try handle.write(contentsOf: chunk)  // a 100 MB line
        }
        try handle.write(contentsOf: Data("\r\n".utf8) + Data("a.test\tFALSE\t/\tFALSE\t0\tbad\t".utf8) + Data([0xFF, 0xFE, 0x0A]))
        try handle.write(contentsOf: Data("a.test\tFALSE\t/\tFALSE\t0\tnul\t\u{0}\n".utf8))
        try handle.write(contentsOf: Data("a.test\tFALSE\t/\tFALSE\t0\tgood\tünï".utf8))  // no final newline
        try handle.close()
        let storage = CookieStorage()
        let warnings = try storage.importNetscapeFile(at: file)
        #expect(
            warnings == [
                "line 1 is longer than 16384 bytes; skipped", "line 2 is not UTF-8 text; skipped",
                "line 3 is not a cookie that can be sent (an empty name, a malformed domain, a path not starting with /, or a control character); skipped",
            ])
        #expect(storage.pairs == ["good=ünï"])
    }

    @Test func aNonFileURLIsRefused() {
        #expect(throws: LupineError.self) { try CookieStorage().importNetscapeFile(at: cookieURL("http://example.com/jar")) }
        #expect(throws: LupineError.self) { try CookieStorage().exportNetscapeFile(to: cookieURL("http://example.com/jar")) }
    }
}
