import AlarmCore
import AlarmModel
import Foundation
import Testing
import TestSupport

/// The built programs, found beside the test executable.
enum Built {
    /// The folder `swift build` put the products in.
    static let folder: URL = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: exe).deletingLastPathComponent()
        while folder.lastPathComponent.hasSuffix(".xctest") { folder.deleteLastPathComponent() }
        return folder
    }()

    /// The path of a built program.
    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The repository (for `desktop/`).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Where the suite keeps its screenshots for a person to look at: `.build/screenshots/gnome-shell`.
    static let screenshots = repository.appendingPathComponent(".build/screenshots/gnome-shell")

    /// Why the suite cannot run here, or `nil`: the suite then fails with this (`.requires`; GNOME
    /// is a desktop Reveille supports, and `scripts/install-deps --tests` installs it).
    static var unavailable: String? {
        if let missing = DesktopSandbox.availability() { return missing }
        if let missing = GNOMEShellServer.availability() { return missing }
        for program in ["reveilled", "reveille", "reveille-search"] where !FileManager.default.isExecutableFile(atPath: path(program)) {
            return "\(path(program)) is not built"
        }
        return nil
    }
}

/// The result of running a program in the sandbox.
struct CommandResult: CustomStringConvertible {
    var status: SandboxProcess.ExitStatus
    var output: String
    var error: String

    var description: String { "\(status)\nstdout: \(output)\nstderr: \(error)" }
}

/// A GNOME desktop in a sandbox: Reveille installed as a person's `scripts/install` puts it (its
/// desktop entry and icon in `XDG_DATA_HOME`), the real GNOME Shell, and the real agent; on
/// request also GNOME's session manager and gnome-settings-daemon's media keys.
struct GNOMEDesktop: Sendable {
    let sandbox: DesktopSandbox
    let shell: GNOMEShellServer
    let agent: SandboxProcess
    /// GNOME's session manager, when started (`sessionManager`).
    let session: GNOMESessionServer?
    /// gnome-settings-daemon's media keys, when started (`mediaKeys`).
    let mediaKeys: SandboxProcess?

    /// Twice real time for 48 kHz stereo 16-bit sound: the pace of the capture when the agent rings aloud.
    static let pace = 2 * 48_000 * 4

    /// Starts it; `banners` is `org.gnome.desktop.notifications show-banners` as the person left it
    /// before logging in (false: do-not-disturb).
    /// `agentEnvironment` is added to the agent's (a person's language, say), and
    /// `agentArguments` to its command line. With `sound`, the agent rings aloud into the
    /// sandbox's paced ALSA capture (at full volume from the first frame), otherwise silently.
    /// `sessionManager` starts GNOME's session manager, `mediaKeys` gnome-settings-daemon's
    /// media-keys plugin, which grabs the media keys through the shell. `searchProvider` installs
    /// Reveille's search provider as the package does: its `.ini` in a data folder on the shell's
    /// `XDG_DATA_DIRS`, and `reveille-search` D-Bus activated by its service file.
    static func start(
        banners: Bool = true, agentEnvironment: [String: String] = [:], agentArguments: [String] = [], sound: Bool = false,
        sessionManager: Bool = false, mediaKeys: Bool = false, searchProvider: Bool = false
    ) async throws -> GNOMEDesktop {
        if let unavailable = Built.unavailable { throw TestEnvironmentError.failed("the GNOME Shell suite cannot run: \(unavailable)") }
        let search = searchProvider ? try installSearchProvider() : nil
        let sandbox = try await offPool {
            try GNOMEShellServer.sandbox(pacedBytesPerSecond: sound ? pace : nil, serviceDirectories: search.map { [$0.services] } ?? [])
        }
        do {
            try installReveille(in: sandbox)
            if !banners {
                try await offPool { _ = try sandbox.run("gsettings", ["set", "org.gnome.desktop.notifications", "show-banners", "false"]) }
            }
            let shellEnvironment = search.map { ["XDG_DATA_DIRS": "\($0.data.path):/usr/local/share:/usr/share"] } ?? [:]
            let shell = try await offPool { try GNOMEShellServer(in: sandbox, environment: shellEnvironment) }
            let session =
                sessionManager ? try await offPool { try GNOMESessionServer(in: sandbox, systemBus: shell.systemBus.address) } : nil
            let keys = mediaKeys ? try await startMediaKeys(in: sandbox, shell: shell) : nil
            let agent = try sandbox.spawn(
                Built.path("reveilled"), (sound ? ["--ramp", "0"] : ["--silent"]) + agentArguments, environment: agentEnvironment)
            try await offPool { try sandbox.waitForBusName("io.github.reveille.Alarms1", timeout: .seconds(30)) }
            return GNOMEDesktop(sandbox: sandbox, shell: shell, agent: agent, session: session, mediaKeys: keys)
        } catch {
            sandbox.stop()
            throw error
        }
    }

    /// Starts gnome-settings-daemon's media-keys plugin (`gsd-media-keys`) on the shell's display
    /// and buses, and returns once it serves `org.gnome.SettingsDaemon.MediaKeys`.
    static func startMediaKeys(in sandbox: DesktopSandbox, shell: GNOMEShellServer) async throws -> SandboxProcess {
        let keys = try sandbox.spawn(
            GNOMEShellServer.mediaKeysProgram, [],
            environment: [
                "DBUS_SYSTEM_BUS_ADDRESS": shell.systemBus.address, "WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland",
                "XDG_CURRENT_DESKTOP": "GNOME", "GDK_BACKEND": "wayland",
            ],
            unsetting: ["DISPLAY"])
        try await offPool { try sandbox.waitForBusName("org.gnome.SettingsDaemon.MediaKeys", timeout: .seconds(30)) }
        return keys
    }

    /// Puts Reveille's desktop entry and icon where the shell looks for them, as `scripts/install`
    /// does for a person (`~/.local/share/applications`, the hicolor theme under `~/.local/share/icons`).
    static func installReveille(in sandbox: DesktopSandbox) throws {
        let manager = FileManager.default
        let applications = sandbox.dataHome.appendingPathComponent("applications")
        let icons = sandbox.dataHome.appendingPathComponent("icons/hicolor/scalable/apps")
        try manager.createDirectory(at: applications, withIntermediateDirectories: true)
        try manager.createDirectory(at: icons, withIntermediateDirectories: true)
        let desktop = Built.repository.appendingPathComponent("desktop")
        let entry = try String(contentsOf: desktop.appendingPathComponent("io.github.reveille.Reveille.desktop.in"), encoding: .utf8)
            .replacingOccurrences(of: "@BINDIR@", with: Built.folder.path)
        try entry.write(to: applications.appendingPathComponent("io.github.reveille.Reveille.desktop"), atomically: true, encoding: .utf8)
        try manager.copyItem(
            at: desktop.appendingPathComponent("icons/io.github.reveille.Reveille.svg"),
            to: icons.appendingPathComponent("io.github.reveille.Reveille.svg"))
    }

    /// Reveille's search provider as `scripts/install` puts it, in folders of its own: `data`, for
    /// the shell's `XDG_DATA_DIRS` (`gnome-shell/search-providers/…ini`, the package's file), and
    /// `services`, the bus's activation folder (the package's service file, naming the built
    /// `reveille-search`).
    static func installSearchProvider() throws -> (data: URL, services: URL) {
        let manager = FileManager.default
        let data = Fixtures.temporaryDirectory("reveille-search-data")
        let services = Fixtures.temporaryDirectory("reveille-search-services")
        let providers = data.appendingPathComponent("gnome-shell/search-providers")
        try manager.createDirectory(at: providers, withIntermediateDirectories: true)
        let desktop = Built.repository.appendingPathComponent("desktop")
        try manager.copyItem(
            at: desktop.appendingPathComponent("io.github.reveille.Search.search-provider.ini"),
            to: providers.appendingPathComponent("io.github.reveille.Search.search-provider.ini"))
        let service = try String(contentsOf: desktop.appendingPathComponent("io.github.reveille.Search.service.in"), encoding: .utf8)
            .replacingOccurrences(of: "@BINDIR@", with: Built.folder.path)
        try service.write(to: services.appendingPathComponent("io.github.reveille.Search.service"), atomically: true, encoding: .utf8)
        return (data, services)
    }

    /// The icon file as installed into the sandbox.
    var installedIcon: String {
        sandbox.dataHome.appendingPathComponent("icons/hicolor/scalable/apps/io.github.reveille.Reveille.svg").path
    }

    /// Runs `reveille` with `arguments` in the sandbox, to its end.
    func reveille(_ arguments: String...) async throws -> CommandResult {
        let process = try sandbox.spawn(Built.path("reveille"), arguments)
        let status = try await process.waitForExit(timeout: .seconds(30))
        return CommandResult(status: status, output: process.standardOutput, error: process.standardError)
    }

    /// Adds a one-shot alarm at the whole second at least `seconds` from now, with `reveille add`
    /// (an instant: `2026-11-25T07:30:02+00:00`), and returns its id.
    func alarm(in seconds: Int, _ arguments: String...) async throws -> String {
        let instant = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + Double(seconds)).rounded(.up))
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return try await reveilleAdding(["add", formatter.string(from: instant)] + arguments)
    }

    /// Runs `reveille add` with `arguments` and returns the id it prints.
    private func reveilleAdding(_ arguments: [String]) async throws -> String {
        let process = try sandbox.spawn(Built.path("reveille"), arguments)
        let status = try await process.waitForExit(timeout: .seconds(30))
        guard status == .exited(0) else {
            throw TestEnvironmentError.failed("reveille \(arguments.joined(separator: " ")) failed: \(process.outputs())")
        }
        return process.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// Follows the alarms as `reveille watch --json` prints them (the agent's `AlarmsChanged`).
    func watch() throws -> AlarmWatch {
        AlarmWatch(process: try sandbox.spawn(Built.path("reveille"), ["watch", "--json"]))
    }

    /// `gsettings set org.gnome.desktop.notifications show-banners`, as the person's switch in the
    /// shell's calendar (Do Not Disturb) sets it.
    func setBanners(_ shown: Bool) async throws {
        try await offPool { [sandbox] in
            _ = try sandbox.run("gsettings", ["set", "org.gnome.desktop.notifications", "show-banners", shown ? "true" : "false"])
        }
    }

    /// `gsettings get org.gnome.desktop.notifications show-banners`.
    func banners() async throws -> Bool {
        try await offPool { [sandbox] in
            try sandbox.run("gsettings", ["get", "org.gnome.desktop.notifications", "show-banners"])
                .trimmingCharacters(in: .whitespacesAndNewlines) == "true"
        }
    }

    /// Takes a screenshot named `name`, also kept in `Built.screenshots/test` for a person to see.
    @discardableResult
    func screenshot(_ name: String, test: String) async throws -> URL {
        let url = try await shell.screenshot(named: name)
        let kept = Built.screenshots.appendingPathComponent(test)
        try FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
        let copy = kept.appendingPathComponent(url.lastPathComponent)
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: url, to: copy)
        return url
    }

    /// Stops the agent (it must end cleanly), the shell and the sandbox.
    func stop() {
        agent.terminate()
        if let status = try? agent.waitForExit(timeout: .seconds(10)), status != .exited(0) {
            Issue.record("the agent ended with \(status)\n\(agent.outputs())")
        }
        mediaKeys?.stop()
        session?.stop()
        shell.stop()
        sandbox.stop()
    }
}
