import AlarmKit
import Foundation
import StressTesting
import Testing
import TestRequirements
import TestSupport

/// Many clients scheduling at once against the real agent. `reveille-bench load` runs the full
/// 10 × 1,000 with a release build and prints the latencies.
@Suite("Agent: load", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(10)))
struct LoadTests {
    @Test(
        "10 clients × 200 alarms at once: each stored once, kept across a restart; every subscriber's list only grows and ends as the store"
    )
    func tenClients() async throws {
        let clients = 10
        let perClient = 200
        let agentArguments = ["--max-alarms", "100000"]
        let fixture = try await AgentFixture.start(agentArguments: agentArguments)
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let agent = try #require(fixture.agent)

        let report = try await LoadRun.run(
            busAddress: fixture.sandbox.busAddress, clients: clients, alarmsPerClient: perClient, subscribers: 3)
        print(report)
        #expect(report.failures.isEmpty, "\(report)")
        #expect(report.scheduled.count == clients * perClient, "\(report)")
        for (index, subscriber) in report.subscribers.enumerated() {
            #expect(subscriber.shrinks == 0, "subscriber \(index) saw an alarm vanish: \(report)")
            #expect(subscriber.reachedFinalList, "subscriber \(index) never saw the final list: \(report)")
        }

        let listed = try await fixture.listedAlarms()
        #expect(listed.count == clients * perClient, "each alarm once")
        #expect(Set(listed.compactMap { UUID(uuidString: $0.id) }) == report.scheduled)
        #expect(agent.isRunning, "\(CrashLog.summary(of: agent.standardError))")

        let restarted = try await fixture.restart(agent, arguments: agentArguments)
        defer { restarted.terminate() }
        let relisted = try await fixture.listedAlarms()
        #expect(
            relisted
                == listed.map { alarm in
                    // Countdowns go on while the agent restarts; everything else is as it was.
                    var kept = alarm
                    kept.remaining = relisted.first { $0.id == alarm.id }?.remaining
                    kept.fireDate = relisted.first { $0.id == alarm.id }?.fireDate
                    return kept
                })
    }
}
