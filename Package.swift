// swift-tools-version: 6.1
// Reveille: Apple's AlarmKit, brought to the Linux desktop.

import PackageDescription

let package = Package(
    name: "Reveille",
    products: [
        .library(name: "AlarmCore", targets: ["AlarmCore"]),
        .executable(name: "reveille-bench", targets: ["reveille-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "AlarmCore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "TestSupport",
            dependencies: ["AlarmCore"]
        ),
        .executableTarget(
            name: "reveille-bench",
            dependencies: ["AlarmCore", "TestSupport"],
            path: "Benchmarks/reveille-bench"
        ),
        .testTarget(
            name: "AlarmCoreTests",
            dependencies: [
                "AlarmCore",
                "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
