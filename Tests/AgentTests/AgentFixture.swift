import AlarmKit
import CommandLineText
import DBus
import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The built programs, found beside the test executable.
enum Built {
    /// The folder `swift build` put the products in.
    static let folder: URL = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: exe).deletingLastPathComponent()
        // Inside an .xctest bundle folder, the products are one level up.
        while folder.lastPathComponent.hasSuffix(".xctest") || folder.lastPathComponent == "Contents" || folder.lastPathComponent == "MacOS"
        {
            folder.deleteLastPathComponent()
        }
        return folder
    }()

    /// The path of a built program.
    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// This test process's own executable: the app identity the agent sees for it.
    static let testExecutable: String = {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }()

    /// Debian's Python, which has the `dbus` module (python3-dbus): the second app of the tests.
    static let systemPython = "/usr/bin/python3"

    /// Why the agent tests cannot run here, or `nil`.
    static var unavailable: String? {
        if let missing = DesktopSandbox.availability() { return missing }
        if !FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbus/__init__.py") {
            return "python3-dbus is not installed (scripts/install-deps --tests installs it)"
        }
        for program in ["reveilled", "reveille"] where !FileManager.default.isExecutableFile(atPath: path(program)) {
            return "\(path(program)) is not built"
        }
        return nil
    }
}

/// The result of running the `reveille` command.
struct CommandResult: CustomStringConvertible {
    var status: SandboxProcess.ExitStatus
    var output: String
    var error: String

    var description: String { "\(status)\nstdout: \(output)\nstderr: \(error)" }

    /// Standard output without its final line break.
    var line: String { output.trimmingCharacters(in: .newlines) }
}

/// A desktop sandbox with the agent running in it.
struct AgentFixture: Sendable {
    let sandbox: DesktopSandbox
    let agent: SandboxProcess?

    /// Starts a sandbox and the agent (unless `startingAgent` is false), waiting until it owns its name.
    ///
    /// `pacedBytesPerSecond` paces the ALSA capture to that rate (see `AlsaCapture`): tests that
    /// let alerts ring must pace it, or a player fills the disk as fast as it can write; without
    /// pacing the agent runs `--silent`. `agentEnvironment` is added to the agent's environment,
    /// and the variables in `unsettingForAgent` (such as `TZ`) are taken out of it.
    /// `dunstNotificationLimit`: how many bubbles dunst draws at once (0: all). `agentProgram`
    /// runs another build of the agent (an older one: `OlderBuilds`) with `agentArguments` as
    /// they are, `--silent` not added (the first agent has no such option). `serviceDirectories`
    /// are the bus's D-Bus activation folders. `dunstConfiguration` is added to dunst's
    /// configuration (rules, such as one that draws Reveille's images).
    static func start(
        notificationServer: Bool = false, pacedBytesPerSecond: Int? = nil, agentArguments: [String] = [],
        agentEnvironment: [String: String] = [:], startingAgent: Bool = true, unsettingForAgent: Set<String> = [],
        dunstNotificationLimit: Int = 0, agentProgram: String? = nil, serviceDirectories: [URL] = [],
        dunstConfiguration: String = ""
    ) async throws -> AgentFixture {
        let sandbox = try await offPool {
            try DesktopSandbox(
                startsNotificationServer: notificationServer, serviceDirectories: serviceDirectories,
                pacedBytesPerSecond: pacedBytesPerSecond, dunstConfiguration: dunstConfiguration,
                dunstNotificationLimit: dunstNotificationLimit)
        }
        var agent: SandboxProcess?
        if startingAgent {
            // Unpaced, the capture takes sound as fast as a player writes it: such tests ring silently.
            let arguments = pacedBytesPerSecond == nil && agentProgram == nil ? agentArguments + ["--silent"] : agentArguments
            agent = try sandbox.spawn(
                agentProgram ?? Built.path("reveilled"), arguments, environment: agentEnvironment, unsetting: unsettingForAgent)
            try await offPool { try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }
        }
        return AgentFixture(sandbox: sandbox, agent: agent)
    }

    /// Runs `reveille` with arguments in the sandbox, to its end.
    func reveille(_ arguments: String..., environment: [String: String] = [:]) async throws -> CommandResult {
        try await run(Built.path("reveille"), arguments, environment: environment)
    }

    /// Runs a program in the sandbox, to its end.
    func run(_ program: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> CommandResult {
        let process = try sandbox.spawn(program, arguments, environment: environment)
        let status = try await process.waitForExit(timeout: .seconds(30))
        return CommandResult(status: status, output: process.standardOutput, error: process.standardError)
    }

    /// A client on the sandbox's bus, as this test process (an app).
    func client() throws -> AgentClient {
        AgentClient(connection: try DBusConnection.connect(address: sandbox.busAddress))
    }

    /// The running notification server's name and version (`GetServerInformation`), as the
    /// agent shows them on `reveille status`'s `notices` line: the suites run against more than
    /// one userland (Debian 12's dunst 1.9 and xfce4-notifyd 0.7, Debian 13's 1.12 and 0.9).
    func notificationServer() async throws -> (name: String, version: String) {
        let connection = try await offPool { [sandbox] in try DBusConnection.connect(address: sandbox.busAddress) }
        defer { connection.close() }
        let reply = try await connection.call(
            destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
            interface: "org.freedesktop.Notifications", method: "GetServerInformation")
        return (reply.first?.stringValue ?? "", reply.count > 2 ? reply[2].stringValue ?? "" : "")
    }

    /// Lets this test process schedule alarms, as the person would with `reveille auth allow`.
    func authorizeTestProcess() async throws {
        let result = try await reveille("auth", "allow", Built.testExecutable)
        guard result.status == .exited(0) else { throw TestEnvironmentError.failed("auth allow failed: \(result)") }
    }

    /// The second app of the tests (`Scripts/other_app.py`, run by `Built.systemPython`).
    static let otherApp = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/other_app.py").path

    /// Allows Debian's Python, the second app of the tests, to set alarms; returns its path.
    @discardableResult
    func authorizePython() async throws -> String {
        let python = Built.systemPython
        let result = try await reveille("auth", "allow", URL(fileURLWithPath: python).resolvingSymlinksInPath().path)
        guard result.status == .exited(0) else { throw TestEnvironmentError.failed("auth allow failed: \(result)") }
        return python
    }

    /// Calls a manager method as this test process and returns the error name, or nil on success.
    func errorName(of method: String, _ arguments: [DBusValue], on connection: DBusConnection) async -> String? {
        do {
            _ = try await connection.call(
                destination: AgentClient.busName, path: AgentClient.managerPath, interface: AgentClient.managerInterface,
                method: method, arguments: arguments)
            return nil
        } catch let error as DBusError {
            return error.name
        } catch {
            return "\(error)"
        }
    }

    /// Every alarm, as the person's `reveille list --json` shows them; throws when the command
    /// fails or its output is not a JSON array of alarms.
    func listedAlarms() async throws -> [AlarmDescription] {
        let listed = try await reveille("list", "--json")
        guard listed.status == .exited(0) else { throw TestEnvironmentError.failed("reveille list --json failed: \(listed)") }
        return try JSONDecoder().decode([AlarmDescription].self, from: Data(listed.output.utf8))
    }

    /// Stops `agent` with SIGTERM (it must exit 0) and starts a new one over the same store;
    /// returns once the new one owns its name.
    func restart(
        _ agent: SandboxProcess, arguments: [String] = [], environment: [String: String] = [:]
    ) async throws -> SandboxProcess {
        agent.terminate()
        let status = try await agent.waitForExit(timeout: .seconds(30))
        guard status == .exited(0) else { throw TestEnvironmentError.failed("the agent ended with \(status)\n\(agent.outputs())") }
        return try await startAgain(arguments: arguments, environment: environment)
    }

    /// Kills `agent` with SIGKILL, as a crash would, and starts a new one over the same store;
    /// returns once the new one owns its name.
    func killAndRestart(
        _ agent: SandboxProcess, arguments: [String] = [], environment: [String: String] = [:]
    ) async throws -> SandboxProcess {
        agent.kill()
        let status = try await agent.waitForExit(timeout: .seconds(30))
        guard status == .signaled(SIGKILL) else { throw TestEnvironmentError.failed("the agent ended with \(status)\n\(agent.outputs())") }
        return try await startAgain(arguments: arguments, environment: environment)
    }

    /// Starts an agent once the one before has left the bus, and returns once it owns its name.
    ///
    /// Both waits matter: a `reveille` command run while no agent owns the name starts one of its
    /// own (`AgentLauncher`), without these arguments, and that one would then serve the test.
    private func startAgain(arguments: [String], environment: [String: String]) async throws -> SandboxProcess {
        try await offPool { [sandbox] in try sandbox.waitForBusNameReleased(AgentClient.busName) }
        let restarted = try sandbox.spawn(Built.path("reveilled"), arguments, environment: environment)
        try await offPool { [sandbox] in try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }
        return restarted
    }

    /// Waits until the agent plays nothing, judged from its players (see
    /// `DesktopSandbox.waitForSilence(of:)`); returns the capture's size then.
    @discardableResult
    func waitForSilence() async throws -> Int {
        guard let agent else { throw TestEnvironmentError.failed("no agent was started") }
        return try await sandbox.waitForSilence(of: agent.pid)
    }

    func stop() {
        sandbox.stop()
    }
}
