// swift-tools-version: 6.1
// Reveille: Apple's AlarmKit, brought to the Linux desktop.

import PackageDescription

let package = Package(
    name: "Reveille",
    products: [
        // The one library for apps (README, "The Swift library"); everything else is the package's own.
        .library(name: "AlarmKit", targets: ["AlarmKit"]),
        .executable(name: "reveilled", targets: ["reveilled"]),
        .executable(name: "reveille", targets: ["reveille"]),
        .executable(name: "reveille-multicall", targets: ["reveille-multicall"]),
        .executable(name: "reveille-search", targets: ["reveille-search"]),
        .executable(name: "reveille-bench", targets: ["reveille-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        // The layers, by audience (DESIGN.md; `scripts/check-architecture` keeps these rules). Each
        // target's `path:` puts it in its audience's folder of Sources/: Shared, AppLibrary, Agent,
        // Command, Installed (the one program the package installs), System, CModules, TestOnly
        // (README, "Layout").
        // - AlarmModel: what apps see: AlarmKit's types, schedule math, the clock. Foundation only.
        // - AlarmCore: the agent's engine: state machine, deadline queue, the store (SQLite).
        // - AlarmProtocol: the wire between client and agent: names, encoding, finding and starting the agent.
        // - AlarmKit: the client library apps import; it re-exports AlarmModel only.
        // - CommandLineText: the CLI's text input and tables, and the grammar of TIME anything may
        //   read a person's time with (in the person's language: Localization).
        .target(name: "AlarmModel", path: "Sources/Shared/AlarmModel"),
        // - AlarmRecords: what the agent keeps about an alarm and where it is in time; the engine, the
        //   wire and the CLI share it, apps never see it.
        .target(name: "AlarmRecords", dependencies: ["AlarmModel"], path: "Sources/Shared/AlarmRecords"),
        // - AgentRuntime: the agent's threads: named threads, a serial executor on a thread of its own,
        //   a thread pool, a callback one thread sets and others call.
        .target(name: "AgentRuntime", dependencies: ["AlarmModel", "LinuxSystem"], path: "Sources/Agent/AgentRuntime"),
        // - AlarmPresentation: the alert path's contract, between the engine that decides and the
        //   presenters that show and ring (AlarmPresenter, PresentationEffect).
        .target(name: "AlarmPresentation", dependencies: ["AlarmModel", "AlarmRecords"], path: "Sources/Agent/AlarmPresentation"),
        .target(
            name: "AlarmCore",
            dependencies: [
                "AgentRuntime",
                "AlarmModel",
                "AlarmPresentation",
                "AlarmRecords",
                "CSQLite",
                "LinuxSystem",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Agent/AlarmCore"
        ),
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CModules/CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CDBus",
            path: "Sources/CModules/CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        .systemLibrary(
            name: "CLinux",
            path: "Sources/CModules/CLinux"
        ),
        // The Linux system calls, one wrapper each: typed errors, EINTR retried in one place, and
        // a seam for tests to make a call fail. Package access only: apps never see it.
        .target(name: "LinuxSystem", dependencies: ["CLinux"], path: "Sources/System/LinuxSystem"),
        .systemLibrary(
            name: "CGio",
            path: "Sources/CModules/CGio",
            pkgConfig: "gio-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),
        // The person's language and clock: gettext catalogs, GNOME's clock format, the locale.
        .target(
            name: "Localization",
            dependencies: ["AlarmModel", "CLinux", "CGio"],
            path: "Sources/Shared/Localization"
        ),
        .systemLibrary(
            name: "CALSA",
            path: "Sources/CModules/CALSA",
            // Not linked: ALSALibrary loads alsa-lib while a sound device or the mixer is in use
            // (dlopen), so an idle agent keeps none of it resident. Only its header is used at
            // build time.
            providers: [.apt(["libasound2-dev"])]
        ),
        .systemLibrary(
            name: "CSndFile",
            path: "Sources/CModules/CSndFile",
            // Not linked: SoundFile loads libsndfile while it decodes (dlopen), so an idle agent
            // keeps none of its codecs resident. Only its header is used at build time.
            providers: [.apt(["libsndfile1-dev"])]
        ),
        .target(
            name: "DBus",
            dependencies: ["CDBus", "LinuxSystem"],
            path: "Sources/System/DBus"
        ),
        .target(
            name: "AlarmProtocol",
            dependencies: ["AlarmModel", "AlarmRecords", "DBus", "LinuxSystem"],
            path: "Sources/Shared/AlarmProtocol"
        ),
        .target(
            name: "AlarmKit",
            dependencies: ["AlarmModel", "AlarmProtocol", "AlarmRecords", "DBus"],
            path: "Sources/AppLibrary/AlarmKit",
            // Its imports are internal unless marked: no DBus or wire type can appear in its public interface.
            swiftSettings: [.enableUpcomingFeature("InternalImportsByDefault")]
        ),
        .target(
            name: "CommandLineText",
            dependencies: ["AlarmModel", "AlarmRecords", "Localization"],
            path: "Sources/Command/CommandLineText"
        ),
        .systemLibrary(
            name: "CLibNotify",
            path: "Sources/CModules/CLibNotify",
            pkgConfig: "libnotify",
            providers: [.apt(["libnotify-dev"])]
        ),
        .executableTarget(
            name: "reveille-notify-probe",
            dependencies: ["AlarmDesktop", "AlarmModel", "AlarmRecords"],
            path: "Sources/TestOnly/reveille-notify-probe"
        ),
        .target(
            name: "AlarmDesktop",
            dependencies: [
                "AgentRuntime", "AlarmModel", "AlarmPresentation", "AlarmRecords", "CALSA", "CSndFile", "DBus", "CLibNotify",
                "Localization", "LinuxSystem",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Agent/AlarmDesktop"
        ),
        .target(
            name: "AlarmAgent",
            dependencies: [
                "AgentRuntime", "AlarmModel", "AlarmPresentation", "AlarmRecords", "AlarmCore", "AlarmProtocol", "AlarmDesktop", "DBus",
                "Localization", "LinuxSystem",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Agent/AlarmAgent"
        ),
        // - ReveilledCLI: the agent's command line, `reveilled`'s options and its run; ReveilleCLI: the
        //   command's, `reveille`'s subcommands. Each is a library so that one installed program
        //   can be both.
        .target(
            name: "ReveilledCLI",
            dependencies: [
                "AgentRuntime", "AlarmAgent", "AlarmModel", "AlarmCore", "AlarmDesktop", "AlarmProtocol", "LinuxSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Agent/ReveilledCLI"
        ),
        .target(
            name: "ReveilleCLI",
            dependencies: [
                "AlarmKit", "AlarmRecords", "AlarmProtocol", "CommandLineText", "Localization", "LinuxSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Command/ReveilleCLI"
        ),
        // The agent and the command as programs of their own, for development and the tests (the
        // search providers' own, reveille-search, is below).
        .executableTarget(name: "reveilled", dependencies: ["ReveilledCLI"], path: "Sources/Agent/reveilled"),
        .executableTarget(name: "reveille", dependencies: ["ReveilleCLI"], path: "Sources/Command/reveille"),
        // The desktop's search providers (GNOME Shell's SearchProvider2, Plasma's krunner1): the
        // command's grammar, the agent through AlarmKit's client, and the bus to be found on. A
        // library, as the command lines above are, so that the installed program can be it too.
        .target(
            name: "SearchProviders",
            dependencies: [
                "AlarmKit", "AlarmModel", "AlarmRecords", "AlarmProtocol", "CommandLineText", "DBus", "Localization", "LinuxSystem",
            ],
            path: "Sources/Command/SearchProviders"
        ),
        .executableTarget(name: "reveille-search", dependencies: ["SearchProviders"], path: "Sources/Command/reveille-search"),
        // What the package installs: one program that is the agent when started as `reveilled`, the
        // search providers as `reveille-search`, and the command otherwise (scripts/install installs
        // it as /usr/bin/reveille and, hard links, /usr/bin/reveilled and /usr/bin/reveille-search),
        // so that the Swift runtime and Foundation Essentials are installed once.
        .executableTarget(
            name: "reveille-multicall",
            dependencies: ["LinuxSystem", "ReveilleCLI", "ReveilledCLI", "SearchProviders"],
            path: "Sources/Installed/reveille-multicall"
        ),
        .target(
            name: "TestSupport",
            dependencies: ["AlarmModel", "AlarmPresentation", "AlarmCore", "LinuxSystem"],
            path: "Sources/TestOnly/TestSupport",
            // The GNOME Shell test extension and the gjs scripts GNOMEShellServer runs.
            exclude: ["GNOMEShell"]
        ),
        .target(
            name: "StressTesting",
            dependencies: ["AlarmKit", "AlarmProtocol", "AlarmRecords", "CommandLineText", "DBus", "TestSupport"],
            path: "Sources/TestOnly/StressTesting"
        ),
        .executableTarget(
            name: "reveille-example",
            dependencies: ["AlarmKit"],
            path: "Examples/AlarmKitExample"
        ),
        .executableTarget(
            name: "reveille-bench",
            dependencies: [
                "AgentRuntime", "AlarmModel", "AlarmRecords", "AlarmCore", "AlarmKit", "AlarmProtocol", "CommandLineText", "DBus",
                "StressTesting", "TestSupport",
            ],
            path: "Benchmarks/reveille-bench"
        ),
        // Test traits the test targets share: `.requires(…)`, which fails a test where what it needs is
        // missing, instead of skipping it.
        .target(name: "TestRequirements", dependencies: ["AgentRuntime", "AlarmModel"], path: "Tests/TestRequirements"),
        .testTarget(name: "LinuxSystemTests", dependencies: ["LinuxSystem"]),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "TestSupport", "TestRequirements"]),
        .testTarget(name: "SandboxTests", dependencies: ["TestSupport", "TestRequirements"]),
        .testTarget(
            name: "SoundTests",
            dependencies: ["AgentRuntime", "AlarmDesktop", "AlarmModel", "AlarmRecords", "AlarmCore", "TestSupport", "TestRequirements"],
            // One tone in every format the README claims, made by real encoders (Formats/README.md).
            exclude: ["Formats"]),
        .testTarget(
            name: "LocalizationTests",
            dependencies: ["Localization", "AlarmDesktop", "AlarmModel", "AlarmCore", "TestSupport", "TestRequirements"]),
        .testTarget(
            name: "NotificationTests",
            dependencies: [
                "AlarmDesktop", "AlarmModel", "AlarmRecords", "AlarmCore", "CLibNotify", "TestSupport", "DBus", "TestRequirements",
            ]),
        .testTarget(
            name: "AlarmModelTests",
            dependencies: [
                "AlarmModel",
                "TestSupport",
                "TestRequirements",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "CommandLineTextTests",
            dependencies: [
                "CommandLineText",
                "AlarmModel", "AlarmRecords",
                "TestSupport",
                "TestRequirements",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "AlarmProtocolTests",
            dependencies: ["AlarmProtocol", "AlarmModel", "AlarmRecords", "AlarmCore", "DBus", "TestSupport", "TestRequirements"]
        ),
        .testTarget(
            name: "AlarmCoreTests",
            dependencies: [
                "AlarmCore",
                "AgentRuntime", "AlarmModel", "AlarmPresentation", "AlarmRecords", "LinuxSystem",
                "CommandLineText",
                "TestSupport",
                "TestRequirements",
            ],
            // Databases made by earlier schema versions, read by FrozenStoreTests, and how they were made.
            exclude: ["FrozenStores"]
        ),
        .testTarget(
            name: "AgentTests",
            dependencies: [
                "AlarmKit", "AgentRuntime", "AlarmAgent", "AlarmModel", "AlarmRecords", "AlarmCore", "AlarmProtocol", "AlarmDesktop",
                // The agent's presenter's tests play the desktop presenter's part of the contract.
                "AlarmPresentation",
                "CommandLineText",
                "DBus", "StressTesting", "TestSupport", "TestRequirements",
                // The wake-ahead's unit tests make the agent's parts, which take a Logger.
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Scripts", "FrozenInterfaces"]
        ),
        // The real GNOME Shell with the real agent: a target of its own, so that scripts/test-userland
        // (whose Debian 13 root has no gnome-shell) leaves it out while the host suite runs it.
        .testTarget(
            name: "GNOMEShellTests", dependencies: ["AlarmModel", "AlarmCore", "CommandLineText", "TestSupport", "TestRequirements"],
            exclude: ["Scripts"]),
        .testTarget(
            name: "AlarmKitTests",
            dependencies: [
                "AlarmKit", "AlarmModel", "AlarmRecords", "AlarmCore", "AlarmProtocol", "DBus", "TestSupport", "TestRequirements",
            ]
        ),
        // The seed code itself imports AlarmKit only; the tests judge what it builds with the engine's state machine.
        // Built with warnings as errors: code written as the references write it must compile without a
        // warning (a test target is never part of a product, so its unsafe flag never reaches an app).
        .testTarget(
            name: "AlarmKitSourceTests", dependencies: ["AlarmKit", "AlarmRecords", "AlarmCore"],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]),
    ],
    swiftLanguageModes: [.v6]
)

// No build flags here: they would reach every app that builds the AlarmKit library (a release app
// linking Foundation dynamically then fails: "cannot find -l_FoundationCShims"), and unsafe flags
// keep a package from being a versioned dependency at all. Reveille's own installed programs are
// linked statically by the build command: `swift build -c release $(scripts/release-flags)`.
