import AlarmKit
import Foundation
import StressTesting
import Testing
import TestRequirements
import TestSupport

/// While an alarm rings the machine stays awake: the agent holds logind's inhibitor (on the
/// system bus double, which hands out a pipe's end as logind hands out its descriptor) and
/// releases it, by closing the descriptor, the moment the last alert ends.
@Suite("Agent: the machine stays awake while an alarm rings", .onItsOwnThread, .serialized, .timeLimit(.minutes(5)))
struct SleepInhibitorTests {
    /// Runs `body` with a sandbox, the system bus double (its doubles given `systemEnvironment`)
    /// and the agent serving on the one and watching the other.
    static func withAgent(
        systemEnvironment: [String: String] = [:],
        _ body: (AgentFixture, SystemBusDouble, SandboxProcess) async throws -> Void
    ) async throws {
        try await withRestartableAgent(systemEnvironment: systemEnvironment) { fixture, system, agent, _ in
            try await body(fixture, system, agent)
        }
    }

    /// Runs `body` with a sandbox, the system bus double (its doubles given `systemEnvironment`)
    /// and the agent (given `arguments`) serving on the one and watching the other; the agent's
    /// launch is handed over so a test can start it again.
    static func withRestartableAgent(
        _ arguments: [String] = [], systemEnvironment: [String: String] = [:],
        _ body: (AgentFixture, SystemBusDouble, SandboxProcess, @escaping () async throws -> SandboxProcess) async throws -> Void
    ) async throws {
        try #require(Built.unavailable == nil, "\(Built.unavailable ?? "")")
        let zones = try ZoneFolder(zone: "Europe/Berlin")
        defer { zones.remove() }
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let system = try await SystemBusDouble.start(in: fixture.sandbox, zoneLink: zones.current, environment: systemEnvironment)
        defer { system.stop() }
        let launch = { () async throws -> SandboxProcess in
            let agent = try fixture.sandbox.spawn(
                Built.path("reveilled"),
                ["--silent", "--ring-timeout", "0", "--localtime", zones.localTime.path, "--system-bus", system.address] + arguments)
            try await offPool { try fixture.sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }
            _ = try await log(agent, containing: "Watching logind and timedate1")
            return agent
        }
        try await body(fixture, system, try await launch(), launch)
    }

    /// The agent's log once it contains `text` (within 30 s).
    static func log(_ agent: SandboxProcess, containing text: String) async throws -> String {
        try await waitUntil("the agent to log \(text.debugDescription)", timeout: .seconds(30), detail: { agent.outputs() }) {
            agent.standardError.contains(text) ? agent.standardError : nil
        }
    }

    /// Waits until `count` alarms are alerting (`reveille list --json`).
    static func waitUntilAlerting(_ fixture: AgentFixture, count: Int) async throws {
        for _ in 0..<300 {
            let list = try await fixture.reveille("list", "--json")
            if list.output.components(separatedBy: #""state":"alerting""#).count - 1 == count { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestEnvironmentError.failed("\(count) alarms did not ring within 30 s")
    }

    @Test("An alert takes logind's sleep, idle and lid-switch inhibitor; Stop releases it; a second alert takes it again")
    func heldWhileRinging() async throws {
        try await Self.withAgent { fixture, system, agent in
            #expect(!system.services.standardOutput.contains("inhibited"), "nothing is held before an alarm rings")

            let first = try await fixture.reveille("timer", "1s", "--title", "Tea")
            try #require(first.status == .exited(0), "\(first)")
            _ = try await system.services.waitForStandardOutput(
                containing: "inhibited sleep:idle:handle-lid-switch Reveille block", timeout: .seconds(30))
            let second = try await fixture.reveille("timer", "1s", "--title", "Eggs")
            try #require(second.status == .exited(0), "\(second)")
            try await Self.waitUntilAlerting(fixture, count: 2)

            // One inhibitor for both; it stays while one still rings: every release from the first
            // Stop until the second is counted, over a window waited out in full (a release is the
            // descriptor closed, which the double hears at once).
            func releases() -> Int { system.services.standardOutput.components(separatedBy: "released ").count - 1 }
            let stopFirst = try await fixture.reveille("stop", first.line)
            #expect(stopFirst.status == .exited(0), "\(stopFirst)")
            let early = try await occurrences(of: "releases of the inhibitor while an alarm still rings", over: .seconds(3)) { releases() }
            #expect(early.count == 0 && releases() == 0, "\(early):\n\(system.services.standardOutput)")
            let stopSecond = try await fixture.reveille("stop", second.line)
            #expect(stopSecond.status == .exited(0), "\(stopSecond)")
            _ = try await system.services.waitForStandardOutput(containing: "released sleep:idle:handle-lid-switch", timeout: .seconds(10))
            #expect(releases() == 1, "\(system.services.standardOutput)")
            #expect(system.services.standardOutput.components(separatedBy: "inhibited ").count == 2, "\(system.services.standardOutput)")

            // The next alert takes it again.
            let third = try await fixture.reveille("timer", "1s", "--title", "Rice")
            try #require(third.status == .exited(0), "\(third)")
            try await waitUntil("a second inhibitor", timeout: .seconds(30), detail: { system.services.outputs() }) {
                system.services.standardOutput.components(separatedBy: "inhibited ").count == 3 ? true : nil
            }
            #expect(agent.isRunning, "\(CrashLog.summary(of: agent.standardError))")
        }
    }

    @Test(
        "Refused while logind still finishes the suspend a wake ended (OperationInProgress), the inhibitor is asked for again, and held before the alarm rings"
    )
    func askedAgainAfterAResume() async throws {
        try await Self.withAgent(systemEnvironment: ["BUSY_FOR": "3"]) { fixture, system, _ in
            // Due within the wake-ahead margin (10 s): held from now, while it counts down.
            let timer = try await fixture.reveille("timer", "8s")
            try #require(timer.status == .exited(0), "\(timer)")
            _ = try await system.services.waitForStandardOutput(containing: "busy sleep:idle:handle-lid-switch", timeout: .seconds(30))
            _ = try await system.services.waitForStandardOutput(
                containing: "inhibited sleep:idle:handle-lid-switch Reveille block", timeout: .seconds(5))
            let list = try await fixture.reveille("list", "--json")
            #expect(list.output.contains(#""state":"countdown""#), "held before the timer rang: \(list.output)")
            try await Self.waitUntilAlerting(fixture, count: 1)
            let stop = try await fixture.reveille("stop", timer.line)
            #expect(stop.status == .exited(0), "\(stop)")
            _ = try await system.services.waitForStandardOutput(containing: "released sleep:idle:handle-lid-switch", timeout: .seconds(10))
        }
    }

    @Test("Where the lid switch may not be inhibited, sleep and idle still are")
    func lidRefused() async throws {
        try await Self.withAgent(systemEnvironment: ["REFUSE_LID": "1"]) { fixture, system, _ in
            let timer = try await fixture.reveille("timer", "1s")
            try #require(timer.status == .exited(0), "\(timer)")
            _ = try await system.services.waitForStandardOutput(containing: "inhibited sleep:idle Reveille block", timeout: .seconds(30))
            // Taken as the timer came within the wake-ahead margin; stopped once it rings.
            try await Self.waitUntilAlerting(fixture, count: 1)
            let stop = try await fixture.reveille("stop", timer.line)
            #expect(stop.status == .exited(0), "\(stop)")
            _ = try await system.services.waitForStandardOutput(containing: "released sleep:idle", timeout: .seconds(10))
        }
    }
}
