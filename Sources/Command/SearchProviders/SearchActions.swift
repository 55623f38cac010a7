import AlarmKit
import AlarmProtocol
import DBus
import Dispatch
import FoundationEssentials
import LinuxSystem

/// What choosing an alarm the agent has does: its KRunner actions, and showing it.
extension SearchAnswers {
    /// `stop`, `snooze` (for the alarm's own snooze length, as its notification's Snooze does),
    /// `cancel`, or `show` (the desktop entry: `reveille watch`).
    func act(_ action: String, on id: UUID) async throws {
        switch action {
        case "stop": try await withAgent { try await $0.stop(id: id) }
        case "cancel": try await withAgent { try await $0.cancel(id: id) }
        case "snooze": try await withAgent { try await $0.countdown(id: id) }
        case "show": try showAlarms()
        default: throw SearchFailure.unknownAction(action)
        }
    }

    /// Opens Reveille's desktop entry (`reveille watch` in a terminal), found where the desktop
    /// finds it, through GIO's `gio launch` as the shell would launch it (in a session of its own,
    /// its output dropped; it is waited for off the caller's thread, so it leaves no zombie).
    func showAlarms() throws {
        let environment = ProcessInfo.processInfo.environment
        let home = environment["XDG_DATA_HOME"] ?? (environment["HOME"].map { $0 + "/.local/share" } ?? "")
        let folders = [home] + (environment["XDG_DATA_DIRS"] ?? "/usr/local/share:/usr/share").split(separator: ":").map(String.init)
        let entry = folders.map { $0 + "/applications/io.github.reveille.Reveille.desktop" }
            .first { FileManager.default.fileExists(atPath: $0) }
        guard let entry else { throw SearchFailure.unknownResult("io.github.reveille.Reveille.desktop") }
        let launcher = try ProcessCalls.spawn("/usr/bin/env", arguments: ["gio", "launch", entry], appendingOutputTo: "/dev/null")
        DispatchQueue.global().async { _ = try? ProcessCalls.wait(for: launcher) }
    }

    /// Runs a call to the agent, starting it (beside this program, as `reveille` does) when the
    /// call found none to answer and none could be activated.
    func withAgent<T>(_ body: (AgentClient) async throws -> T) async throws -> T {
        do {
            return try await body(client)
        } catch let error as AgentClientError where error.isAgentMissing {
            try await client.startAgent()
            return try await body(client)
        }
    }
}

/// How a search call's failure is answered on the bus.
enum SearchCalls {
    /// The prefix of the provider's own error names.
    static let errorPrefix = "io.github.reveille.Search.Error."

    /// Runs a call's work; the agent's refusal goes back under the agent's own error name
    /// (`io.github.reveille.Alarms1.Error.NotAuthorized`), a result or action this provider does
    /// not know as `io.github.reveille.Search.Error.UnknownResult` or `UnknownAction`.
    static func answering(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as AgentClientError {
            throw DBusError(name: error.name, message: error.message)
        } catch let error as SearchFailure {
            switch error {
            case .unknownResult: throw DBusError(name: errorPrefix + "UnknownResult", message: error.description)
            case .unknownAction: throw DBusError(name: errorPrefix + "UnknownAction", message: error.description)
            }
        } catch let error as AgentStartError {
            throw DBusError(name: DBusError.serviceUnknown, message: error.message)
        }
    }
}
