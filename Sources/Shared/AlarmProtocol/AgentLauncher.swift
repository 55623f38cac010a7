import DBus
import FoundationEssentials
import LinuxSystem

/// Finding the agent on the bus, and starting it when nothing runs it: by D-Bus activation when it
/// is installed, otherwise by running `reveilled` from a given folder.
package enum AgentLauncher {
    /// How long to wait for an agent started from a folder to take its name.
    package static let startTimeout: Duration = .seconds(10)

    /// Whether the agent owns its bus name now.
    package static func isRunning(on connection: DBusConnection) async -> Bool {
        let reply = try? await connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "NameHasOwner", arguments: [.string(AlarmBus.name)])
        return reply?.first?.boolValue ?? false
    }

    /// Starts the agent and returns once it owns its name.
    ///
    /// D-Bus activation first; when the agent is not installed for activation, `reveilled` from
    /// `folder`, in a session of its own, its output appended to `logURL()`.
    package static func start(on connection: DBusConnection, beside folder: URL) async throws(AgentLaunchError) {
        let appeared = connection.signals(
            MatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: AlarmBus.name))
        do {
            _ = try await connection.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                method: "StartServiceByName", arguments: [.string(AlarmBus.name), .uint32(0)], timeout: .seconds(30))
            return
        } catch let error as DBusError where error.name == DBusError.serviceUnknown {
            // Not installed for activation: start the agent from the folder.
        } catch {
            throw AgentLaunchError("the agent could not be started by D-Bus activation: \(error)")
        }
        let agent = folder.appendingPathComponent("reveilled").path
        guard FileManager.default.isExecutableFile(atPath: agent) else {
            throw AgentLaunchError("the agent is not running, and \(agent) does not exist to start it")
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
        if await isRunning(on: connection) { waiting.cancel(); return }
        let appearedInTime = await waiting.value
        let runsNow = await isRunning(on: connection)
        guard appearedInTime || runsNow else {
            throw AgentLaunchError("the agent was started (\(agent)) but did not appear on the bus; see \(logURL().path)")
        }
    }

    /// The folder of the running executable (`/proc/self/exe`).
    package static func ownFolder() -> URL {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: path).deletingLastPathComponent()
    }

    /// Where a started agent writes its log: `$XDG_STATE_HOME/reveille/reveilled.log`.
    package static func logURL() -> URL {
        let environment = ProcessInfo.processInfo.environment
        let state =
            environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? URL(fileURLWithPath: environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path).appendingPathComponent(
                ".local/state")
        return state.appendingPathComponent("reveille/reveilled.log")
    }

    /// Starts the agent in a session of its own, its output going to the log file.
    static func spawnDetached(_ path: String) throws(AgentLaunchError) {
        let log = logURL()
        try? FileManager.default.createDirectory(at: log.deletingLastPathComponent(), withIntermediateDirectories: true)
        do {
            _ = try ProcessCalls.spawn(path, appendingOutputTo: log.path)
        } catch {
            throw AgentLaunchError("could not start \(path): \(error)")
        }
    }
}

/// The agent is not running and could not be started; the message says why. (AlarmKit's client
/// hands it to apps as its own `AgentStartError`.)
package struct AgentLaunchError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, for a person.
    package var message: String

    /// Creates an error with its message.
    package init(_ message: String) { self.message = message }

    /// The message.
    package var description: String { message }
}
