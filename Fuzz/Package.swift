// swift-tools-version: 6.2

import PackageDescription

// The libFuzzer targets are a package of their own, like the benchmark, so that the library's
// manifest never sees sanitizer flags. Each target is an executable whose entry point is
// libFuzzer's (`LLVMFuzzerTestOneInput`); build them with the flags run.sh passes:
//
//     swift build -c debug --scratch-path .build -Xswiftc -sanitize=fuzzer,address \
//         -Xswiftc -parse-as-library -Xswiftc -enable-testing
//
// `-enable-testing` lets the targets `@testable import` Lupine's internal parsers.

let strictSwift6: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]


/// One fuzz target: Sources/<name>/, with FuzzSupport and what it fuzzes.
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport"] + dependencies,
        path: "Sources/\(name)",
        swiftSettings: strictSwift6
    )
}

let lupine: Target.Dependency = .product(name: "Lupine", package: "Lupine")
let nioHTTP1: Target.Dependency = .product(name: "NIOHTTP1", package: "swift-nio")

let package = Package(
    name: "LupineFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The test server's trait only: the CLI and OpenAPI traits would build the argument
        // parser and swift-openapi-runtime for nothing.
        .package(name: "Lupine", path: "..", traits: ["TestServer"]),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .target(name: "CLibFuzzer", path: "Sources/CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"], path: "Sources/FuzzSupport", swiftSettings: strictSwift6),
        fuzzTarget("FuzzJSON", [lupine, nioHTTP1]),
        fuzzTarget("FuzzXML", [lupine, nioHTTP1]),
        fuzzTarget("FuzzPropertyList", [lupine, nioHTTP1]),
        fuzzTarget("FuzzQueryString", [lupine]),
        fuzzTarget(
            "FuzzHeaderFields",
            [
                lupine, nioHTTP1,
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        fuzzTarget("FuzzCacheControl", [lupine, nioHTTP1]),
        fuzzTarget("FuzzSetCookie", [lupine]),
        fuzzTarget("FuzzNetscapeCookies", [lupine]),
        fuzzTarget("FuzzCacheRecord", [lupine, nioHTTP1]),
        fuzzTarget("FuzzResumeData", [lupine]),
        fuzzTarget("FuzzContentRange", [lupine]),
        fuzzTarget("FuzzRetryAfter", [lupine, nioHTTP1, .product(name: "LupineTestServer", package: "Lupine")]),
        fuzzTarget("FuzzImageHeader", [lupine, .product(name: "LupineImage", package: "Lupine")]),
        fuzzTarget(
            "FuzzMultipart",
            [lupine, .product(name: "LupineTestServer", package: "Lupine")]
        ),
        // Compiled from Lupine's own source files (symbolic links): the CLI's parsers, since an
        // executable target cannot be imported, and the netlink parser, whose API is `package`
        // (which neither `@testable` nor another package can reach).
        fuzzTarget("FuzzRequestItem", []),
        fuzzTarget("FuzzDownloadName", []),
        fuzzTarget("FuzzNetlink", []),
    ]
)
