import NIOConcurrencyHelpers
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real child process started with `posix_spawn`: in a working directory of the test's
/// choosing, standard output and standard error going to files (so a large or binary output is
/// kept byte for byte and no pipe can fill up), and waited for on a thread of its own.
///
/// The tests use it instead of Foundation's `Process`, whose `waitUntilExit()` blocks a thread of
/// the concurrency pool (two such waits stop every test of the run) and whose end is noticed
/// through a process-wide `SIGCHLD` handler; here each child is waited for by its own `waitpid`.
///
/// Its peak memory is not measured here: a child spawned from the (large) test process starts
/// life in the parent's address space, and the kernel records that as the child's own peak at
/// `exec`. Run the program under `/usr/bin/time -f %M` instead, whose fork is small.
public struct ChildProcess: Sendable {
    /// How a child ended.
    public struct Exit: Sendable {
        /// The exit status, or 128 + the signal's number for a child a signal killed (as a shell says it).
        public let status: Int32
        /// The signal that killed it, if one did.
        public let signal: Int32?
    }

    public let pid: pid_t

    /// Starts `executable` with `arguments` in `directory`, standard input from /dev/null;
    /// without a `stdout` file, standard output is closed (as `>&-` does). `stdout` and `stderr`
    /// may name the same file: it then holds both, in the order they were written.
    /// `environment` replaces this process's environment when given.
    public static func start(
        _ executable: URL,
        _ arguments: [String],
        in directory: URL,
        stdout: URL?,
        stderr: URL,
        environment: [String: String]? = nil
    ) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // No descriptor of this process but the three reaches the child: a FIFO's write end or a
        // pipe another test holds open would otherwise stay open as long as the child runs.
        _ = Self.closeFrom3?(&actions, 3)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderr.path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o644)
        if stdout?.standardizedFileURL == stderr.standardizedFileURL {
            posix_spawn_file_actions_adddup2(&actions, 2, 1)
        } else if let stdout {
            posix_spawn_file_actions_addopen(&actions, 1, stdout.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        } else {
            posix_spawn_file_actions_addclose(&actions, 1)
        }
        // A process group of its own, so that a child that forks (GNU time, a shell) is killed whole.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        // The shell changes directory, then becomes the program (same process, same pid).
        let shell = ["/bin/sh", "-c", #"cd "$0" && exec "$@""#, directory.path, executable.path]
        let argv = (shell + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        var pid = pid_t()
        let result: Int32
        if var envp {
            result = envp.withUnsafeMutableBufferPointer { posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, $0.baseAddress) }
        } else {
            result = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
        }
        guard result == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL)
        }
        return ChildProcess(pid: pid)
    }

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) {
        kill(self.pid, signal)
    }

    /// Waits for the child to end, on a thread of its own (never blocking the concurrency pool
    /// an in-process server answers on). A child still running after `limit`, or when the
    /// waiting Swift task is cancelled (a test's time limit), is killed with its process group,
    /// so a hung child fails its test (status 137) instead of hanging the run.
    public func wait(killingAfter limit: Duration = .seconds(600)) async -> Exit {
        let pid = self.pid
        let ended = Ended()
        let killer = Task {
            try? await Task.sleep(for: limit)
            guard !Task.isCancelled else { return }
            ended.killUnlessEnded(pid, because: "ran past its limit")
        }
        defer { killer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Thread {
                    continuation.resume(returning: Self.reap(pid, ended: ended))
                }.start()
            }
        } onCancel: {
            ended.killUnlessEnded(pid, because: "was waited for by a cancelled task")
        }
    }

    /// Waits for `pid` to end, marks it ended while it is still unreaped (so its number cannot
    /// have gone to another process when the killer looks), then reaps it. A child that cannot
    /// be waited for (already reaped) reports status -1.
    private static func reap(_ pid: pid_t, ended: Ended) -> Exit {
        var info = siginfo_t()
        var waited = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT)
        while waited < 0 && errno == EINTR {
            waited = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT)
        }
        ended.mark()
        var status: Int32 = 0
        var reaped = waitpid(pid, &status, 0)
        while reaped < 0 && errno == EINTR {
            reaped = waitpid(pid, &status, 0)
        }
        guard waited == 0, reaped == pid else { return Exit(status: -1, signal: nil) }
        let signal = status & 0x7F
        return Exit(status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal, signal: signal == 0 ? nil : signal)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which its Swift
    /// module does not show; `nil` where the C library lacks it.
    private static let closeFrom3: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
}

/// Whether a child has ended, and the only place it is killed for running too long: both under
/// one lock, so the kill never reaches a process group the child has already given up.
private final class Ended: Sendable {
    private let state = NIOLockedValueBox(false)

    func mark() {
        self.state.withLockedValue { $0 = true }
    }

    /// Kills the process group `pid` leads, unless the child has ended.
    func killUnlessEnded(_ pid: pid_t, because reason: String) {
        self.state.withLockedValue { ended in
            guard !ended else { return }
            FileHandle.standardError.write(Data("ChildProcess: pid \(pid) \(reason) and is killed\n".utf8))
            kill(-pid, SIGKILL)
        }
    }
}
