import AlarmKit
import Foundation
import StressTesting
import Testing
import TestRequirements
import TestSupport

/// The `reveille` command under seeded random command lines: every subcommand with valid, mutated
/// and hostile values (control characters, invalid UTF-8, huge titles), unknown options, extra and
/// missing arguments.
///
/// Without a bus, bad input must exit 64 (it is found before the agent is asked) and everything
/// else that needs the agent 69; with the agent running, bad input 64 and refusals 65. Never a
/// signal, never silence on failure. The seed is printed; `REVEILLE_FUZZ_SEED` replays a run.
@Suite("Agent: hostile command lines", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(10)))
struct CLIFuzzTests {
    @Test("150 random command lines with no bus to reach: 64 for bad input, 69 for the rest")
    func withoutAgent() async throws {
        let seed = SeededGenerator.seedFromEnvironment()
        print("CLIFuzzTests.withoutAgent: seed \(seed) (replay with \(SeededGenerator.seedVariable)=\(seed))")
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let report = await CommandLineFuzzer.run(
            count: 150, seed: seed, reveille: Built.path("reveille"), sandbox: fixture.sandbox,
            environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/reveille-test-bus"], agent: .unreachable)
        print(report)
        #expect(report.problemCount == 0, "\(report)")
        #expect(report.knownBad > 20, "too few bad lines to mean anything: \(report)")
        #expect(report.endings["exit 69", default: 0] > 10, "too few lines got as far as the bus: \(report)")
    }

    @Test("150 random command lines against the agent: 64 for bad input, 0 or 65 for the rest; the agent lives")
    func withAgent() async throws {
        let seed = SeededGenerator.seedFromEnvironment()
        print("CLIFuzzTests.withAgent: seed \(seed) (replay with \(SeededGenerator.seedVariable)=\(seed))")
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let agent = try #require(fixture.agent)
        let report = await CommandLineFuzzer.run(
            count: 150, seed: seed, reveille: Built.path("reveille"), sandbox: fixture.sandbox, agent: .running)
        print(report)
        #expect(report.problemCount == 0, "\(report)")
        #expect(report.endings["exit 0", default: 0] > 10, "too few lines succeeded to mean anything: \(report)")
        #expect(agent.isRunning, "\(CrashLog.summary(of: agent.standardError))")
        _ = try await fixture.listedAlarms()
    }
}
