import Foundation
import Glibc
import LinuxSystem
import Synchronization

/// A private, headless Linux desktop for tests, made of the real programs: a private D-Bus session
/// bus, an X server (Xvfb), dunst as the notification server, and ALSA's `default` device captured
/// to a file. Nothing of the machine's own session is used or touched.
///
/// It starts in about half a second and `stop()` (or `deinit`) ends every process it started, and
/// any process that carries its environment or uses its folder, then removes the folder.
///
/// ```swift
/// @Test(.enabled(if: DesktopSandbox.isAvailable))
/// func rings() async throws {
///     let sandbox = try DesktopSandbox()
///     defer { sandbox.stop() }
///     let monitor = try sandbox.monitorNotifyCalls()
///     let agent = try sandbox.spawn("reveilled", [])
///     …
/// }
/// ```
package final class DesktopSandbox: Sendable {
    /// The environment variable that marks every process started in a sandbox; its value is the
    /// sandbox's folder.
    package static let markerVariable = "REVEILLE_SANDBOX"

    /// The sandbox's folder; removed by `stop()`.
    package let root: URL
    /// `HOME`.
    package let home: URL
    /// `XDG_CONFIG_HOME`.
    package let configHome: URL
    /// `XDG_DATA_HOME`.
    package let dataHome: URL
    /// `XDG_STATE_HOME`.
    package let stateHome: URL
    /// `XDG_CACHE_HOME`.
    package let cacheHome: URL
    /// `XDG_RUNTIME_DIR` (mode 0700).
    package let runtimeDirectory: URL
    /// Where the standard output and error of every program the sandbox starts are kept.
    package let logsDirectory: URL

    /// The private session bus.
    package let bus: PrivateBus
    /// The X display, such as `:3`.
    package let display: String
    /// The X server's (Xvfb's) process id.
    package var displayServerPID: pid_t { xvfb.process.pid }
    /// ALSA's `default` device, captured to a file.
    package let alsa: AlsaCapture
    /// The complete environment for a program run in the sandbox: its `HOME`, `XDG_*` folders,
    /// `DBUS_SESSION_BUS_ADDRESS`, `DISPLAY`, `ALSA_CONFIG_PATH`, `PATH`, the locale, and the
    /// sandbox marker. Nothing else of this process's environment is passed on, so a stray
    /// `DBUS_SESSION_BUS_ADDRESS`, `DISPLAY` or `WAYLAND_DISPLAY` never leaks in.
    package let environment: [String: String]
    let xvfb: XvfbDisplay
    let dunstFiles: DunstServer.Files
    let pickLock = Mutex(())
    private let state: Mutex<State>
    /// Entered at the start; left once `stop()`'s teardown has ended everything.
    private let stopping: DispatchGroup = {
        let group = DispatchGroup()
        group.enter()
        return group
    }()

    private struct State {
        var dunst: DunstServer?
        var startedPIDs: [pid_t] = []
        var children: [SandboxProcess] = []
        var monitors: [NotifyMonitor] = []
        var stopped = false
    }

    /// How long the sandbox waits for each of its parts to come up or go away.
    static let partTimeout: Duration = .seconds(30)

    // MARK: Starting

    /// Starts a sandbox.
    ///
    /// - Parameters:
    ///   - startsNotificationServer: whether dunst runs from the start (`startNotificationServer()`
    ///     starts it later).
    ///   - serviceDirectories: D-Bus activation folders for the bus (none by default: Debian's own
    ///     `org.freedesktop.Notifications` services race each other).
    ///   - pacedBytesPerSecond: when given, ALSA capture grows at this rate (real time), through `pv`.
    ///   - dunstConfiguration: text appended to the sandbox's dunstrc (rules, urgency sections).
    ///   - dunstNotificationLimit: how many bubbles dunst draws at once (0: all of them).
    package init(
        startsNotificationServer: Bool = true, serviceDirectories: [URL] = [], pacedBytesPerSecond: Int? = nil,
        dunstConfiguration: String = "", dunstNotificationLimit: Int = 0
    ) throws {
        var needed = Self.corePrograms
        if startsNotificationServer { needed += Self.notificationPrograms }
        if pacedBytesPerSecond != nil { needed += ["pv"] }
        let missing = needed.filter { Executables.find($0) == nil }
        guard missing.isEmpty else { throw SandboxError.missing(missing) }
        SandboxSlots.take()
        let started = ContinuousClock.now

        let root = Fixtures.temporaryDirectory("reveille-desktop")
        let home = root.appendingPathComponent("home")
        let folders = (
            config: home.appendingPathComponent(".config"), data: home.appendingPathComponent(".local/share"),
            state: home.appendingPathComponent(".local/state"), cache: home.appendingPathComponent(".cache"),
            runtime: root.appendingPathComponent("runtime"), logs: root.appendingPathComponent("logs")
        )
        var startedXvfb: XvfbDisplay?
        var startedBus: PrivateBus?
        do {
            let manager = FileManager.default
            for folder in [folders.config, folders.data, folders.state, folders.cache, folders.runtime, folders.logs] {
                try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            }
            try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folders.runtime.path)
            let alsa = try AlsaCapture(
                folder: root.appendingPathComponent("alsa"), pacedBytesPerSecond: pacedBytesPerSecond,
                pvPath: Executables.find("pv"))
            let dunstFiles = try DunstServer.Files(
                configHome: folders.config, folder: root.appendingPathComponent("dunst"), extra: dunstConfiguration,
                notificationLimit: dunstNotificationLimit)

            var environment = Self.baseEnvironment(from: ProcessInfo.processInfo.environment)
            environment["HOME"] = home.path
            environment["XDG_CONFIG_HOME"] = folders.config.path
            environment["XDG_DATA_HOME"] = folders.data.path
            environment["XDG_STATE_HOME"] = folders.state.path
            environment["XDG_CACHE_HOME"] = folders.cache.path
            environment["XDG_RUNTIME_DIR"] = folders.runtime.path
            environment["ALSA_CONFIG_PATH"] = alsa.configurationURL.path
            environment[Self.markerVariable] = root.path

            // Xvfb is the slowest part: the bus starts while it comes up.
            let xvfb = try XvfbDisplay(
                executable: Executables.find("Xvfb")!, environment: environment, outputFolder: folders.logs)
            startedXvfb = xvfb
            let bus = try PrivateBus(serviceDirectories: serviceDirectories, environment: environment)
            startedBus = bus
            let display = try xvfb.waitUntilReady(timeout: Self.partTimeout)
            environment["DISPLAY"] = display
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            if !serviceDirectories.isEmpty {
                // The bus started before the display was known: give it to the services it starts.
                let connection = try BusConnection(address: bus.address)
                defer { connection.close() }
                _ = try connection.callBus(
                    "UpdateActivationEnvironment",
                    [.array(elementSignature: "{ss}", [.dictEntry(key: .string("DISPLAY"), value: .string(display))])])
            }

            self.root = root
            self.home = home
            configHome = folders.config
            dataHome = folders.data
            stateHome = folders.state
            cacheHome = folders.cache
            runtimeDirectory = folders.runtime
            logsDirectory = folders.logs
            self.bus = bus
            self.display = display
            self.alsa = alsa
            self.environment = environment
            self.xvfb = xvfb
            self.dunstFiles = dunstFiles
            state = Mutex(State(startedPIDs: [bus.pid, xvfb.process.pid]))
        } catch {
            startedXvfb?.stop()
            startedBus?.stop()
            try? FileManager.default.removeItem(at: root)
            SandboxSlots.give()
            throw error
        }
        // From here on `stop()` cleans up after a failure.
        if startsNotificationServer {
            do { try startNotificationServer() } catch {
                stop()
                throw error
            }
        }
        startup.withLock { $0 = ContinuousClock.now - started }
    }

    private let startup = Mutex<Duration>(.zero)

    /// How long starting took, dunst included.
    package var startupDuration: Duration { startup.withLock { $0 } }

    // MARK: Running programs

    /// Starts `executable` (a name looked up on the sandbox's `PATH`, or a path) with `arguments`,
    /// in its own process group, with the sandbox's environment (plus `overrides`, less the
    /// variables named in `unsetting`, such as `TZ`), standard input from `/dev/null` and its output
    /// captured. `stop()` ends it and its whole group.
    package func spawn(
        _ executable: String, _ arguments: [String] = [], environment overrides: [String: String] = [:],
        unsetting: Set<String> = [], currentDirectory: URL? = nil
    ) throws -> SandboxProcess {
        try spawn(
            executable, byteArguments: arguments.map { Array($0.utf8) }, environment: overrides, unsetting: unsetting,
            currentDirectory: currentDirectory)
    }

    /// Starts a program as `spawn(_:_:environment:unsetting:currentDirectory:)` does, with
    /// arguments given as bytes: any but NUL, UTF-8 or not, as a command line may hold.
    package func spawn(
        _ executable: String, byteArguments arguments: [[UInt8]], environment overrides: [String: String] = [:],
        unsetting: Set<String> = [], currentDirectory: URL? = nil
    ) throws -> SandboxProcess {
        let path = try resolve(executable)
        let environment = self.environment.merging(overrides) { $1 }.filter { !unsetting.contains($0.key) }
        return try state.withLock { state in
            guard !state.stopped else { throw SandboxError.failed("the sandbox was stopped") }
            let process = try SandboxProcess(
                executable: path, byteArguments: arguments, environment: environment,
                outputFolder: logsDirectory, currentDirectory: currentDirectory)
            state.children.append(process)
            state.startedPIDs.append(process.pid)
            return process
        }
    }

    /// Runs a program to its end in the sandbox and returns its standard output; throws when it
    /// fails or runs longer than `timeout` (then it is killed).
    @discardableResult
    package func run(_ executable: String, _ arguments: [String] = [], timeout: Duration = .seconds(10)) throws -> String {
        let process = try SandboxProcess(
            executable: try resolve(executable), arguments: arguments, environment: environment,
            outputFolder: logsDirectory)
        defer {
            try? FileManager.default.removeItem(at: process.standardOutputURL)
            try? FileManager.default.removeItem(at: process.standardErrorURL)
        }
        let status: SandboxProcess.ExitStatus
        do {
            status = try process.waitForExit(timeout: timeout)
        } catch {
            process.stop(grace: .zero)
            throw error
        }
        if !process.groupMembers.isEmpty { process.kill() }
        guard status == .exited(0) else {
            throw SandboxError.failed(
                "\(executable) \(arguments.joined(separator: " ")) ended with \(status)\n\(process.outputs())")
        }
        return process.standardOutput
    }

    /// The path of `executable` on the sandbox's `PATH`.
    func resolve(_ executable: String) throws -> String {
        if executable.contains("/") {
            guard FileManager.default.isExecutableFile(atPath: executable) else { throw SandboxError.missing([executable]) }
            return executable
        }
        for folder in (environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(folder)/\(executable)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw SandboxError.missing([executable])
    }

    // MARK: The bus

    /// The private bus's address (`DBUS_SESSION_BUS_ADDRESS`).
    package var busAddress: String { bus.address }

    /// Starts recording the notification traffic on the bus (see `NotifyMonitor`); it is ready when
    /// this returns and stops with the sandbox. `promptStamps`, `alsoMatching`: see `NotifyMonitor.init`.
    package func monitorNotifyCalls(promptStamps: Bool = false, alsoMatching: [String] = []) throws -> NotifyMonitor {
        let monitor = try NotifyMonitor(address: bus.address, promptStamps: promptStamps, alsoMatching: alsoMatching)
        state.withLock { $0.monitors.append(monitor) }
        return monitor
    }

    /// The unique name of the connection owning `name` on the bus, or `nil`.
    package func busNameOwner(_ name: String) throws -> String? {
        let connection = try BusConnection(address: bus.address)
        defer { connection.close() }
        return try connection.owner(of: name)
    }

    /// The process id of the connection owning `name` on the bus, or `nil` when no one owns it.
    package func busNameOwnerPID(_ name: String) throws -> pid_t? {
        let connection = try BusConnection(address: bus.address)
        defer { connection.close() }
        return try connection.owner(of: name).map { try connection.processID(of: $0) }
    }

    /// Waits (on `NameOwnerChanged`) until `name` has an owner, and returns the owner's unique name.
    @discardableResult
    package func waitForBusName(_ name: String, timeout: Duration = .seconds(30)) throws -> String {
        let connection = try BusConnection(address: bus.address)
        defer { connection.close() }
        return try connection.waitForName(name, owned: true, timeout: timeout)
    }

    /// Waits (on `NameOwnerChanged`) until no one owns `name`.
    package func waitForBusNameReleased(_ name: String, timeout: Duration = .seconds(30)) throws {
        let connection = try BusConnection(address: bus.address)
        defer { connection.close() }
        try connection.waitForName(name, owned: false, timeout: timeout)
    }

    // MARK: The notification server

    /// How to stop the notification server.
    package enum Termination: Sendable {
        /// SIGTERM: dunst shuts down cleanly.
        case terminate
        /// SIGKILL: dunst vanishes at once, as in a crash.
        case kill
    }

    /// dunst's process id while it runs.
    package var notificationServerPID: pid_t? {
        state.withLock { $0.dunst?.process.pid }
    }

    /// Starts dunst (if it is not running) and waits until it owns `org.freedesktop.Notifications`.
    package func startNotificationServer() throws {
        let missing = Self.notificationPrograms.filter { Executables.find($0) == nil }
        guard missing.isEmpty else { throw SandboxError.missing(missing) }
        try state.withLock { state in
            guard !state.stopped else { throw SandboxError.failed("the sandbox was stopped") }
            if let dunst = state.dunst, dunst.process.isRunning { return }
            let dunst = try DunstServer(
                executable: Executables.find("dunst")!, files: dunstFiles, environment: environment,
                outputFolder: logsDirectory, busAddress: bus.address, timeout: Self.partTimeout)
            state.dunst = dunst
            state.startedPIDs.append(dunst.process.pid)
        }
    }

    /// Stops dunst (and any menu script it runs) and waits until the bus has released
    /// `org.freedesktop.Notifications`. Does nothing when it is not running.
    package func stopNotificationServer(_ termination: Termination = .terminate) throws {
        let dunst = state.withLock { state -> DunstServer? in
            defer { state.dunst = nil }
            return state.dunst
        }
        guard let dunst else { return }
        try dunst.stop(
            signal: termination == .kill ? SIGKILL : SIGTERM, busAddress: bus.address, timeout: Self.partTimeout)
    }

    // MARK: Sound

    /// The file the first ALSA stream is captured to (see `AlsaCapture`).
    package var captureURL: URL { alsa.captureURL }

    /// How many bytes were played to ALSA's `default` device so far, over all streams.
    package var capturedByteCount: Int { alsa.capturedByteCount }

    /// Everything played to ALSA's `default` device, as little-endian 16-bit samples.
    package func capturedSamples() -> [Int16] { alsa.capturedSamples() }

    // MARK: Stopping

    /// The ids of every process the sandbox started: the bus, Xvfb, each dunst, and each spawned program.
    package var processIDs: [pid_t] { state.withLock { $0.startedPIDs } }

    /// Live processes that belong to the sandbox although it did not start them directly: any whose
    /// environment carries the sandbox marker, or whose command line, working folder or open files
    /// lie in the sandbox's folder (a `pv` that ALSA started for a player, a service the bus
    /// activated). Empty after `stop()`, unless something escaped it.
    package func leftoverProcesses() -> [pid_t] { Self.leftoverProcesses(in: root) }

    /// The live processes that belong to the sandbox whose folder is `root`.
    static func leftoverProcesses(in root: URL) -> [pid_t] {
        ProcessTable.processes(marker: markerVariable, value: root.path, folder: root.path)
    }

    /// Starts ending everything, on a thread of its own (see `Teardown`), and returns at once:
    /// an async test's `defer` never holds a cooperative thread while processes end. Safe to call
    /// more than once; `stopAndWait()` waits for the end.
    package func stop() {
        guard let parts = takeParts() else { return }
        Teardown.run { [stopping] in
            parts.end()
            stopping.leave()
        }
    }

    /// Ends everything and removes the folder, and returns once that is done (see `Parts.end()`).
    /// Blocks the calling thread: from an async context, call it through `offPool`.
    package func stopAndWait() {
        if let parts = takeParts() {
            parts.end()
            stopping.leave()
        }
        stopping.wait()
    }

    /// What `stop()` ends, taken once: `nil` when the sandbox is already stopping.
    private func takeParts() -> Parts? {
        state.withLock { state -> Parts? in
            guard !state.stopped else { return nil }
            state.stopped = true
            defer {
                state.children = []
                state.monitors = []
                state.dunst = nil
            }
            return Parts(
                processes: state.children + [state.dunst?.process].compactMap { $0 }, monitors: state.monitors,
                xvfb: xvfb, bus: bus, root: root)
        }
    }

    /// Everything a sandbox started, to end without the sandbox itself (as its `deinit` must).
    private struct Parts: Sendable {
        let processes: [SandboxProcess]
        let monitors: [NotifyMonitor]
        let xvfb: XvfbDisplay
        let bus: PrivateBus
        let root: URL

        /// SIGTERM to every spawned program's process group, dunst and Xvfb at once, SIGKILL to
        /// what is left after 2 s, then the bus; then any leftover process (see
        /// `leftoverProcesses()`) is killed, and the folder removed; the sandbox's place
        /// (`SandboxSlots`) is given back.
        func end() {
            for monitor in monitors { monitor.stop() }
            for process in processes + [xvfb.process] where process.isRunning { process.terminate() }
            for process in processes { process.stop() }
            xvfb.stop()
            bus.stop()
            let leftovers = DesktopSandbox.leftoverProcesses(in: root)
            for pid in leftovers { try? ProcessCalls.kill(pid, signal: SIGKILL) }
            ProcessTable.waitUntilGone(leftovers, timeout: .seconds(2))
            try? FileManager.default.removeItem(at: root)
            SandboxSlots.give()
        }
    }

    /// A sandbox dropped without `stop()` ends everything before it goes; one already stopping
    /// is left to its teardown.
    deinit {
        guard let parts = takeParts() else { return }
        parts.end()
    }
}
