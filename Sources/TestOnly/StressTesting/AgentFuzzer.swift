import DBus
import Foundation
import TestSupport

/// Sends the agent thousands of seeded random calls over a real bus and judges every answer: a
/// method return or a named error, never an unnamed one, never silence. Keeps a model of the store
/// from the answers (see `ExpectedAlarms`) and stops at the first sign that the agent died.
///
/// Calls go out in small concurrent batches; the calls of one batch never name the same alarm,
/// so the model does not depend on the order the agent answers them in. The same seed sends the
/// same calls. Every few hundred calls the fuzzer opens a new connection, so the agent sees callers
/// come and go.
package actor AgentFuzzer {
    /// The bus the agent serves on.
    package let busAddress: String
    /// How many calls go out at once.
    package let concurrency: Int
    /// Calls between new connections.
    package let callsPerConnection: Int
    /// How long to wait for an answer before calling it a problem.
    package let timeout: Duration
    private let agentIsAlive: @Sendable () -> Bool
    private var generator: FuzzCallGenerator
    private var connection: DBusConnection
    private var agentUniqueName: String
    private var callsOnConnection = 0
    /// The report so far.
    package private(set) var report: FuzzReport
    /// The model of the store so far.
    package private(set) var expected = ExpectedAlarms()
    /// Whether the agent was seen to die; no more calls are sent then.
    package private(set) var agentDied = false
    /// Whether a call went unanswered for the whole time-out; no more calls are sent then
    /// (each would wait as long).
    package private(set) var agentStoppedAnswering = false

    /// Connects to the bus at `address`, where the agent owns `io.github.reveille.Alarms1`.
    /// `agentIsAlive` tells whether the agent's process still runs (checked after every batch).
    package init(
        busAddress: String, seed: UInt64, concurrency: Int = 8, callsPerConnection: Int = 400,
        timeout: Duration = .seconds(30), agentIsAlive: @escaping @Sendable () -> Bool
    ) async throws {
        self.busAddress = busAddress
        self.concurrency = concurrency
        self.callsPerConnection = callsPerConnection
        self.timeout = timeout
        self.agentIsAlive = agentIsAlive
        generator = FuzzCallGenerator(seed: seed)
        report = FuzzReport(seed: seed)
        connection = try DBusConnection.connect(address: busAddress)
        agentUniqueName = try await Self.owner(on: connection)
    }

    /// The unique name of the agent's connection.
    static func owner(on connection: DBusConnection) async throws -> String {
        let reply = try await connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "GetNameOwner", arguments: [.string(FuzzCallGenerator.busName)])
        return reply.first?.stringValue ?? FuzzCallGenerator.busName
    }

    /// The pool of ids the calls mostly use.
    package var idPool: [UUID] { generator.idPool }

    /// Sends `count` more calls (fewer when the agent dies) and returns the report so far.
    @discardableResult
    package func run(calls count: Int) async -> FuzzReport {
        var sent = 0
        while sent < count, !agentDied, !agentStoppedAnswering {
            if callsOnConnection >= callsPerConnection { await reconnect(counting: false) }
            var used = Set<UUID>()
            let batch = (0..<min(concurrency, count - sent)).map { _ in generator.next(used: &used) }
            sent += batch.count
            callsOnConnection += batch.count
            let outcomes = await send(batch)
            generator.now = Date()
            for (call, outcome) in zip(batch, outcomes) { take(call, outcome) }
            if outcomes.contains(where: { if case .error(DBusError.noReply, _) = $0 { true } else { false } }) {
                agentStoppedAnswering = true
                report.problem("the agent stopped answering (no reply within \(timeout)); the run ends here")
            }
            if !connection.isConnected { await reconnect(counting: true) }
            if !agentIsAlive() {
                agentDied = true
                report.problem("the agent died during this batch of calls:\n" + batch.map { "      \($0)" }.joined(separator: "\n"))
            }
        }
        return report
    }

    /// What came of one message.
    enum Outcome: Sendable {
        case returned
        case error(name: String, message: String)
        case signalSent
        case unsendable(String)
        case lostConnection
    }

    private func send(_ batch: [FuzzCall]) async -> [Outcome] {
        let connection = self.connection
        let unique = agentUniqueName
        let timeout = self.timeout
        return await withTaskGroup(of: (Int, Outcome).self) { group in
            for (index, call) in batch.enumerated() {
                group.addTask { (index, await Self.send(call, on: connection, agent: unique, timeout: timeout)) }
            }
            var outcomes = [Outcome](repeating: .lostConnection, count: batch.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
    }

    private static func send(_ call: FuzzCall, on connection: DBusConnection, agent: String, timeout: Duration) async -> Outcome {
        let destination = call.toUniqueName || call.isSignal ? agent : FuzzCallGenerator.busName
        if call.isSignal {
            do {
                try connection.emitSignal(
                    path: call.path, interface: call.interface ?? "org.example.Fuzz", name: call.member, arguments: call.arguments,
                    destination: destination)
                return .signalSent
            } catch {
                return connection.isConnected ? .unsendable("\(error)") : .lostConnection
            }
        }
        let message: DBusMessage
        do {
            message = try DBusMessage.methodCall(
                destination: destination, path: call.path, interface: call.interface, method: call.member,
                arguments: call.arguments)
        } catch {
            return .unsendable("\(error)")
        }
        do {
            _ = try await connection.call(message, timeout: timeout)
            return .returned
        } catch let error as DBusError {
            // The bus drops a connection that sends what it must not (for example nesting too
            // deep): that is this process's doing, not the agent's. `Disconnected` is libdbus's
            // own word for that, never an answer from the agent.
            if !connection.isConnected || error.name == DBusError.disconnected { return .lostConnection }
            return .error(name: error.name, message: error.message)
        } catch {
            return .error(name: "(not a D-Bus error)", message: "\(error)")
        }
    }

    private func take(_ call: FuzzCall, _ outcome: Outcome) {
        let verdict: ReplyVerdict
        var message = ""
        switch outcome {
        case .signalSent:
            report.signals += 1
            return
        case .unsendable:
            report.unsendable += 1
            return
        case .lostConnection:
            // Whether the agent saw it is unknown: so is its alarm.
            report.calls += 1
            _ = expected.record(call.effect, verdict: .problem("connection lost"), errorMessage: "", at: Date())
            return
        case .returned:
            report.calls += 1
            report.returns += 1
            verdict = .returned
        case .error(let name, let text):
            report.calls += 1
            message = text
            verdict = ReplyVerdict.judge(errorName: name, message: text)
            switch verdict {
            case .namedError(let name): report.namedErrors[name, default: 0] += 1
            case .problem(let problem): report.problem("\(problem)\n      for \(call)")
            case .returned: break
            }
        }
        if case .schedule = call.effect {
            if case .returned = verdict { report.schedulesAccepted += 1 } else { report.schedulesRefused += 1 }
        }
        if let problem = expected.record(call.effect, verdict: verdict, errorMessage: message, at: Date()) {
            report.problem("\(problem)\n      for \(call)")
        }
    }

    /// Replaces the connection with a new one (after the bus dropped it, or to churn callers).
    private func reconnect(counting: Bool) async {
        if counting { report.reconnections += 1 }
        connection.close()
        callsOnConnection = 0
        do {
            connection = try DBusConnection.connect(address: busAddress)
            agentUniqueName = try await Self.owner(on: connection)
        } catch {
            report.problem("could not connect to the bus again: \(error)")
            agentDied = !agentIsAlive()
        }
    }
}
