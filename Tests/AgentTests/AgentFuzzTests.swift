import AlarmKit
import DBus
import Foundation
import StressTesting
import Testing
import TestSupport

/// The real agent, on a real bus, under thousands of seeded random and hostile calls.
///
/// The seed is printed; `REVEILLE_FUZZ_SEED=<seed> swift test --skip-build --filter AgentFuzzTests`
/// sends the same calls again. `reveille-bench fuzz` runs many more.
@Suite("Agent: hostile D-Bus input", .serialized, .enabled(if: Built.unavailable == nil, "\(Built.unavailable ?? "")"))
struct AgentFuzzTests {
    /// How much the agent's resident memory may grow between the warm-up and the end of a run.
    static let memoryGrowthLimit = 32 * 1_048_576

    @Test("3,000 random calls: the agent lives, answers each with a return or a named error, keeps its memory and its store")
    func randomCalls() async throws {
        let seed = SeededGenerator.seedFromEnvironment()
        print("AgentFuzzTests.randomCalls: seed \(seed) (replay with \(SeededGenerator.seedVariable)=\(seed))")
        // Alerts ring until answered, so no alarm goes away on its own during the run; at most 100
        // alarms, so that memory measures what the agent keeps per call, not how many alarms
        // (up to 64 KiB of metadata each) it was given. `reveille-bench fuzz` shows both.
        let agentArguments = ["--ring-timeout", "0", "--max-alarms", "100"]
        let fixture = try await AgentFixture.start(agentArguments: agentArguments, agentEnvironment: AgentMemory.environment)
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let agent = try #require(fixture.agent)
        let fuzzer = try await AgentFuzzer(busAddress: fixture.sandbox.busAddress, seed: seed) { agent.isRunning }

        // Warm-up: every kind of call, huge strings included, before memory is measured.
        await fuzzer.run(calls: 500)
        let before = ProcessTable.residentBytes(of: agent.pid) ?? 0
        let report = await fuzzer.run(calls: 2_500)
        let after = ProcessTable.residentBytes(of: agent.pid) ?? Int.max
        print(report)
        print("agent VmRSS after the warm-up \(before / 1024) KiB, at the end \(after / 1024) KiB")
        #expect(report.problemCount == 0, "\(report)\n\(CrashLog.summary(of: agent.standardError))")
        #expect(report.calls + report.unsendable + report.signals >= 3_000, "\(report)")

        // The same agent is alive and answers.
        try #require(agent.isRunning, "\(CrashLog.summary(of: agent.standardError))")
        let owner = try await offPool { try fixture.sandbox.busNameOwnerPID(AgentClient.busName) }
        #expect(owner == agent.pid)
        let status = try await fixture.reveille("status", "--json")
        #expect(status.status == .exited(0) && status.output.contains(#""running":true"#), "\(status)")

        // Its memory did not run away.
        #expect(
            after - before < Self.memoryGrowthLimit,
            "VmRSS after the warm-up \(before / 1024) KiB, after \(report.calls) calls \(after / 1024) KiB: grew \((after - before) / 1024) KiB")

        // The store holds exactly what the answers said, and keeps it across a restart.
        let expected = await fuzzer.expected
        let listed = try await fixture.listedAlarms()
        let listedIDs = Set(listed.compactMap { UUID(uuidString: $0.id) })
        #expect(expected.mustExist.subtracting(listedIDs).isEmpty, "accepted but not listed: \(expected.mustExist.subtracting(listedIDs))")
        #expect(listedIDs.subtracting(expected.mayExist).isEmpty, "listed but never accepted: \(listedIDs.subtracting(expected.mayExist))")
        for alarm in listed {
            guard let id = UUID(uuidString: alarm.id), let known = expected.alarms[id], known.exists == true else { continue }
            #expect(alarm.title == known.title, "alarm \(alarm.id)")
        }
        // Every alarm has its D-Bus object, and no object outlived its alarm.
        let client = try fixture.client()
        let managed = try await client.connection.call(
            destination: AgentClient.busName, path: AgentClient.managerPath, interface: "org.freedesktop.DBus.ObjectManager",
            method: "GetManagedObjects")
        let objectIDs = Set((managed.first?.dictionaryValue ?? [:]).keys.compactMap { path in
            UUID(uuidString: String(path.split(separator: "/").last ?? "").replacingOccurrences(of: "_", with: "-"))
        })
        #expect(objectIDs == listedIDs, "alarms without objects: \(listedIDs.subtracting(objectIDs)); objects without alarms: \(objectIDs.subtracting(listedIDs))")

        let restarted = try await fixture.restart(agent, arguments: agentArguments, environment: AgentMemory.environment)
        defer { restarted.terminate() }
        let relisted = try await fixture.listedAlarms()
        #expect(relisted.map(\.id) == listed.map(\.id))
        #expect(relisted.map(\.title) == listed.map(\.title))
        #expect(relisted.map(\.schedule) == listed.map(\.schedule))
    }
}
