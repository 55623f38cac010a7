import Foundation
import Glibc
import Synchronization

/// The real GNOME Shell (43 on Debian 12) as a `DesktopSandbox`'s notification server: headless
/// (`--headless --wayland --no-x11`, one virtual 1280×800 monitor), on the sandbox's session bus and
/// a private system bus of its own, so that tests see what a person on GNOME sees.
///
/// Make the sandbox with `GNOMEShellServer.sandbox()` (its bus can start the services the shell
/// needs: dconf, `org.gnome.Shell.Notifications`, the calendar server and `org.gnome.ScreenSaver`),
/// install what the shell should find at start (desktop entries, icons), then start the shell:
///
/// ```swift
/// let sandbox = try GNOMEShellServer.sandbox()
/// defer { sandbox.stop() }
/// let shell = try GNOMEShellServer(in: sandbox)
/// let banner = try await shell.waitForBanner(titled: "Wake up")
/// ```
///
/// A test-only extension (`GNOMEShell/reveille-test@reveille.github.io`) turns on the shell's
/// unsafe mode, so `eval(_:)` (`org.gnome.Shell.Eval`) and `screenshot(to:)`
/// (`org.gnome.Shell.Screenshot`) answer; at start it closes the overview and dismisses the
/// start-up notices, then says the shell is ready. A stand-in for GDM on the private system bus
/// (`GNOMEShell/display-manager.js`) gives the shell its lock screen. Nothing of the machine's own
/// session, settings or ALSA configuration is used or changed.
package final class GNOMEShellServer: Sendable {
    /// The programs it needs: `gnome-shell` and `gjs` (Debian's `gnome-shell`, `gjs`), `gsettings`.
    package static let programs = ["gnome-shell", "gjs", "gsettings"]
    /// gnome-settings-daemon's media-keys plugin, which a GNOME session runs beside the shell
    /// (Debian's `gnome-settings-daemon`).
    package static let mediaKeysProgram = "/usr/libexec/gsd-media-keys"
    /// The D-Bus services the shell starts on the session bus, from `/usr/share/dbus-1/services`.
    static let services = [
        "ca.desrt.dconf", "org.gnome.Shell.Notifications", "org.gnome.Shell.CalendarServer", "org.gnome.ScreenSaver",
    ]
    /// The test extension's id.
    package static let extensionID = "reveille-test@reveille.github.io"
    /// The bus name the extension takes once the shell is ready.
    static let readyName = "io.github.reveille.ShellTestReady"
    /// The virtual monitor's size.
    package static let screenSize = (width: 1280, height: 800)
    /// The folder holding the extension and the scripts the server runs with `gjs`.
    static let filesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("GNOMEShell")

    /// Why the shell cannot run here, or `nil`. Tests should fail with it, not skip: GNOME is a
    /// desktop Reveille supports, and `scripts/install-deps --tests` installs it.
    package static func availability() -> String? {
        var missing = programs.filter { Executables.find($0) == nil }
        missing += [mediaKeysProgram, GNOMESessionServer.program].filter { !FileManager.default.isExecutableFile(atPath: $0) }
        missing += services.map { "/usr/share/dbus-1/services/\($0).service" }.filter { !FileManager.default.fileExists(atPath: $0) }
        return missing.isEmpty ? nil : SandboxError.missing(missing).description
    }

    /// Why the shell has no lock screen here, or `nil`: besides GDM (the stand-in answers for it),
    /// GNOME Shell 43 wants systemd's seat folder, `/run/systemd/seats`, which a machine booted
    /// without systemd (a container) lacks (`js/misc/loginManager.js`, `haveSystemd()`).
    package static var lockScreenUnavailable: String? {
        FileManager.default.fileExists(atPath: "/run/systemd/seats")
            ? nil : "GNOME Shell offers no lock screen without /run/systemd/seats (a machine booted with systemd has it)"
    }

    /// The sandbox the shell runs in.
    package let sandbox: DesktopSandbox
    /// The shell's process.
    package let process: SandboxProcess
    /// The private system bus (`DBUS_SYSTEM_BUS_ADDRESS` of the shell and of the services it starts).
    package let systemBus: PrivateBus
    /// The stand-in for GDM.
    let displayManager: SandboxProcess
    /// Where `screenshot(named:)` saves: the sandbox's `logs/screenshots` (gone with the sandbox).
    package let screenshotsDirectory: URL

    // MARK: Starting

    /// A desktop sandbox whose bus can start the services GNOME Shell needs, without dunst; its
    /// ALSA capture paced at `pacedBytesPerSecond` when given (for an agent that rings aloud).
    /// Throws `SandboxError.missing` when the shell is not installed. `serviceDirectories` are
    /// more D-Bus activation folders (a search provider's).
    package static func sandbox(pacedBytesPerSecond: Int? = nil, serviceDirectories: [URL] = []) throws -> DesktopSandbox {
        if let missing = availability() { throw SandboxError.failed("GNOME Shell cannot run: \(missing)") }
        return try DesktopSandbox(
            startsNotificationServer: false, serviceDirectories: [try serviceDirectory()] + serviceDirectories,
            pacedBytesPerSecond: pacedBytesPerSecond)
    }

    /// A folder holding copies of the shell's service files only (the system's folder also has
    /// notification servers that would race the shell), made once per test process.
    static func serviceDirectory() throws -> URL {
        try serviceFolder.withLock { folder in
            if let folder { return folder }
            let made = Fixtures.temporaryDirectory("reveille-gnome-services")
            for service in services {
                try FileManager.default.copyItem(
                    at: URL(fileURLWithPath: "/usr/share/dbus-1/services/\(service).service"),
                    to: made.appendingPathComponent("\(service).service"))
            }
            folder = made
            return made
        }
    }

    private static let serviceFolder = Mutex<URL?>(nil)

    /// Starts GNOME Shell in `sandbox` (made by `sandbox()`) and returns once it is ready: it owns
    /// `org.freedesktop.Notifications`, its overview is closed and its start-up notices are gone.
    /// `environment` is added to the shell's (`XDG_DATA_DIRS` with a search provider's folder, say).
    package init(in sandbox: DesktopSandbox, environment: [String: String] = [:], timeout: Duration = .seconds(60)) throws {
        self.sandbox = sandbox
        screenshotsDirectory = sandbox.logsDirectory.appendingPathComponent("screenshots")
        try FileManager.default.createDirectory(at: screenshotsDirectory, withIntermediateDirectories: true)
        try Self.installExtension(in: sandbox)

        let systemBus = try PrivateBus(environment: sandbox.environment)
        self.systemBus = systemBus
        let system = ["DBUS_SYSTEM_BUS_ADDRESS": systemBus.address]
        var started: [SandboxProcess] = []
        do {
            let displayManager = try sandbox.spawn(
                "gjs", [Self.filesFolder.appendingPathComponent("display-manager.js").path], environment: system)
            started.append(displayManager)
            self.displayManager = displayManager
            try Self.waitForName("org.gnome.DisplayManager", on: systemBus.address, of: displayManager, timeout: timeout)

            // The services the bus starts (org.gnome.Shell.Notifications, org.gnome.ScreenSaver) use
            // the private system bus too.
            let session = try BusConnection(address: sandbox.busAddress)
            defer { session.close() }
            _ = try session.callBus(
                "UpdateActivationEnvironment",
                [.array(elementSignature: "{ss}", [.dictEntry(key: .string("DBUS_SYSTEM_BUS_ADDRESS"), value: .string(systemBus.address))])]
            )

            // Left behind when a shell dies during start-up: the next one would load no extension.
            try? FileManager.default.removeItem(at: sandbox.runtimeDirectory.appendingPathComponent("gnome-shell-disable-extensions"))
            let process = try sandbox.spawn(
                "gnome-shell",
                ["--headless", "--wayland", "--no-x11", "--virtual-monitor", "\(Self.screenSize.width)x\(Self.screenSize.height)"],
                environment: system.merging(["XDG_SESSION_TYPE": "wayland", "XDG_CURRENT_DESKTOP": "GNOME"]) { $1 }
                    .merging(environment) { $1 },
                unsetting: ["DISPLAY"])
            started.append(process)
            self.process = process
            try Self.waitForName(Self.readyName, on: sandbox.busAddress, of: process, timeout: timeout)
            // GNOME Shell 43 serves org.freedesktop.Notifications through the service it starts,
            // org.gnome.Shell.Notifications (gjs), which hands every call to the shell.
            let ownerPID = try sandbox.busNameOwnerPID("org.freedesktop.Notifications")
            let servicePID = try sandbox.busNameOwnerPID("org.gnome.Shell.Notifications")
            guard let ownerPID, ownerPID == process.pid || ownerPID == servicePID else {
                throw SandboxError.failed(
                    "org.freedesktop.Notifications is owned by process \(ownerPID.map(String.init) ?? "none"), "
                        + "neither gnome-shell (\(process.pid)) nor its org.gnome.Shell.Notifications (\(servicePID.map(String.init) ?? "none"))"
                )
            }
        } catch {
            for process in started { process.stop() }
            systemBus.stop()
            throw error
        }
    }

    /// Puts the test extension into the sandbox's `XDG_DATA_HOME/gnome-shell/extensions` and enables it.
    private static func installExtension(in sandbox: DesktopSandbox) throws {
        let manager = FileManager.default
        let extensions = sandbox.dataHome.appendingPathComponent("gnome-shell/extensions")
        try manager.createDirectory(at: extensions, withIntermediateDirectories: true)
        let target = extensions.appendingPathComponent(extensionID)
        try? manager.removeItem(at: target)
        try manager.copyItem(at: filesFolder.appendingPathComponent(extensionID), to: target)
        try sandbox.run("gsettings", ["set", "org.gnome.shell", "enabled-extensions", "['\(extensionID)']"])
    }

    /// Waits (on `NameOwnerChanged`) until `name` is owned on the bus at `address`, failing at once
    /// when `process` ends first.
    private static func waitForName(_ name: String, on address: String, of process: SandboxProcess, timeout: Duration) throws {
        let bus = try BusConnection(address: address)
        defer { bus.close() }
        try bus.waitForName(name, owned: true, timeout: timeout) {
            if let status = process.exitStatus {
                throw SandboxError.failed("\(process) ended (\(status)) before \(name) appeared\n\(process.outputs())")
            }
        }
    }

    // MARK: The shell's D-Bus interfaces

    /// Runs JavaScript in the shell (`org.gnome.Shell.Eval`) and returns its value as the shell
    /// gives it: JSON text (`"null"` for `undefined` or `null`). Throws the shell's error message
    /// when the code throws.
    @discardableResult
    package func eval(_ code: String) throws -> String {
        let connection = try BusConnection(address: sandbox.busAddress)
        defer { connection.close() }
        let reply = try connection.call("org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell", "Eval", [.string(code)])
        guard reply.count == 2, case .boolean(let success) = reply[0], let result = reply[1].string else {
            throw SandboxError.failed("org.gnome.Shell.Eval answered \(reply)")
        }
        guard success else { throw SandboxError.failed("the shell could not run \(code.debugDescription): \(result)") }
        return result
    }

    /// Runs `code` in the shell and decodes its JSON value as `T`.
    package func eval<T: Decodable>(_ code: String, as type: T.Type) throws -> T {
        try eval(text: try eval(code), code: code)
    }

    /// Runs `code` in the shell until its value is not `null` (nor `undefined`), and decodes it as
    /// `T`. For what the shell announces no signal of (a banner shown, the lock screen lit);
    /// checks every 50 ms, up to `timeout`, then fails with `what` and the value of `detail` (code
    /// describing what the shell shows instead).
    package func waitForEval<T: Decodable & Sendable>(
        _ what: String, _ code: String, as type: T.Type = T.self, timeout: Duration = .seconds(30), detail: String? = nil
    ) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            let text = try await offPool { [self] in try eval(code) }
            if text != "null" { return try eval(text: text, code: code) }
            guard ContinuousClock.now < deadline else {
                let shown = detail.map { code in (try? eval(code)).map { "; the shell shows \($0)" } ?? "" } ?? ""
                throw SandboxError.timeout("waited \(timeout) for \(what)\(shown)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Decodes the shell's answer `text` to `code` as `T`.
    private func eval<T: Decodable>(text: String, code: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch {
            throw SandboxError.failed("the shell answered \(text.debugDescription) to \(code.debugDescription): \(error)")
        }
    }

    /// Saves what the screen shows, as the shell draws it (`org.gnome.Shell.Screenshot.Screenshot`,
    /// no pointer, no flash), as a PNG at `url`.
    package func screenshot(to url: URL) throws {
        let connection = try BusConnection(address: sandbox.busAddress)
        defer { connection.close() }
        let reply = try connection.call(
            "org.gnome.Shell.Screenshot", "/org/gnome/Shell/Screenshot", "org.gnome.Shell.Screenshot", "Screenshot",
            [.boolean(false), .boolean(false), .string(url.path)])
        guard reply.count == 2, case .boolean(true) = reply[0] else {
            throw SandboxError.failed("org.gnome.Shell.Screenshot.Screenshot answered \(reply)")
        }
    }

    /// Saves a screenshot as `name.png` in `screenshotsDirectory` and returns its URL.
    @discardableResult
    package func screenshot(named name: String) async throws -> URL {
        let url = screenshotsDirectory.appendingPathComponent("\(name).png")
        try await offPool { [self] in try screenshot(to: url) }
        return url
    }

    // MARK: Stopping

    /// Ends the shell, the GDM stand-in and the system bus (the sandbox ends the services the shell
    /// started). Safe to call more than once.
    package func stop() {
        process.stop()
        displayManager.stop()
        systemBus.stop()
    }

    deinit { stop() }
}
