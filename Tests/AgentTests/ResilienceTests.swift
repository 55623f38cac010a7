import AlarmCore
import AlarmModel
import AlarmKit
import Foundation
import Testing
import TestRequirements
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The world around the agent failing: it recovers, or exits cleanly for systemd to restart it, and
/// never spins.
@Suite("Agent: a failing desktop", .onItsOwnThread, .serialized, .requires(Built.unavailable))
struct ResilienceTests {
    @Test("The notification server crashes five times mid-alert: every new server gets the alert, the sound goes on, the agent does not spin")
    func serverCrashLoop() async throws {
        let fixture = try await AlertingTests.start(arguments: ["--verbose"])
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let agent = try #require(fixture.agent)
        let monitor = try sandbox.monitorNotifyCalls()
        let id = try await AlertingTests.timer(fixture, "1s", "--title", "Sturdy")
        try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Sturdy") })
        let cpuBefore = ProcessTable.cpuTime(of: agent.pid)
        let started = ContinuousClock.now
        for round in 1...5 {
            try await offPool { try sandbox.stopNotificationServer(.kill) }
            try await Task.sleep(for: .milliseconds(200))
            try await offPool { try sandbox.startNotificationServer() }
            try await waitUntil("the alert posted to server number \(round + 1)") {
                monitor.notifyCalls().filter { AlertingTests.isAlert($0, "Sturdy") }.count >= round + 1 ? () : nil
            }
        }
        let wall = ContinuousClock.now - started
        let cpu = ProcessTable.cpuTime(of: agent.pid) - cpuBefore
        #expect(cpu < wall * 0.25, "the agent used \(cpu) of CPU in \(wall)")
        try await sandbox.waitForDisplayedCount(1)
        let mark = sandbox.capturedByteCount
        try await sandbox.waitForCapturedBytes(atLeast: mark + 100_000)
        let picked = try await offPool { try sandbox.pickAction("stop") }
        try await AlertingTests.waitForState(nil, of: id, in: fixture) {
            "dunst sent stop for notification \(picked); the agent logged:\n\(agent.standardError.suffix(6_000))"
        }
    }

    @Test("The session bus goes away: the agent exits with a failure status at once, for systemd to restart it, its alarms stored")
    func sessionBusGone() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let agent = try #require(fixture.agent)
        let id = try await fixture.reveille("timer", "1h", "--title", "Kept").line
        kill(fixture.sandbox.bus.pid, SIGKILL)
        let status = try await agent.waitForExit(timeout: .seconds(30))
        #expect(status == .exited(1), "\(status)")
        #expect(agent.standardError.contains("the session bus went away"), "\(agent.standardError.suffix(1_000))")
        let store = fixture.sandbox.dataHome.appendingPathComponent("reveille/alarms.sqlite")
        let alarms = try AlarmStore(directory: store.deletingLastPathComponent()).loadAlarms()
        #expect(alarms.map { $0.id.uuidString.lowercased() } == [id])
    }
}

extension ResilienceTests {
    @Test("The sound device vanishes mid-ring: the alert goes on, the sound comes back on a new stream, the agent does not spin")
    func deviceVanishes() async throws {
        let fixture = try await AlertingTests.start(arguments: ["--verbose"])
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let agent = try #require(fixture.agent)
        let id = try await AlertingTests.timer(fixture, "1s", "--title", "Unplugged")
        try await AlertingTests.waitForState("alerting", of: id, in: fixture)
        try await sandbox.waitForCapturedBytes(atLeast: 100_000)
        // The capture's writer (the file plugin's `pv` behind a shell) is the device: take it away.
        let writers = ProcessTable.children(of: agent.pid).flatMap { [$0] + ProcessTable.children(of: $0) }
        #expect(!writers.isEmpty)
        for writer in writers { kill(writer, SIGKILL) }
        let cpuBefore = ProcessTable.cpuTime(of: agent.pid)
        let started = ContinuousClock.now
        try await waitUntil("the agent to notice the device is gone") {
            agent.standardError.contains("The alarm sound stopped; trying the device again") ? () : nil
        }
        let mark = sandbox.capturedByteCount
        try await sandbox.waitForCapturedBytes(atLeast: mark + 100_000)
        let cpu = ProcessTable.cpuTime(of: agent.pid) - cpuBefore
        #expect(cpu < (ContinuousClock.now - started) * 0.25, "the agent used \(cpu) of CPU")
        try await AlertingTests.waitForState("alerting", of: id, in: fixture)
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
        try await fixture.waitForSilence()
    }
}
