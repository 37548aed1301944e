import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// nginx, as users run it, started by a test in a folder of the test's own with a configuration
/// written there, in the foreground (so that the test owns the process), and stopped by it.
public final class Nginx: Sendable {
    /// Where Debian installs it.
    public static let executable = URL(fileURLWithPath: "/usr/sbin/nginx")

    /// Whether nginx is installed, for `.enabled(if:)`.
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable.path) }

    /// The folder holding its configuration, logs and temporary files.
    public let folder: URL
    /// The loopback TCP port `{port}` stood for, when it was started with one.
    public let port: Int?
    private let process: ChildProcess

    private init(folder: URL, port: Int?, process: ChildProcess) {
        self.folder = folder
        self.port = port
        self.process = process
    }

    /// Starts nginx in `folder` with `servers` as the `http` block's server blocks (every
    /// `{folder}` in them stands for `folder`'s path), and returns once `socket`, a Unix domain
    /// socket one of them listens on, accepts connections.
    public static func start(in folder: URL, servers: String, socket: String) async throws -> Nginx {
        try await Self.launch(in: folder, servers: servers, port: nil) { Self.accepts(socket) }
    }

    /// Starts nginx in `folder` with `servers` as the `http` block's server blocks, every
    /// `{folder}` standing for `folder`'s path and every `{port}` for a free loopback port, and
    /// returns once that port accepts connections (retrying on another port if it was taken).
    public static func start(in folder: URL, servers: String) async throws -> Nginx {
        var lastError: (any Error)?
        for _ in 0..<3 {
            let port = try LoopbackPort.free()
            do {
                let text = servers.replacingOccurrences(of: "{port}", with: "\(port)")
                return try await Self.launch(in: folder, servers: text, port: port) { LoopbackPort.accepts(port) }
            } catch {
                lastError = error
            }
        }
        throw lastError ?? WaitTimeout(description: "nginx did not start")
    }

    private static func launch(in folder: URL, servers: String, port: Int?, listening: @escaping @Sendable () -> Bool) async throws -> Nginx {
        let path = folder.path
        let configuration = """
            worker_processes 1;
            daemon off;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log;
            events { worker_connections 256; }
            http {
                access_log \(path)/access.log;
                client_body_temp_path \(path)/body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
            \(servers.replacingOccurrences(of: "{folder}", with: path))
            }
            """
        let file = folder.appendingPathComponent("nginx.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        let process = try ChildProcess.start(
            Self.executable,
            ["-c", file.path, "-p", path, "-e", "\(path)/error.log"],
            in: folder,
            stdout: folder.appendingPathComponent("stdout"),
            stderr: folder.appendingPathComponent("stderr")
        )
        let nginx = Nginx(folder: folder, port: port, process: process)
        do {
            try await waitUntil(timeout: .seconds(60), "nginx listening") { listening() }
        } catch {
            await nginx.stop()
            let log = (try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
            throw WaitTimeout(description: "nginx did not start: \(log)")
        }
        return nginx
    }

    /// The access log's lines so far.
    public var accessLog: [String] {
        let text = (try? String(contentsOf: self.folder.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// Stops nginx and waits for it to end.
    public func stop() async {
        self.process.send(SIGTERM)
        _ = await self.process.wait(killingAfter: .seconds(30))
    }

    private static func accepts(_ path: String) -> Bool {
        #if canImport(Glibc)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}
