import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether this test process runs under a sanitizer (`swift test --sanitize=thread` or
/// `--sanitize=address`), found by the sanitizer runtime's entry point: a Swift build has no
/// compile-time condition for it. The processes a test starts from this build (`lupine`) run
/// under the same one.
public enum Sanitizers {
    /// ThreadSanitizer is in the process.
    public static let thread = Self.runtimeHas("__tsan_init")
    /// AddressSanitizer is in the process.
    public static let address = Self.runtimeHas("__asan_init")

    /// Some sanitizer is in the process: peak memory is then the sanitizer's (shadow memory),
    /// not Lupine's, and is measured only in the plain run.
    public static var isActive: Bool { Self.thread || Self.address }

    /// `count`, cut for a run under a sanitizer, which makes every memory access several times
    /// slower: a load test keeps its shape (its concurrency, a GOAWAY every so many streams) with
    /// a tenth of the requests.
    public static func load(_ count: Int) -> Int {
        Self.isActive ? max(1, count / 10) : count
    }

    private static func runtimeHas(_ symbol: String) -> Bool {
        guard let program = dlopen(nil, RTLD_NOW) else { return false }
        return dlsym(program, symbol) != nil
    }
}
