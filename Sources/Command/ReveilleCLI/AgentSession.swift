import AlarmKit
import AlarmProtocol
import ArgumentParser
import CommandLineText
import FoundationEssentials

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
            throw CLIFailure.unavailable("cannot connect to the session bus: \(error)")
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
            case .unavailable: throw CLIFailure.unavailable("the agent did not answer: \(error.message)")
            case .failed: throw CLIFailure.other(error.message)
            }
        } catch let error as CLIFailure {
            throw error
        } catch let error as AgentBusError {
            throw CLIFailure.unavailable("the agent could not be reached: \(error.message)")
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
