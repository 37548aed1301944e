import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The descriptors this test process holds open on a file, read from `/proc/self/fd`. One look
/// reads a link per descriptor (thousands in a full parallel run), so a wait looks again only
/// after a growing pause: a tight poll would keep the cooperative pool busy and starve the tests
/// running beside it.
enum OpenDescriptors {
    /// How many descriptors of this process are open on `file`.
    static func count(on file: URL) -> Int {
        let target = file.path
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.count { name in
            let length = readlink("/proc/self/fd/\(name)", &buffer, buffer.count - 1)
            guard length > 0 else { return false }
            return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) == target
        }
    }

    /// Whether at most `remaining` descriptors are left open on `file`, waiting (about a minute
    /// at most, looking 14 times) for a task that has just ended to let it go.
    static func waitUntil(_ file: URL, holdsAtMost remaining: Int = 0) async -> Bool {
        var pause = Duration.milliseconds(5)
        for _ in 0..<14 where Self.count(on: file) > remaining {
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(10))
        }
        return Self.count(on: file) <= remaining
    }
}
