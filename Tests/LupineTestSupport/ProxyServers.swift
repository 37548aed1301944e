import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A proxy our users run, started by a test in a folder of its own on a loopback port and stopped
/// by it: squid (HTTP forwarding and `CONNECT`, optionally with Basic credentials) or microsocks
/// (SOCKS5, optionally with a user name and password).
public final class ProxyServer: Sendable {
    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    /// Its folder (squid's access log is `access.log` there).
    public let folder: URL
    private let process: ChildProcess

    private init(port: Int, folder: URL, process: ChildProcess) {
        self.port = port
        self.folder = folder
        self.process = process
    }

    public static let squid = URL(fileURLWithPath: "/usr/sbin/squid")
    public static let microsocks = URL(fileURLWithPath: "/usr/bin/microsocks")
    public static var hasSquid: Bool { FileManager.default.isExecutableFile(atPath: squid.path) }
    public static var hasMicrosocks: Bool { FileManager.default.isExecutableFile(atPath: microsocks.path) }

    /// squid in `folder`, taking anyone, or only `user` with `password` (Basic) when given; over
    /// TLS (an HTTPS proxy) with the PEM files `tls` names, when given.
    public static func startSquid(
        in folder: URL,
        user: String? = nil,
        password: String? = nil,
        tls: (certificate: String, key: String)? = nil
    ) async throws -> ProxyServer {
        // squid drops its privileges to its own user, which must write its logs here.
        chmod(folder.path, 0o777)
        let path = folder.path
        var access = "http_access allow all\n"
        if let user, let password {
            // An MD5-crypt hash, which squid's basic_ncsa_auth reads, written by openssl.
            let hashFile = folder.appendingPathComponent("hash")
            let exit = try await ChildProcess.start(
                URL(fileURLWithPath: "/usr/bin/openssl"),
                ["passwd", "-1", "-salt", "lupine", password],
                in: folder,
                stdout: hashFile,
                stderr: folder.appendingPathComponent("openssl.err")
            ).wait()
            let hash = try String(contentsOf: hashFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            guard exit.status == 0, !hash.isEmpty else { throw WaitTimeout(description: "openssl passwd failed") }
            try "\(user):\(hash)\n".write(to: folder.appendingPathComponent("passwords"), atomically: true, encoding: .utf8)
            chmod(folder.appendingPathComponent("passwords").path, 0o644)
            access = """
                auth_param basic program /usr/lib/squid/basic_ncsa_auth \(path)/passwords
                auth_param basic realm lupine
                acl users proxy_auth REQUIRED
                http_access allow users
                http_access deny all

                """
        }
        return try await Self.start(in: folder, what: "squid") { port in
            let listener = tls.map { "https_port 127.0.0.1:\(port) tls-cert=\($0.certificate) tls-key=\($0.key)" } ?? "http_port 127.0.0.1:\(port)"
            let configuration = """
                \(listener)
                pid_filename \(path)/squid.pid
                access_log stdio:\(path)/access.log
                cache_log \(path)/cache.log
                cache deny all
                cache_mem 8 MB
                coredump_dir \(path)
                shutdown_lifetime 0 seconds
                \(access)
                """
            let file = folder.appendingPathComponent("squid.conf")
            try configuration.write(to: file, atomically: true, encoding: .utf8)
            return (Self.squid, ["-N", "-f", file.path])
        }
    }

    /// microsocks in `folder`, taking anyone, or only `user` with `password` when given.
    public static func startMicrosocks(in folder: URL, user: String? = nil, password: String? = nil) async throws -> ProxyServer {
        try await Self.start(in: folder, what: "microsocks") { port in
            var arguments = ["-i", "127.0.0.1", "-p", "\(port)"]
            if let user, let password {
                arguments += ["-u", user, "-P", password]
            }
            return (Self.microsocks, arguments)
        }
    }

    /// Waits until squid's access log has a line containing `text` (squid writes a request's
    /// line once it ends: a tunnel's when it closes).
    public func waitForLogLine(containing text: String) async throws {
        do {
            try await waitUntil(timeout: .seconds(30), "squid's access log naming \(text)") {
                self.accessLog.contains { $0.contains(text) }
            }
        } catch {
            throw WaitTimeout(description: "squid's access log names no \(text): \(self.accessLog)")
        }
    }

    /// The access log's lines so far (squid's).
    public var accessLog: [String] {
        let text = (try? String(contentsOf: self.folder.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// Stops it at once (a proxy's graceful shutdown waits for its clients).
    public func stop() async {
        // Its helpers (squid's authenticator) are in its process group.
        kill(-self.process.pid, SIGKILL)
        _ = await self.process.wait()
    }

    /// Starts what `command` says on a free port, retrying on another port if the one chosen was
    /// taken meanwhile, and returns once the port accepts connections.
    private static func start(
        in folder: URL,
        what: String,
        command: (Int) throws -> (URL, [String])
    ) async throws -> ProxyServer {
        var lastError: (any Error)?
        for _ in 0..<3 {
            let port = try LoopbackPort.free()
            let (executable, arguments) = try command(port)
            let process = try ChildProcess.start(
                executable,
                arguments,
                in: folder,
                stdout: folder.appendingPathComponent("\(what).out"),
                stderr: folder.appendingPathComponent("\(what).out")
            )
            let server = ProxyServer(port: port, folder: folder, process: process)
            do {
                try await waitUntil(timeout: .seconds(60), "\(what) listening on \(port)") { LoopbackPort.accepts(port) }
                return server
            } catch {
                lastError = error
                await server.stop()
            }
        }
        let log = (try? String(contentsOf: folder.appendingPathComponent("\(what).out"), encoding: .utf8)) ?? ""
        throw WaitTimeout(description: "\(what) did not start: \(lastError.map { "\($0)" } ?? "") \(log.suffix(400))")
    }
}
