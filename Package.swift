// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Tessera",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "tessera", targets: ["tessera"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]
        ),
        .target(
            name: "TesseraCore",
            resources: [.copy("Resources/templates")]
        ),
        .target(name: "TesseraMedia", dependencies: ["CFFmpeg", "TesseraCore"]),
        .target(name: "TesseraEngine", dependencies: ["TesseraMedia", "TesseraCore"]),
        .executableTarget(
            name: "tessera",
            dependencies: [
                "TesseraEngine", "TesseraMedia", "TesseraCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "TesseraCoreTests", dependencies: ["TesseraCore"]),
    ],
    swiftLanguageModes: [.v6]
)
