// swift-tools-version: 6.1
// Reveille: Apple's AlarmKit, brought to the Linux desktop.

import PackageDescription

let package = Package(
    name: "Reveille",
    products: [
        .library(name: "AlarmCore", targets: ["AlarmCore"]),
        .library(name: "DBus", targets: ["DBus"]),
        .library(name: "AlarmKit", targets: ["AlarmKit"]),
        .executable(name: "reveilled", targets: ["reveilled"]),
        .executable(name: "reveille", targets: ["reveille"]),
        .executable(name: "reveille-bench", targets: ["reveille-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        .target(
            name: "AlarmCore",
            dependencies: [
                "CSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        .systemLibrary(
            name: "CLinux"
        ),
        .systemLibrary(
            name: "CGio",
            pkgConfig: "gio-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),
        // The person's language and clock: gettext catalogs, GNOME's clock format, the locale.
        .target(
            name: "Localization",
            dependencies: ["AlarmCore", "CLinux", "CGio"]
        ),
        .systemLibrary(
            name: "CALSA",
            pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]
        ),
        .systemLibrary(
            name: "CSndFile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]
        ),
        .target(
            name: "DBus",
            dependencies: ["CDBus"]
        ),
        .target(
            name: "AlarmKit",
            dependencies: ["AlarmCore", "DBus"]
        ),
        .systemLibrary(
            name: "CLibNotify",
            pkgConfig: "libnotify",
            providers: [.apt(["libnotify-dev"])]
        ),
        .executableTarget(
            name: "reveille-notify-probe",
            dependencies: ["AlarmDesktop", "AlarmCore"]
        ),
        .target(
            name: "AlarmDesktop",
            dependencies: [
                "AlarmCore", "CALSA", "CSndFile", "DBus", "CLibNotify", "Localization",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "AlarmAgent",
            dependencies: [
                "AlarmCore", "AlarmKit", "AlarmDesktop", "DBus", "CLinux", "Localization",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "reveilled",
            dependencies: [
                "AlarmAgent", "AlarmCore", "AlarmDesktop",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "reveille",
            dependencies: [
                "AlarmKit", "CLinux", "Localization",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "TestSupport",
            dependencies: ["AlarmCore"],
            // The GNOME Shell test extension and the gjs scripts GNOMEShellServer runs.
            exclude: ["GNOMEShell"]
        ),
        .target(
            name: "StressTesting",
            dependencies: ["AlarmKit", "DBus", "TestSupport"]
        ),
        .executableTarget(
            name: "reveille-example",
            dependencies: ["AlarmKit"],
            path: "Examples/AlarmKitExample"
        ),
        .executableTarget(
            name: "reveille-bench",
            dependencies: ["AlarmCore", "AlarmKit", "DBus", "StressTesting", "TestSupport"],
            path: "Benchmarks/reveille-bench"
        ),
        // Test traits the test targets share: `.requires(…)`, which fails a test where what it needs is
        // missing, instead of skipping it.
        .target(name: "TestRequirements", dependencies: ["AlarmCore"], path: "Tests/TestRequirements"),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "TestSupport", "TestRequirements"]),
        .testTarget(name: "SandboxTests", dependencies: ["TestSupport", "TestRequirements"]),
        .testTarget(name: "SoundTests", dependencies: ["AlarmDesktop", "TestSupport", "TestRequirements"]),
        .testTarget(name: "LocalizationTests", dependencies: ["Localization", "AlarmDesktop", "AlarmCore", "TestSupport", "TestRequirements"]),
        .testTarget(name: "NotificationTests", dependencies: ["AlarmDesktop", "AlarmCore", "TestSupport", "DBus", "TestRequirements"]),
        .testTarget(
            name: "AlarmCoreTests",
            dependencies: [
                "AlarmCore",
                "TestSupport",
                "TestRequirements",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "AgentTests",
            dependencies: ["AlarmKit", "AlarmAgent", "AlarmDesktop", "DBus", "StressTesting", "TestSupport", "TestRequirements"],
            exclude: ["Scripts"]
        ),
        // The real GNOME Shell with the real agent: a target of its own, so that scripts/test-userland
        // (whose Debian 13 root has no gnome-shell) leaves it out while the host suite runs it.
        .testTarget(name: "GNOMEShellTests", dependencies: ["AlarmCore", "TestSupport", "TestRequirements"]),
        .testTarget(name: "AlarmKitSourceTests", dependencies: ["AlarmKit"]),
    ],
    swiftLanguageModes: [.v6]
)

// No build flags here: they would reach every app that builds the AlarmKit library (a release app
// linking Foundation dynamically then fails: "cannot find -l_FoundationCShims"), and unsafe flags
// keep a package from being a versioned dependency at all. Reveille's own installed programs are
// linked statically by the build command: `swift build -c release $(scripts/release-flags)`.
