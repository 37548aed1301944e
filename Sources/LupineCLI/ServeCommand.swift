import ArgumentParser
import Foundation
import LupineTestServer

/// `lupine serve`: runs the embedded httpbin-compatible test server until interrupted.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the embedded httpbin-compatible test server.",
        discussion: """
            Prints the main URL and the fault listener's URL, then serves until SIGINT or SIGTERM.
            """
    )

    @Option(help: "Address to listen on, such as 127.0.0.1 or ::1.")
    var host = "127.0.0.1"

    @Option(help: "Port of the main listener; 0 lets the system choose.")
    var port = 8080

    @Flag(help: "Serve HTTPS with a certificate chain generated at start.")
    var tls = false

    @Flag(
        help: ArgumentHelp(
            "Speak HTTP/2: with --tls offered by ALPN beside HTTP/1.1, else HTTP/2 alone to clients with prior knowledge (h2c)."
        )
    )
    var http2 = false

    @Option(
        name: .customLong("ca-out"),
        help: ArgumentHelp("With --tls, write the generated root CA certificate (PEM) to this file.", valueName: "path")
    )
    var caOut: String?

    @Option(
        name: .customLong("cert-out"),
        help: ArgumentHelp("With --tls, write the served leaf certificate (DER) to this file, for --pin-cert.", valueName: "path")
    )
    var certOut: String?

    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp("Close keep-alive connections idle this many seconds.", valueName: "seconds")
    )
    var idleTimeout: Double?

    @Option(
        name: .customLong("head-timeout"),
        help: ArgumentHelp(
            "Close connections that have not sent a complete request head within this many seconds.",
            valueName: "seconds"
        )
    )
    var headTimeout: Double = 10

    @Option(
        name: .customLong("max-body-size"),
        help: ArgumentHelp(
            "Answer 413 to echo requests (/post, /put, /anything, ...) whose body is larger; /upload has no limit.",
            valueName: "bytes"
        )
    )
    var maximumBodySize = 64 * 1024 * 1024

    @Option(
        name: .customLong("body-budget"),
        help: ArgumentHelp(
            "Answer 503 to echo requests whose body would take the bodies held at once past this many bytes.",
            valueName: "bytes"
        )
    )
    var bodyBudget = 256 * 1024 * 1024

    @Option(
        name: .customLong("max-connections"),
        help: ArgumentHelp("Close connections accepted while this many are open.", valueName: "count")
    )
    var maximumConnections = 1024

    /// The longest timeout accepted, a year: far longer ones do not fit a `Duration`.
    private static let longestTimeout: Double = 365 * 24 * 3600

    func validate() throws {
        guard (0...65535).contains(port) else {
            throw ValidationError("--port must be between 0 and 65535.")
        }
        if caOut != nil && !tls {
            throw ValidationError("--ca-out needs --tls.")
        }
        if certOut != nil && !tls {
            throw ValidationError("--cert-out needs --tls.")
        }
        if let idleTimeout, !(idleTimeout > 0 && idleTimeout <= Self.longestTimeout) {
            throw ValidationError("--idle-timeout must be a positive number of seconds, at most \(Int(Self.longestTimeout)).")
        }
        if !(headTimeout > 0 && headTimeout <= Self.longestTimeout) {
            throw ValidationError("--head-timeout must be a positive number of seconds, at most \(Int(Self.longestTimeout)).")
        }
        if maximumBodySize < 0 {
            throw ValidationError("--max-body-size must be a number of bytes, 0 or more.")
        }
        if bodyBudget < 0 {
            throw ValidationError("--body-budget must be a number of bytes, 0 or more.")
        }
        if maximumConnections < 1 {
            throw ValidationError("--max-connections must be at least 1.")
        }
    }

    func run() async throws {
        let server = try await LupineTestServer.start(
            .init(
                host: host,
                port: port,
                tls: tls,
                http2: http2,
                idleTimeout: idleTimeout.map { .seconds($0) },
                requestHeadTimeout: .seconds(headTimeout),
                maximumRequestBodySize: maximumBodySize,
                requestBodyBudget: bodyBudget,
                maximumConnections: maximumConnections
            )
        )
        if let caOut, let pem = server.certificateAuthorityPEM {
            try Data(pem.utf8).write(to: LocalPath.url(caOut))
        }
        if let certOut, let der = server.leafCertificateDER {
            try Data(der).write(to: LocalPath.url(certOut))
        }
        var lines = ["Serving on \(server.baseURL.absoluteString)", "Faults on \(server.faultsBaseURL.absoluteString)"]
        lines += caOut.map { ["CA certificate written to \($0)"] } ?? []
        lines += certOut.map { ["Leaf certificate written to \($0)"] } ?? []
        do {
            try StandardOutput.writeLine(lines.joined(separator: "\n"))
        } catch {
            // Serving is the work asked for; the announcement is not worth stopping it over,
            // but it is not lost in silence either.
            StandardError.write("lupine: \(error.description); serving on \(server.baseURL.absoluteString) all the same\n")
        }
        await TerminationSignal.wait()
        await server.stop()
    }
}
