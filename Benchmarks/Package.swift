// swift-tools-version: 6.2

import PackageDescription

// The benchmark is a package of its own, so that AsyncHTTPClient, which it measures Lupine
// against, is no dependency of the library's manifest.
let package = Package(
    name: "LupineBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "lupine-bench", targets: ["LupineBench"])
    ],
    dependencies: [
        .package(name: "Lupine", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
    ],
    targets: [
        .executableTarget(
            name: "LupineBench",
            dependencies: [
                .product(name: "Lupine", package: "Lupine"),
                .product(name: "LupineImage", package: "Lupine"),
                .product(name: "LupineTestServer", package: "Lupine"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "LupineBench",
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .enableUpcomingFeature("ExistentialAny"),
            ]
        )
    ]
)
