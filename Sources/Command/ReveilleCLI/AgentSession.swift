import AlarmKit
import AlarmProtocol
import ArgumentParser
import CommandLineText
import FoundationEssentials
import Localization
import LinuxSystem

/// The command's link to the agent: connects, starts the agent when it is not running, and turns
/// failures into the CLI's messages and exit codes.
///
/// A command's call goes out at once: a call to an agent installed for D-Bus activation starts
/// it, and only a call that finds no agent at all (`isAgentMissing`) starts `reveilled` from this
/// command's own folder and goes out again. So a control command given a whole id is one call
/// after connecting.
struct AgentSession {
    let client: AgentClient
    /// Whether a call that finds no agent starts one.
    let startingAgent: Bool

    /// Connects to the session bus.
    static func open(startingAgent: Bool = true) async throws -> AgentSession {
        do {
            return AgentSession(client: try AgentClient.connect(), startingAgent: startingAgent)
        } catch {
            throw CLIFailure.unavailable(Translation.format("cannot connect to the session bus: %s", "\(error)"))
        }
    }

    /// Makes sure the agent runs before the command waits for its signals.
    func startAgentIfNeeded() async throws {
        guard await !client.isAgentRunning() else { return }
        try await startAgent()
    }

    /// Runs an agent call, starting the agent if the call found none, and turns its failures
    /// into messages and exit codes.
    func run<T>(_ body: (AgentClient) async throws -> T) async throws -> T {
        do {
            do {
                return try await body(client)
            } catch let error as AgentClientError where error.isAgentMissing && startingAgent {
                try await startAgent()
                return try await body(client)
            }
        } catch let error as AgentClientError {
            switch error.kind {
            case .notFound, .refused: throw CLIFailure.refused(error.message)
            case .invalid: throw CLIFailure.usage(error.message)
            case .unavailable: throw CLIFailure.unavailable(Translation.format("the agent did not answer: %s", error.message))
            case .failed: throw CLIFailure.other(error.message)
            }
        } catch let error as CLIFailure {
            throw error
        } catch let error as AgentBusError {
            throw CLIFailure.unavailable(Translation.format("the agent could not be reached: %s", error.message))
        } catch {
            throw CLIFailure.other("\(error)")
        }
    }

    /// Runs a call on the alarm an ID argument names: a whole id goes out as it is, without
    /// asking the agent for its alarms; a prefix is resolved among the ids of the alarms it has.
    func run<T>(naming text: String, _ body: (AgentClient, UUID) async throws -> T) async throws -> T {
        guard let id = AlarmIDInput.whole(text) else {
            let id = try await resolve(text)
            return try await run { try await body($0, id) }
        }
        return try await run { client in
            do {
                return try await body(client, id)
            } catch let error as AgentClientError where error.kind == .notFound {
                // The same words as for a prefix no alarm has.
                throw CLIFailure.refused(InputError.noMatchingAlarm(text.trimmingWhitespace()).description)
            }
        }
    }

    /// Says on standard error, at once, when the agent is about to ask the person whether this
    /// command may set alarms, and where the question is shown; says nothing otherwise.
    ///
    /// The person's own `reveille` (the one installed beside the agent) is never asked. A second
    /// copy, or one in a build tree, is an app to the agent, and a `Schedule` or `Edit` from it
    /// waits for the person's answer (up to 10 minutes): without a word, that wait looked like a
    /// hang. An agent that cannot be asked (not running, not installed for activation) says
    /// nothing either: the command then starts one beside itself, which knows it.
    func sayWhenAskingPermission() async {
        guard (try? await client.authorizationState()) == .notDetermined else { return }
        let program = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let server = (try? await client.property("NotificationServer").stringValue) ?? nil
        let shownBy = server.map { Translation.format("shown by %s", $0) } ?? Translation.text("shown by the desktop's notification server")
        let message = Translation.format(
            "waiting for you to allow this reveille (%s) to set alarms: answer the question “Allow “%s” to set alarms?” in the notification %s, or run reveille auth allow %s with the reveille installed beside the agent",
            program, URL(fileURLWithPath: program).lastPathComponent, shownBy, program)
        FileDescriptor.standardError.write("reveille: \(message)\n")
    }

    /// The shortest start of `id`, at least 4 characters, that names it among the agent's alarms:
    /// what a person types to name it (the first 8 characters when the alarms cannot be listed).
    func handle(for id: UUID) async -> String {
        guard let alarms = try? await client.list() else { return String(id.lowercasedText().prefix(8)) }
        return Confirmation.handle(for: id, among: alarms.map(\.alarm.id))
    }

    /// The one alarm whose id starts with `text`, among the alarms the agent has.
    private func resolve(_ text: String) async throws -> UUID {
        let alarms = try await run { try await $0.list() }
        do {
            return try AlarmIDInput.resolve(text, among: alarms.map(\.alarm.id))
        } catch {
            throw CLIFailure.refused(error.description)
        }
    }

    private func startAgent() async throws {
        do {
            try await client.startAgent()
        } catch {
            throw CLIFailure.unavailable(error.message)
        }
    }
}
