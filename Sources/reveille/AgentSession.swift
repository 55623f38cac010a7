import AlarmKit
import CommandLineText
import ArgumentParser
import CLinux
import DBus
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The command's link to the agent: connects, starts the agent when it is not running, and turns
/// failures into the CLI's messages and exit codes.
struct AgentSession {
    let client: AgentClient

    /// Connects to the session bus and makes sure the agent runs: by D-Bus activation when it is
    /// installed, otherwise by starting `reveilled` from this command's own folder.
    static func open(startingAgent: Bool = true) async throws -> AgentSession {
        let client: AgentClient
        do {
            client = try AgentClient.connect()
        } catch {
            throw CLIFailure.unavailable("cannot connect to the session bus: \(error)")
        }
        if startingAgent, await !client.isAgentRunning() {
            try await AgentLauncher.start(on: client)
        }
        return AgentSession(client: client)
    }

    /// Runs an agent call, turning its failures into messages and exit codes.
    func run<T>(_ body: (AgentClient) async throws -> T) async throws -> T {
        do {
            return try await body(client)
        } catch let error as AgentClientError {
            switch error.kind {
            case .notFound, .refused: throw CLIFailure.refused(error.message)
            case .invalid: throw CLIFailure.usage(error.message)
            case .unavailable: throw CLIFailure.unavailable("the agent did not answer: \(error.message)")
            case .failed: throw CLIFailure.other(error.message)
            }
        } catch let error as DBusError {
            throw CLIFailure.unavailable("the agent could not be reached: \(error.message)")
        } catch let error as CLIFailure {
            throw error
        } catch {
            throw CLIFailure.other("\(error)")
        }
    }

    /// The ids of the alarms the agent has, for resolving a prefix.
    func resolve(_ text: String) async throws -> UUID {
        let alarms = try await run { try await $0.list() }
        do {
            return try AlarmIDInput.resolve(text, among: alarms.map(\.alarm.id))
        } catch {
            throw CLIFailure.refused(error.description)
        }
    }
}

/// Starting the agent when nothing runs it.
enum AgentLauncher {
    /// How long to wait for a started agent to take its name.
    static let startTimeout: Duration = .seconds(10)

    static func start(on client: AgentClient) async throws {
        let appeared = client.connection.signals(
            MatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: AgentClient.busName))
        // D-Bus activation, when the agent is installed.
        do {
            _ = try await client.connection.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                method: "StartServiceByName", arguments: [.string(AgentClient.busName), .uint32(0)], timeout: .seconds(30))
            return
        } catch let error as DBusError where error.name == DBusError.serviceUnknown {
            // Not installed for activation: start the agent beside this command.
        } catch {
            throw CLIFailure.unavailable("the agent could not be started by D-Bus activation: \(error)")
        }
        let agent = ownFolder().appendingPathComponent("reveilled").path
        guard FileManager.default.isExecutableFile(atPath: agent) else {
            throw CLIFailure.unavailable("the agent is not running, and \(agent) does not exist to start it")
        }
        try spawnDetached(agent)
        let waiting = Task {
            for await signal in appeared {
                if case let arguments = signal.arguments, arguments.count == 3, arguments[2].stringValue?.isEmpty == false {
                    return true
                }
            }
            return false
        }
        let timeout = Task {
            try await Task.sleep(for: startTimeout)
            waiting.cancel()
        }
        defer { timeout.cancel() }
        // The name may have appeared between the check and the subscription.
        if await client.isAgentRunning() { waiting.cancel(); return }
        let appearedInTime = await waiting.value
        let runsNow = await client.isAgentRunning()
        guard appearedInTime || runsNow else {
            throw CLIFailure.unavailable("the agent was started (\(agent)) but did not appear on the bus; see \(logURL().path)")
        }
    }

    /// The folder of this executable (`/proc/self/exe`).
    static func ownFolder() -> URL {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: path).deletingLastPathComponent()
    }

    /// Where a started agent writes its log: `$XDG_STATE_HOME/reveille/reveilled.log`.
    static func logURL() -> URL {
        let environment = ProcessInfo.processInfo.environment
        let state = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".local/state")
        return state.appendingPathComponent("reveille/reveilled.log")
    }

    /// Starts the agent in a session of its own, its output going to the log file.
    static func spawnDetached(_ path: String) throws {
        let log = logURL()
        try? FileManager.default.createDirectory(at: log.deletingLastPathComponent(), withIntermediateDirectories: true)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, reveille_posix_spawn_setsid())
        var pid: pid_t = 0
        let arguments = [path]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard status == 0 else {
            throw CLIFailure.unavailable("could not start \(path): \(String(cString: strerror(status)))")
        }
    }
}
