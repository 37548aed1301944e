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
        if let idleTimeout, !(idleTimeout > 0) {
            throw ValidationError("--idle-timeout must be a positive number of seconds.")
        }
    }

    func run() async throws {
        let server = try await LupineTestServer.start(
            .init(host: host, port: port, tls: tls, idleTimeout: idleTimeout.map { .seconds($0) })
        )
        if let caOut, let pem = server.certificateAuthorityPEM {
            try Data(pem.utf8).write(to: LocalPath.url(caOut))
        }
        if let certOut, let der = server.leafCertificateDER {
            try Data(der).write(to: LocalPath.url(certOut))
        }
        StandardOutput.writeLine("Serving on \(server.baseURL.absoluteString)")
        StandardOutput.writeLine("Faults on \(server.faultsBaseURL.absoluteString)")
        if let caOut {
            StandardOutput.writeLine("CA certificate written to \(caOut)")
        }
        if let certOut {
            StandardOutput.writeLine("Leaf certificate written to \(certOut)")
        }
        await TerminationSignal.wait()
        await server.stop()
    }
}
