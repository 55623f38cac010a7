import AlarmKit
import DBus
import Foundation
import Testing
import TestSupport

/// The pieces of other desktops the do-not-disturb tests run: the real GSettings stack (dconf's
/// service on the sandbox's bus, the `gsettings` command), xfconfd and xfce4-notifyd, and doubles
/// of the notification servers that cannot run here (`Scripts/notification_desktops.py`), which
/// speak those servers' real D-Bus interfaces on the real bus.
enum DesktopDoubles {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Scripts/notification_desktops.py").path

    /// Starts the double of `desktop`'s notification server (`gnome`, `cinnamon`, `mate`,
    /// `plasma`, `mako`, `swaync`, `budgie`) and returns once it owns its names.
    static func startServer(_ desktop: String, in sandbox: DesktopSandbox) async throws -> SandboxProcess {
        let server = try sandbox.spawn(Built.systemPython, [script, sandbox.busAddress, desktop])
        _ = try await server.waitForStandardOutput(containing: "ready", timeout: .seconds(30))
        return server
    }

    /// Starts dconf's service on the sandbox's bus: GSettings' dconf backend (the default) writes
    /// through it into the sandbox's `XDG_CONFIG_HOME/dconf/user`.
    static func startDconf(in sandbox: DesktopSandbox) async throws {
        _ = try sandbox.spawn("/usr/libexec/dconf-service")
        try await offPool { try sandbox.waitForBusName("ca.desrt.dconf") }
    }

    /// Whether dconf's service and the `gsettings` command are installed.
    static var gsettingsUnavailable: String? {
        for path in ["/usr/libexec/dconf-service", "/usr/bin/gsettings"] where !FileManager.default.isExecutableFile(atPath: path) {
            return "\(path) is missing (scripts/install-deps --tests installs dconf-service and libglib2.0-bin)"
        }
        return nil
    }

    /// Why a GSettings schema cannot be used here, or nil when it is installed.
    static func schemaMissing(_ schema: String) -> String? {
        FileManager.default.fileExists(atPath: "/usr/share/glib-2.0/schemas/\(schema).gschema.xml")
            ? nil : "the GSettings schema \(schema) is not installed (scripts/install-deps --tests installs it)"
    }

    /// `gsettings get SCHEMA KEY`, as a person reads it.
    static func get(_ schema: String, _ key: String, in sandbox: DesktopSandbox) async throws -> String {
        try await offPool { try sandbox.run("gsettings", ["get", schema, key]).trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// `gsettings set SCHEMA KEY VALUE`, as a person changes it.
    static func set(_ schema: String, _ key: String, _ value: String, in sandbox: DesktopSandbox) async throws {
        try await offPool { _ = try sandbox.run("gsettings", ["set", schema, key, value]) }
    }

    /// Waits until `gsettings get` shows `value`.
    static func waitFor(_ schema: String, _ key: String, _ value: String, in sandbox: DesktopSandbox) async throws {
        var last = ""
        try await waitUntil("\(schema) \(key) to be \(value)", every: .milliseconds(20), detail: { "it stayed \(last)" }) {
            () async throws -> Void? in
            last = try await get(schema, key, in: sandbox)
            return last == value ? () : nil
        }
    }

    /// Starts the agent in the sandbox (silent: the capture is not paced) and waits for its name.
    static func startAgent(in sandbox: DesktopSandbox, environment: [String: String] = [:]) async throws -> SandboxProcess {
        let agent = try sandbox.spawn(Built.path("reveilled"), ["--silent"], environment: environment)
        try await offPool { try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }
        return agent
    }

    /// Calls a method on the sandbox's bus, as a desktop's own tools do (`makoctl`, `swaync-client`).
    static func call(
        _ sandbox: DesktopSandbox, _ destination: String, _ path: String, _ interface: String, _ method: String,
        _ arguments: [DBusValue] = []
    ) async throws -> [DBusValue] {
        let address = sandbox.busAddress
        let connection = try await offPool { try DBusConnection.connect(address: address) }
        defer { connection.close() }
        return try await connection.call(destination: destination, path: path, interface: interface, method: method, arguments: arguments)
    }

    /// Waits until a double printed `notify 2 SUMMARY` (an alert, urgency critical).
    static func waitForAlert(_ summary: String, from server: SandboxProcess) async throws {
        _ = try await server.waitForStandardOutput(containing: "notify 2 \(summary)\n", timeout: .seconds(30))
    }
}
