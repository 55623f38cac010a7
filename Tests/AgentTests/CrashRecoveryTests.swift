import AlarmCore
import CommandLineText
import AlarmModel
import AlarmKit
import DBus
import Foundation
import Synchronization
import Testing
import TestRequirements
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `kill -9` of the agent at any moment: nothing it acknowledged is lost, and what was ringing
/// rings again when it is back.
@Suite("Agent: kill -9 at any moment", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(10)))
struct CrashRecoveryTests {
    @Test("Killed while scheduling: every alarm whose Schedule was answered is there after a restart, and nothing half-written")
    func whileScheduling() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let agent = try #require(fixture.agent)
        let client = try fixture.client()
        let acknowledged = Mutex<[UUID]>([])
        let far = Date().addingTimeInterval(7 * 86_400)
        // Schedule as fast as the agent answers, and kill it in the middle.
        let scheduling = Task {
            for index in 0..<10_000 {
                let id = UUID()
                do {
                    _ = try await client.schedule(
                        id: id, definition: Fixtures.definition(.fixed(far.addingTimeInterval(Double(index))), title: "A\(index)"))
                    acknowledged.withLock { $0.append(id) }
                } catch {
                    return
                }
            }
        }
        try await waitUntil("50 acknowledged alarms") { acknowledged.withLock { $0.count } >= 50 ? () : nil }
        let restarted = try await fixture.killAndRestart(agent, arguments: ["--silent"])
        defer { restarted.terminate() }
        await scheduling.value
        client.connection.close()

        let listed = try await fixture.reveille("list", "--json")
        let alarms = try JSONDecoder().decode([AlarmDescription].self, from: Data(listed.output.utf8))
        let stored = Set(alarms.map(\.id))
        let answered = Set(acknowledged.withLock { $0 }.map { $0.uuidString.lowercased() })
        #expect(answered.count >= 50)
        #expect(answered.isSubset(of: stored), "lost: \(answered.subtracting(stored).count) acknowledged alarms")
        // At most the one call in flight when the agent died is there without its answer.
        #expect(stored.count - answered.count <= 1)
        #expect(alarms.allSatisfy { $0.state == "scheduled" && $0.title.hasPrefix("A") })
    }

    @Test("Killed while counting down: the timer goes on from where it was, not from the start")
    func whileCountingDown() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let agent = try #require(fixture.agent)
        let started = Date()
        let id = try await fixture.reveille("timer", "2m", "--title", "Counting").line
        try await Task.sleep(for: .seconds(2))
        let restarted = try await fixture.killAndRestart(agent, arguments: ["--silent"])
        defer { restarted.terminate() }
        let shown = try await fixture.reveille("show", id, "--json")
        let alarm = try JSONDecoder().decode(AlarmDescription.self, from: Data(shown.output.utf8))
        #expect(alarm.state == "countdown")
        let remaining = try #require(alarm.remaining)
        let expected = 120 - Date().timeIntervalSince(started)
        #expect(abs(remaining - expected) < 1.5, "remaining \(remaining) s, expected about \(expected) s")
    }

    @Test("Killed while alerting: after a restart the alert is posted again and sounds again")
    func whileAlerting() async throws {
        let fixture = try await AgentFixture.start(
            notificationServer: true, pacedBytesPerSecond: AlertingTests.pace, agentArguments: ["--ramp", "0"])
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let agent = try #require(fixture.agent)
        let monitor = try sandbox.monitorNotifyCalls()
        let id = try await fixture.reveille("timer", "1s", "--title", "Crash").line
        try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Crash") })
        try await sandbox.waitForCapturedBytes(atLeast: 100_000)

        agent.kill()
        _ = try await agent.waitForExit(timeout: .seconds(30))
        let silentAt = try await sandbox.waitForSilence()
        let killedAt = ContinuousClock.now
        let restarted = try sandbox.spawn(Built.path("reveilled"), ["--ramp", "0"])
        defer { restarted.terminate() }
        let again = try await monitor.waitForNotify(matching: { call in
            AlertingTests.isAlert(call, "Crash") && (call.receivedAt ?? killedAt) > killedAt
        })
        try await sandbox.waitForCapturedBytes(atLeast: silentAt + 100_000)
        let shown = try await fixture.reveille("show", id, "--json")
        #expect(shown.output.contains(#""state":"alerting""#), "\(shown)")
        print("kill -9 to the alert posted again: \((again.receivedAt ?? killedAt) - killedAt)")
        try await offPool { try sandbox.pickAction("stop") }
        try await sandbox.waitForSilence(of: restarted.pid)
    }
}
