import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real child process started with `posix_spawn`: in a working directory of the test's
/// choosing, standard output and standard error going to files (so a large or binary output is
/// kept byte for byte and no pipe can fill up).
///
/// Its peak memory is not measured here: a child spawned from the (large) test process starts
/// life in the parent's address space, and the kernel records that as the child's own peak at
/// `exec`. Run the program under `/usr/bin/time -f %M` instead, whose fork is small.
struct ChildProcess: Sendable {
    /// How a child ended.
    struct Exit: Sendable {
        /// The exit status, or 128 + the signal's number for a child a signal killed (as a shell says it).
        let status: Int32
        /// The signal that killed it, if one did.
        let signal: Int32?
    }

    let pid: pid_t

    /// Starts `executable` with `arguments` in `directory`, standard input from /dev/null;
    /// without a `stdout` file, standard output is closed (as `>&-` does).
    static func start(_ executable: URL, _ arguments: [String], in directory: URL, stdout: URL?, stderr: URL) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let stdout {
            posix_spawn_file_actions_addopen(&actions, 1, stdout.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        } else {
            posix_spawn_file_actions_addclose(&actions, 1)
        }
        posix_spawn_file_actions_addopen(&actions, 2, stderr.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // The shell changes directory, then becomes the program (same process, same pid).
        let shell = ["/bin/sh", "-c", #"cd "$0" && exec "$@""#, directory.path, executable.path]
        let argv = (shell + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ)
        guard result == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL)
        }
        return ChildProcess(pid: pid)
    }

    /// Sends `signal` to the child.
    func send(_ signal: Int32) {
        kill(self.pid, signal)
    }

    /// Waits for the child to end, on a thread of its own (never blocking the concurrency pool
    /// an in-process server answers on).
    func wait() async -> Exit {
        let pid = self.pid
        return await withCheckedContinuation { continuation in
            Thread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                let signal = status & 0x7F
                let exit = Exit(status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal, signal: signal == 0 ? nil : signal)
                continuation.resume(returning: exit)
            }.start()
        }
    }
}
