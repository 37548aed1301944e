import Foundation
import LupineTestSupport
import Testing

/// What a package that depends on the `Lupine` product alone resolves, as the README's
/// "Depending on Lupine" says: with `traits: []`, none of the test server's, the command line's or
/// LupineOpenAPI's packages, and no more packages than the README counts. A real `swift package
/// resolve` of a scratch package in a temporary folder, with its own SwiftPM cache there too, so
/// nothing outside the folder changes.
@Suite struct LibraryResolutionTests {
    /// This package's root, from this file's place in it.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The packages only the `TestServer`, `CLI` and `OpenAPI` traits reach, and the benchmark's.
    static let toolPackages: Set<String> = ["hummingbird", "async-http-client", "compress-nio", "swift-argument-parser", "swift-openapi-runtime"]

    /// How many packages the README says such a dependent fetches.
    static let libraryPackageCount = 19

    @Test(.timeLimit(.minutes(10)))
    func aLibraryUserWithoutTraitsFetchesNoToolPackage() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = """
            // swift-tools-version: 6.2
            import PackageDescription
            let package = Package(
                name: "App",
                platforms: [.macOS(.v15)],
                dependencies: [.package(name: "Lupine", path: \(String(reflecting: Self.packageRoot.path)), traits: [])],
                targets: [.executableTarget(name: "App", dependencies: [.product(name: "Lupine", package: "Lupine")])]
            )
            """
        try FileManager.default.createDirectory(at: folder.appending(path: "Sources/App"), withIntermediateDirectories: true)
        try Data(manifest.utf8).write(to: folder.appending(path: "Package.swift"))
        try Data("import Lupine\n".utf8).write(to: folder.appending(path: "Sources/App/main.swift"))

        let stdout = folder.appending(path: "stdout.txt")
        let stderr = folder.appending(path: "stderr.txt")
        let arguments = ["swift", "package", "resolve", "--cache-path", folder.appending(path: "cache").path]
        let exit = try await ChildProcess.start(URL(fileURLWithPath: "/usr/bin/env"), arguments, in: folder, stdout: stdout, stderr: stderr).wait()
        #expect(exit.status == 0, "\((try? String(contentsOf: stderr, encoding: .utf8)) ?? "")")

        let resolved = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appending(path: "Package.resolved"))) as? [String: Any]
        let pins = Set((resolved?["pins"] as? [[String: Any]] ?? []).compactMap { $0["identity"] as? String })
        #expect(pins.contains("swift-nio"))
        #expect(pins.isDisjoint(with: Self.toolPackages), "fetched \(pins.intersection(Self.toolPackages).sorted())")
        #expect(pins.count <= Self.libraryPackageCount, "fetched \(pins.sorted())")
    }
}
