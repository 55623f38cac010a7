import AlarmKit
import Foundation
import StressTesting
import Testing
import TestRequirements
import TestSupport

/// The real agent wakes ahead of an alarm: it holds logind's inhibitor (on the system bus double)
/// from the wake-ahead moment until the alarm has rung, measures a suspend that its wake ended
/// (the double's `PrepareForSleep` pair, spaced as a real suspend is), keeps the measurement in
/// the store's folder, and `reveille status` shows the margin and the resumes it came from.
@Suite("Agent: waking ahead of an alarm, end to end", .onItsOwnThread, .serialized, .timeLimit(.minutes(5)))
struct WakeAheadAgentTests {
    /// Runs `body` with a sandbox, the system bus double and the agent (given `arguments`)
    /// serving on the one and watching the other; the agent's launch is handed over so a test can
    /// start it again.
    static func withAgent(
        _ arguments: [String] = [],
        _ body: (AgentFixture, SystemBusDouble, SandboxProcess, @escaping () async throws -> SandboxProcess) async throws -> Void
    ) async throws {
        try await SleepInhibitorTests.withRestartableAgent(arguments) { fixture, system, agent, launch in
            try await body(AgentFixture(sandbox: fixture.sandbox, agent: agent), system, agent, launch)
        }
    }

    /// `reveille status --json`.
    static func status(_ fixture: AgentFixture) async throws -> [String: Any] {
        let result = try await fixture.reveille("status", "--json")
        try #require(result.status == .exited(0), "\(result)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(result)")
    }

    @Test("The inhibitor is taken at the wake-ahead moment, while the alarm still counts down, and released once it has rung and stopped")
    func heldFromTheWake() async throws {
        try await Self.withAgent(["--wake-ahead", "5"]) { fixture, system, _, _ in
            let timer = try await fixture.reveille("timer", "15s", "--title", "Bread")
            try #require(timer.status == .exited(0), "\(timer)")
            try await Task.sleep(for: .seconds(2))
            #expect(
                !system.services.standardOutput.contains("inhibited"),
                "held 13 s before the alarm, 5 s ahead was asked:\n\(system.services.standardOutput)")
            _ = try await system.services.waitForStandardOutput(
                containing: "inhibited sleep:idle:handle-lid-switch Reveille block (An alarm is about to ring)", timeout: .seconds(30))
            let list = try await fixture.reveille("list", "--json")
            #expect(list.output.contains(#""state":"countdown""#), "held before the alarm rings: \(list)")
            try await SleepInhibitorTests.waitUntilAlerting(fixture, count: 1)
            #expect(
                !system.services.standardOutput.contains("released"),
                "let go between the wake and the ring:\n\(system.services.standardOutput)")
            let stop = try await fixture.reveille("stop", timer.line)
            #expect(stop.status == .exited(0), "\(stop)")
            _ = try await system.services.waitForStandardOutput(containing: "released sleep:idle:handle-lid-switch", timeout: .seconds(10))
            #expect(
                system.services.standardOutput.components(separatedBy: "inhibited ").count == 2,
                "one inhibitor from the wake to the end of the ring:\n\(system.services.standardOutput)")
        }
    }

    @Test("A suspend ended by the wake is measured and kept; status shows the margin and the resumes, also after a restart")
    func measuredAndShown() async throws {
        try await Self.withAgent { fixture, system, agent, launch in
            let before = try await Self.status(fixture)
            #expect(before["wakeAhead"] as? Double == 10, "\(before)")
            #expect(before["resumeTimes"] as? [Double] == [], "\(before)")
            #expect(
                (before["wakeAheadDetail"] as? String)?.hasPrefix("10 s before each alarm: the longest resume measured and 5 s to spare")
                    == true, "\(before)")
            let text = try await fixture.reveille("status")
            #expect(text.output.contains("\nahead    10 s before each alarm"), "\(text)")

            // An alarm 14 s ahead is woken for 10 s ahead; the machine sleeps from now until 2 s
            // after that wake.
            let instant = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 14).rounded(.down))
            let add = try await fixture.reveille("add", instant.formatted(.iso8601))
            try #require(add.status == .exited(0), "\(add)")
            try await Task.sleep(for: .milliseconds(300))
            let wake = instant.addingTimeInterval(-10)
            try await system.sleep(for: wake.timeIntervalSinceNow + 2)
            _ = try await system.services.waitForStandardOutput(containing: "slept", timeout: .seconds(30))
            _ = try await SleepInhibitorTests.log(agent, containing: "Resumed for an alarm")
            let after = try await Self.status(fixture)
            let resumes = try #require(after["resumeTimes"] as? [Double], "\(after)")
            #expect(resumes.count == 1 && abs(resumes[0] - 2) < 1, "about 2 s from the wake to the agent hearing of the resume: \(after)")
            #expect(after["wakeAhead"] as? Double == 10, "a 2 s resume and 5 s to spare is under the least margin: \(after)")
            #expect((after["wakeAheadDetail"] as? String)?.contains("the last resume took ") == true, "\(after)")
            let file = fixture.sandbox.dataHome.appendingPathComponent("reveille/resume-times.json")
            #expect(FileManager.default.fileExists(atPath: file.path), "kept in the store's folder")

            // Restarted, the agent learns from what it kept.
            agent.terminate()
            #expect(try await agent.waitForExit(timeout: .seconds(30)) == .exited(0), "\(agent.outputs())")
            let again = try await launch()
            defer { again.stop() }
            let restarted = try await Self.status(AgentFixture(sandbox: fixture.sandbox, agent: again))
            #expect(restarted["resumeTimes"] as? [Double] == resumes, "\(restarted)")
        }
    }

    @Test("--wake-ahead sets the margin, and status says so; a margin out of bounds is refused")
    func setByTheOption() async throws {
        try await Self.withAgent(["--wake-ahead", "30"]) { fixture, _, _, _ in
            let status = try await Self.status(fixture)
            #expect(status["wakeAhead"] as? Double == 30, "\(status)")
            #expect(
                status["wakeAheadDetail"] as? String == "30 s before each alarm (reveilled --wake-ahead); no resume measured yet",
                "\(status)")
            for bad in ["601", "-1", "soon"] {
                let refused = try await fixture.run(Built.path("reveilled"), ["--wake-ahead", bad])
                #expect(refused.status == .exited(64) && refused.error.contains("--wake-ahead"), "\(bad): \(refused)")
            }
        }
    }
}
