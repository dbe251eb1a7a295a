// swift-tools-version: 6.0
import PackageDescription

/// The test targets are compiled without optimisation: `swift test -c release` reuses the release
/// build of every module under test, and optimising the tests themselves only cost CI minutes
/// (about five of them on two cores, most of it the optimiser on one large module at a time).
let unoptimizedTests: [SwiftSetting] = [.unsafeFlags(["-Onone"])]

let package = Package(
    name: "Tessera",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tessera", targets: ["tessera"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The task store: SQLite (one node) and PostgreSQL (a cluster).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // HMAC-SHA256 of webhook signatures; Deque for queues.
        .package(url: "https://github.com/apple/swift-crypto", "3.9.0"..<"6.0.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // Worker pipes read and written on event loops instead of a thread per worker.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Node-to-node forwarding of API requests in a cluster.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Tests parse the OpenAPI document (a YAML resource) to check it against the routes and types.
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]
        ),
        // FreeType renders text regions (anti-aliased glyphs from TTF / OTF files).
        .systemLibrary(
            name: "CFreeType",
            pkgConfig: "freetype2",
            providers: [.apt(["libfreetype-dev"])]
        ),
        // libsrtp 2: SRTP / SRTCP for RTP inputs keyed with SDES (`a=crypto`).
        .systemLibrary(
            name: "CSRTP",
            pkgConfig: "libsrtp2",
            providers: [.apt(["libsrtp2-dev"])]
        ),
        // The picture and the sound: layouts resolved to pixels, the raster compositor, the audio
        // mix, SEI messages, the layout preview. Pure: no FFmpeg, no I/O.
        .target(name: "TesseraComposition"),
        // The RTP / RTCP / SDP / SRTP protocol: packets, depacketizers, reception statistics,
        // feedback, sender sessions. Pure: bytes in, actions out. (A picture's orientation, CVO,
        // is the one type it takes from the composition.)
        .target(name: "TesseraRTP", dependencies: ["TesseraComposition"]),
        // The task document: its JSON reader, its validation (every problem named by path), the
        // resolved task, layout templates, output naming.
        .target(
            name: "TesseraTask",
            dependencies: ["TesseraRTP", "TesseraComposition"],
            resources: [.copy("Resources/templates")]
        ),
        // zlib deflates the rows of the PNGs that previews and snapshots return.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Pictures as PNG without FFmpeg: the API server draws layout previews with it.
        .target(name: "TesseraPNG", dependencies: ["CZlib", "TesseraComposition"]),
        .target(name: "TesseraHLS"),
        .target(name: "TesseraMedia", dependencies: ["CFFmpeg", "CSRTP", "TesseraTask", "TesseraRTP", "TesseraComposition", "TesseraHLS"]),
        .target(name: "TesseraText", dependencies: ["CFreeType", "TesseraTask", "TesseraRTP", "TesseraComposition"]),
        .target(
            name: "TesseraStore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                // A store is a `Service`: the service group runs its connection pool.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Recordings uploaded to S3-compatible object storage: the SigV4 signer, the S3 calls over
        // AsyncHTTPClient, and the pure rules of multipart parts, retries and the spool.
        .target(
            name: "TesseraObjectStorage",
            dependencies: [
                "TesseraTask",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The messages between `tessera serve` and a task's worker process, and the task status
        // they carry: the only thing the service side and the worker side share. No FFmpeg.
        .target(name: "TesseraWorkerProtocol", dependencies: ["TesseraTask", "TesseraRTP", "TesseraComposition"]),
        // The worker side: one task's media pipeline (`tessera worker`, `tessera probe`, `tessera mix`).
        .target(
            name: "TesseraWorker",
            dependencies: [
                "TesseraWorkerProtocol", "TesseraMedia", "TesseraTask", "TesseraRTP", "TesseraComposition", "TesseraText", "TesseraObjectStorage", "TesseraPNG",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The service side: the task registry and supervision of worker processes, the cluster,
        // webhooks. It never links FFmpeg: it talks to workers through `TesseraWorkerProtocol`.
        .target(
            name: "TesseraService",
            // Metrics (the API only, no backend): webhook delivery counters reach `/metrics`.
            dependencies: [
                "TesseraWorkerProtocol", "TesseraTask", "TesseraRTP", "TesseraComposition", "TesseraStore", "TesseraObjectStorage",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .target(
            name: "TesseraServer",
            dependencies: [
                "TesseraService", "TesseraWorkerProtocol", "TesseraTask", "TesseraRTP", "TesseraComposition", "TesseraPNG", "TesseraStore", "TesseraObjectStorage",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Resources/openapi.yaml"), .copy("Resources/console"), .copy("Resources/examples")]
        ),
        .executableTarget(
            name: "tessera",
            dependencies: [
                "TesseraService", "TesseraWorker", "TesseraWorkerProtocol", "TesseraMedia", "TesseraTask", "TesseraRTP", "TesseraComposition",
                "TesseraServer", "TesseraStore", "TesseraPNG",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Code more than one test target uses (a test target cannot import another): the seeded SplitMix64.
        .target(name: "TesseraTestSupport", path: "Tests/TesseraTestSupport"),
        .testTarget(name: "TesseraCompositionTests", dependencies: ["TesseraComposition", "TesseraTestSupport"], swiftSettings: unoptimizedTests),
        .testTarget(name: "TesseraRTPTests", dependencies: ["TesseraRTP", "TesseraComposition", "TesseraTestSupport"], swiftSettings: unoptimizedTests),
        .testTarget(name: "TesseraTaskTests", dependencies: ["TesseraTask", "TesseraRTP", "TesseraComposition"], swiftSettings: unoptimizedTests),
        .testTarget(name: "TesseraPNGTests", dependencies: ["TesseraPNG", "TesseraComposition", "CZlib"], swiftSettings: unoptimizedTests),
        .testTarget(name: "TesseraHLSTests", dependencies: ["TesseraHLS"], swiftSettings: unoptimizedTests),
        .testTarget(name: "TesseraMediaTests", dependencies: ["TesseraMedia", "TesseraTask", "TesseraRTP", "TesseraComposition"], swiftSettings: unoptimizedTests),
        .testTarget(name: "TesseraWorkerProtocolTests", dependencies: ["TesseraWorkerProtocol", "TesseraTask", "TesseraRTP", "TesseraComposition"], swiftSettings: unoptimizedTests),
        // The worker's pipeline driven in-process with pictures and PCM made in the test (`MixMedia`).
        .testTarget(
            name: "TesseraWorkerTests",
            dependencies: ["TesseraWorker", "TesseraWorkerProtocol", "TesseraMedia", "TesseraTask", "TesseraRTP", "TesseraComposition"],
            swiftSettings: unoptimizedTests
        ),
        .testTarget(name: "TesseraStoreTests", dependencies: ["TesseraStore"], swiftSettings: unoptimizedTests),
        .testTarget(name: "TesseraObjectStorageTests", dependencies: ["TesseraObjectStorage", "TesseraTask", "TesseraRTP", "TesseraComposition"], swiftSettings: unoptimizedTests),
        // `TesseraMedia` for real sockets in the RTP port allocator's tests.
        .testTarget(
            name: "TesseraServiceTests",
            dependencies: ["TesseraService", "TesseraWorkerProtocol", "TesseraStore", "TesseraTask", "TesseraRTP", "TesseraComposition", "TesseraMedia", "TesseraObjectStorage", "TesseraHLS"],
            swiftSettings: unoptimizedTests
        ),
        .testTarget(
            name: "TesseraServerTests",
            dependencies: [
                "TesseraServer", "TesseraService", "TesseraWorkerProtocol", "TesseraTask", "TesseraRTP", "TesseraComposition", "TesseraMedia", "TesseraStore", "TesseraObjectStorage",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: unoptimizedTests
        ),
        .executableTarget(name: "tessera-store-bench", dependencies: ["TesseraStore", "TesseraService"], path: "bench/StoreBench"),
    ],
    swiftLanguageModes: [.v6]
)
