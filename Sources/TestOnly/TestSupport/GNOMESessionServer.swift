import Foundation

/// The real GNOME session manager (`gnome-session-binary` 43, Debian's `gnome-session-bin`) on a
/// `DesktopSandbox`'s session bus, with a session of no components: the service that holds a
/// GNOME session's inhibitors (`org.gnome.SessionManager.Inhibit`, `IsInhibited`,
/// `GetInhibitors`), which GNOME Shell and gnome-settings-daemon ask before they blank, lock or
/// suspend an idle session.
///
/// It runs with `--builtin` session management (no systemd user manager) and a private system bus
/// (it will not start without one: GNOME Shell's, or one of its own); it starts nothing, and owns
/// `org.gnome.SessionManager` until stopped.
package final class GNOMESessionServer: Sendable {
    /// The program.
    package static let program = "/usr/libexec/gnome-session-binary"
    /// Its bus name.
    package static let busName = "org.gnome.SessionManager"
    /// The session's name: a session file in the sandbox's `XDG_CONFIG_HOME/gnome-session/sessions`.
    static let sessionName = "reveille-test"

    /// Why it cannot run here, or `nil`.
    package static func availability() -> String? {
        FileManager.default.isExecutableFile(atPath: program)
            ? nil : "\(program) is not installed (scripts/install-deps installs gnome-session-bin)"
    }

    /// The session manager's process.
    package let process: SandboxProcess
    /// The private system bus it made for itself, if it did.
    let ownSystemBus: PrivateBus?

    /// Starts it in `sandbox`, on the private system bus at `systemBus` (one of its own when
    /// `nil`), and returns once it owns its name.
    package init(in sandbox: DesktopSandbox, systemBus: String? = nil, timeout: Duration = .seconds(30)) throws {
        if let missing = Self.availability() { throw SandboxError.failed(missing) }
        let sessions = sandbox.configHome.appendingPathComponent("gnome-session/sessions")
        try FileManager.default.createDirectory(at: sessions, withIntermediateDirectories: true)
        try "[GNOME Session]\nName=Reveille test\nRequiredComponents=\n".write(
            to: sessions.appendingPathComponent("\(Self.sessionName).session"), atomically: true, encoding: .utf8)
        let autostart = sandbox.home.appendingPathComponent("gnome-session-autostart")
        try FileManager.default.createDirectory(at: autostart, withIntermediateDirectories: true)
        ownSystemBus = systemBus == nil ? try PrivateBus(environment: sandbox.environment) : nil
        do {
            process = try sandbox.spawn(
                Self.program,
                ["--builtin", "--session=\(Self.sessionName)", "--disable-acceleration-check", "--autostart=\(autostart.path)"],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": systemBus ?? ownSystemBus?.address ?? "", "XDG_CURRENT_DESKTOP": "GNOME"],
                unsetting: ["DISPLAY", "WAYLAND_DISPLAY"])
        } catch {
            ownSystemBus?.stop()
            throw error
        }
        do {
            let bus = try BusConnection(address: sandbox.busAddress)
            defer { bus.close() }
            try bus.waitForName(Self.busName, owned: true, timeout: timeout) { [process] in
                if let status = process.exitStatus {
                    throw SandboxError.failed("\(process) ended (\(status)) before \(Self.busName) appeared\n\(process.outputs())")
                }
            }
        } catch {
            stop()
            throw error
        }
    }

    /// Ends the session manager (and the system bus it made). Safe to call more than once.
    package func stop() {
        process.stop()
        ownSystemBus?.stop()
    }

    deinit { stop() }
}

extension GNOMESessionServer {
    /// What the session manager holds.
    package struct Inhibitors: Sendable, Hashable, CustomStringConvertible {
        /// Whether the session may not go idle: `IsInhibited(8)`, the idle flag.
        package var idle: Bool
        /// Each inhibitor as "app id (reason) flags", from `GetInhibitors`.
        package var held: [String]

        /// Says it outright.
        package init(idle: Bool, held: [String]) {
            self.idle = idle
            self.held = held
        }

        package var description: String { "idle inhibited: \(idle), inhibitors: \(held)" }
    }

    /// Reads what the session manager holds, on the bus of `sandbox`.
    package func inhibitors(in sandbox: DesktopSandbox) async throws -> Inhibitors {
        try await offPool {
            let bus = try BusConnection(address: sandbox.busAddress)
            defer { bus.close() }
            let (name, path) = (Self.busName, "/org/gnome/SessionManager")
            let idle = try bus.call(name, path, name, "IsInhibited", [.uint32(8)]).first?.boolean ?? false
            var held: [String] = []
            for inhibitor in try bus.call(name, path, name, "GetInhibitors").first?.elements ?? [] {
                guard let inhibitorPath = inhibitor.string else { continue }
                func get(_ method: String) throws -> BusValue? {
                    try bus.call(name, inhibitorPath, "org.gnome.SessionManager.Inhibitor", method).first
                }
                // An inhibitor released between the list and its reading is no longer held: the
                // session manager answers UnknownMethod ("Object does not exist") for its object.
                guard let app = try? get("GetAppId"), let reason = try? get("GetReason"), let flags = try? get("GetFlags") else {
                    continue
                }
                held.append("\(app.string ?? "?") (\(reason.string ?? "?")) \(flags.integer ?? -1)")
            }
            return Inhibitors(idle: idle, held: held)
        }
    }

    /// Waits until the session manager holds `expected`.
    package func waitFor(_ expected: Inhibitors, in sandbox: DesktopSandbox, timeout: Duration = .seconds(30)) async throws {
        var seen = Inhibitors(idle: false, held: [])
        try await waitUntil(
            "the session manager to hold \(expected)", timeout: timeout, every: .milliseconds(50), detail: { "it holds \(seen)" }
        ) {
            seen = try await inhibitors(in: sandbox)
            return seen == expected ? () : nil
        }
    }
}
