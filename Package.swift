// swift-tools-version: 6.2

import PackageDescription

let strictSwift6: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

/// What only the test server, the command line or LupineOpenAPI needs, built and resolved when its trait is on.
let testserver: TargetDependencyCondition? = .when(traits: ["TestServer"])
let cli: TargetDependencyCondition? = .when(traits: ["CLI"])
let openapi: TargetDependencyCondition? = .when(traits: ["OpenAPI"])

let package = Package(
    name: "Lupine",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Lupine", targets: ["Lupine"]),
        .library(name: "LupineImage", targets: ["LupineImage"]),
        .library(name: "LupineTestServer", targets: ["LupineTestServer"]),
        .library(name: "LupineOpenAPI", targets: ["LupineOpenAPI"]),
        .executable(name: "lupine", targets: ["LupineCLI"]),
    ],
    // A package that depends on Lupine resolves Hummingbird, the service lifecycle, compress-nio,
    // the argument parser and swift-openapi-runtime only while these traits are on (they are by
    // default, so this package's own `swift build` and `swift test` build everything); `traits: []`
    // leaves the library's own.
    traits: [
        .trait(name: "TestServer", description: "The LupineTestServer product: Hummingbird, the service lifecycle, compress-nio."),
        .trait(name: "CLI", description: "The lupine command line: the argument parser, and the test server for lupine serve.", enabledTraits: ["TestServer"]),
        .trait(name: "OpenAPI", description: "The LupineOpenAPI product: a ClientTransport for swift-openapi-runtime."),
        .trait(
            name: "ImageDecoding",
            description: "LupineImage decodes PNG, JPEG and WebP to pixels on Linux with the system's libpng, "
                + "libjpeg-turbo (TurboJPEG) and libwebp; install libpng-dev, libturbojpeg0-dev and libwebp-dev first."
        ),
        .default(enabledTraits: ["TestServer", "CLI", "OpenAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // `swift package generate-documentation`; no target uses it, so a dependent never resolves it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "LupineTransport",
            dependencies: [
                "CLupineCodings",
                "CLupinePKCS12",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "Lupine",
            dependencies: [
                "LupineTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                "CLupineCodings",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSwift6
        ),
        // gzip and deflate through zlib; br and zstd through libbrotlidec and libzstd, loaded at run
        // time when the machine has them (building needs neither).
        .target(
            name: "CLupineCodings",
            linkerSettings: [.linkedLibrary("z"), .linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        // PKCS#12 bundles through the system's libcrypto, loaded at run time (building needs no OpenSSL).
        .target(name: "CLupinePKCS12", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(
            name: "LupineImage",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "Lupine",
                .target(name: "CLupinePNG", condition: .when(platforms: [.linux], traits: ["ImageDecoding"])),
                .target(name: "CLupineTurboJPEG", condition: .when(platforms: [.linux], traits: ["ImageDecoding"])),
                .target(name: "CLupineWebP", condition: .when(platforms: [.linux], traits: ["ImageDecoding"])),
            ],
            swiftSettings: strictSwift6
        ),
        // The system codecs LupineImage decodes with on Linux, only with the ImageDecoding trait.
        .systemLibrary(name: "CLupinePNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CLupineTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CLupineWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        .target(
            name: "LupineTestServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird", condition: testserver),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: testserver),
                .product(name: "HummingbirdTLS", package: "hummingbird", condition: testserver),
                .product(name: "HummingbirdHTTP2", package: "hummingbird", condition: testserver),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: testserver),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "CompressNIO", package: "compress-nio", condition: testserver),
                "CLupineCodings",
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP2", package: "swift-nio-extras", condition: testserver),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "LupineOpenAPI",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "Lupine",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: openapi),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: openapi),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSwift6
        ),
        .executableTarget(
            name: "LupineCLI",
            dependencies: [
                "Lupine",
                "LupineImage",
                "LupineTestServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: cli),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strictSwift6
        ),
        // What more than one test target needs; no product names it, so no dependent builds it.
        .target(
            name: "LupineTestSupport",
            dependencies: [
                "Lupine",
                "LupineTestServer",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/LupineTestSupport",
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "LupineTests",
            dependencies: [
                "Lupine",
                "LupineTestSupport",
                "LupineImage",
                "LupineTestServer",
                "LupineCLI",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "LupineImageTests",
            dependencies: [
                "LupineImage", "Lupine", "LupineTestServer", "LupineTestSupport",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strictSwift6
        ),
        // The generated client in Generated/ is committed; its README says how it was made.
        .testTarget(
            name: "LupineOpenAPITests",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "LupineOpenAPI",
                "Lupine",
                "LupineTestServer",
                "LupineTestSupport",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: openapi),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: openapi),
            ],
            exclude: ["Generated/openapi.yaml", "Generated/openapi-generator-config.yaml", "Generated/README.md"],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "LupineTestServerTests",
            dependencies: [
                "LupineTestServer",
                "LupineTestSupport",
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strictSwift6
        ),
    ]
)
