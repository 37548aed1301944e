import Foundation

/// The server the network comparison runs against: nginx when it is installed (serving one
/// 300-byte JSON document at `/get`), else this benchmark's own `--serve` child, in a process of
/// its own pinned to the last core, while the benchmark pins itself to the first. With `tls`,
/// nginx alone, over TLS with HTTP/2 and HTTP/1.1 by ALPN on one port, with a certificate made
/// at start, and a file of `largeFileSize` zero bytes at `/large`.
final class PinnedServer {
    let baseURL: URL
    /// What serves, for the report.
    let name: String
    private let process: Process
    private let folder: URL?

    /// The body nginx serves: 300 bytes of JSON, the shape of a small API answer.
    static let document: String = {
        let prefix = #"{"id":12345,"name":"lupine","tags":["http","swift","nio"],"note":""#
        let suffix = #""}"#
        let filler = String(repeating: "x", count: 300 - prefix.utf8.count - suffix.utf8.count - 1)
        return prefix + filler + suffix + "\n"
    }()

    /// The core the server is pinned to, and the one the benchmark keeps for itself.
    static var serverCore: Int { max(0, ProcessInfo.processInfo.activeProcessorCount - 1) }
    static let clientCore = 0

    init(tls: Bool = false, largeFileSize: Int = 0) throws {
        if tls {
            guard let nginx = Self.executable(named: "nginx"), let openssl = Self.executable(named: "openssl") else {
                throw BenchError.missing("nginx and openssl")
            }
            let folder = FileManager.default.temporaryDirectory.appending(path: "lupine-bench-nginx-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(Self.document.utf8).write(to: folder.appending(path: "get"))
            // Sparse: a gibibyte of zeros costs no disk.
            let large = folder.appending(path: "large")
            guard FileManager.default.createFile(atPath: large.path, contents: nil) else { throw BenchError.missing("a writable temporary folder") }
            try FileHandle(forWritingTo: large).truncate(atOffset: UInt64(largeFileSize))
            try Self.makeCertificate(openssl: openssl, in: folder)
            let port = try FreePort.pick()
            let configuration = Self.nginxConfiguration(folder: folder, port: port, tls: true)
            try configuration.write(to: folder.appending(path: "nginx.conf"), atomically: true, encoding: .utf8)
            self.process = try Self.pinned(nginx, ["-p", folder.path, "-c", folder.appending(path: "nginx.conf").path])
            self.folder = folder
            self.name = "nginx, 1 worker, TLS with h2 and http/1.1 by ALPN"
            guard let url = URL(string: "https://127.0.0.1:\(port)") else { throw BenchError.invalidURL("port \(port)") }
            self.baseURL = url
            try Self.waitUntilAccepting(port: port)
        } else if let nginx = Self.executable(named: "nginx") {
            let folder = FileManager.default.temporaryDirectory.appending(path: "lupine-bench-nginx-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(Self.document.utf8).write(to: folder.appending(path: "get"))
            try Data(Self.document.utf8).write(to: folder.appending(path: "cached"))
            let port = try FreePort.pick()
            try Self.nginxConfiguration(folder: folder, port: port, tls: false).write(to: folder.appending(path: "nginx.conf"), atomically: true, encoding: .utf8)
            let process = try Self.pinned(nginx, ["-p", folder.path, "-c", folder.appending(path: "nginx.conf").path])
            self.process = process
            self.folder = folder
            self.name = "nginx, 1 worker"
            guard let url = URL(string: "http://127.0.0.1:\(port)") else { throw BenchError.invalidURL("port \(port)") }
            self.baseURL = url
            try Self.waitUntilAccepting(port: port)
        } else {
            let child = try ServerProcess(pinnedTo: Self.serverCore)
            self.process = child.process
            self.folder = nil
            self.name = "LupineTestServer (nginx is not installed)"
            self.baseURL = child.baseURL
        }
    }

    /// The URL of the 300-byte JSON document (httpbin's `/get` on the test server).
    var documentURL: String { self.baseURL.absoluteString + (self.folder == nil ? "/get?x=1" : "/get") }

    /// The same document with `Cache-Control: max-age=3600`, which an ``HTTPCache`` keeps.
    var cacheableDocumentURL: String { self.baseURL.absoluteString + (self.folder == nil ? "/cache/3600" : "/cached") }

    /// Kills the server: nginx without its master process does not always act on SIGTERM.
    func stop() {
        kill(self.process.processIdentifier, SIGKILL)
        self.process.waitUntilExit()
        if let folder = self.folder {
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Pins every thread of this process to the client's core; threads made later inherit it.
    static func pinClient() -> Bool {
        guard ProcessInfo.processInfo.activeProcessorCount > 1, let taskset = Self.executable(named: "taskset") else { return false }
        let process = Process()
        process.executableURL = taskset
        process.arguments = ["-a", "-p", "-c", "\(Self.clientCore)", "\(getpid())"]
        process.standardOutput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// `executable` run under `taskset` on `core`, the server's unless told (unpinned where there
    /// is no taskset or one core).
    static func pinned(_ executable: URL, _ arguments: [String], core: Int? = nil, output: Pipe? = nil) throws -> Process {
        let process = Process()
        if let taskset = Self.executable(named: "taskset"), ProcessInfo.processInfo.activeProcessorCount > 1 {
            process.executableURL = taskset
            process.arguments = ["-c", "\(core ?? Self.serverCore)", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        if let output {
            process.standardOutput = output
        }
        try process.run()
        return process
    }

    static func executable(named name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"]
        return directories.map { URL(fileURLWithPath: $0).appending(path: name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// A self-signed P-256 certificate for 127.0.0.1, `cert.pem` and `key.pem` in `folder`.
    private static func makeCertificate(openssl: URL, in folder: URL) throws {
        let process = Process()
        process.executableURL = openssl
        process.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-keyout", folder.appending(path: "key.pem").path, "-out", folder.appending(path: "cert.pem").path,
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError.missing("a certificate from openssl") }
    }

    private static func nginxConfiguration(folder: URL, port: Int, tls: Bool) -> String {
        let listen =
            tls
            ? "listen 127.0.0.1:\(port) ssl http2 reuseport; ssl_certificate \(folder.path)/cert.pem; ssl_certificate_key \(folder.path)/key.pem;"
            : "listen 127.0.0.1:\(port) reuseport;"
        return """
            daemon off;
            master_process off;
            worker_processes 1;
            error_log \(folder.path)/error.log;
            pid \(folder.path)/nginx.pid;
            events { worker_connections 1024; }
            http {
                access_log off;
                keepalive_requests 1000000;
                keepalive_timeout 120s;
                client_body_temp_path \(folder.path);
                types { }
                default_type application/json;
                server {
                    \(listen)
                    root \(folder.path);
                    location = /cached { add_header Cache-Control "max-age=3600"; }
                }
            }
            """
    }

    /// Polls the port until nginx accepts (bounded: 5 s), so the first round does not race its start.
    private static func waitUntilAccepting(port: Int) throws {
        for _ in 0..<500 {
            if FreePort.accepts(port: port) { return }
            usleep(10_000)
        }
        throw BenchError.serverDidNotStart
    }
}
