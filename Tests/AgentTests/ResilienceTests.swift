import AlarmCore
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
        let fixture = try await AlertingTests.start()
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
        try await offPool { try sandbox.pickAction("stop") }
        try await AlertingTests.waitForState(nil, of: id, in: fixture)
    }

    @Test(
        "Out of file descriptors, the agent cannot make its timer: status says so, it tries again, and the alarm rings once it can",
        .timeLimit(.minutes(2)))
    func outOfDescriptors() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let agent = try #require(fixture.agent)
        #expect(try await Self.wakeTimer(fixture) == "armed")

        // The lowest free descriptor number becomes the limit: every new descriptor fails (EMFILE).
        let open = Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/\(agent.pid)/fd").compactMap { Int($0) })
        let lowestFree = (0...).first { !open.contains($0) }!
        try await Self.limitDescriptors(of: agent, to: lowestFree, in: fixture)
        var limitRaised = false
        defer { if !limitRaised { _ = try? fixture.sandbox.run("prlimit", ["--pid", String(agent.pid), "--nofile=1024:"]) } }

        // An instant, not a timer: a timer's countdown notification would go through libnotify,
        // whose synchronous call makes a GLib main context, which aborts without a descriptor.
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 5).rounded(.down))
        let added = try await fixture.reveille("add", Self.instantText(due), "--title", "Starved")
        #expect(added.status == .exited(0), "\(added)")
        let id = try #require(UUID(uuidString: added.line), "\(added)\n\(agent.outputs())")
        let trouble = try await Self.wakeTimer(fixture)
        #expect(trouble.hasPrefix("not armed: ") && trouble.contains("trying again"), "status says: \(trouble)")
        #expect(agent.standardError.contains("The wake-up timer could not be armed; trying again until it is"))

        try await Self.limitDescriptors(of: agent, to: 1024, in: fixture)
        limitRaised = true
        var state: String?
        while state != "alerting" {
            state = try await fixture.listedAlarms().first { $0.id == id.uuidString.lowercased() }?.state
            if state != "alerting" { try await Task.sleep(for: .milliseconds(100)) }
        }
        let late = Date().timeIntervalSince(due)
        #expect(late < 3, "rang \(late) s after its instant (the retry is at most a second apart; the list is polled)")
        #expect(try await Self.wakeTimer(fixture) == "armed")
        #expect(agent.isRunning)
    }

    /// An instant as `reveille add` reads it: `2026-12-01T07:30:05+00:00`.
    static func instantText(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssxxxxx"
        return formatter.string(from: date)
    }

    /// The agent's `WakeTimer` property, as `reveille status --json` shows it.
    static func wakeTimer(_ fixture: AgentFixture) async throws -> String {
        let status = try await fixture.reveille("status", "--json")
        let object = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
        return try #require(object?["wakeTimer"] as? String, "\(status)")
    }

    /// Sets the agent's soft limit on open files (`prlimit`).
    static func limitDescriptors(of agent: SandboxProcess, to limit: Int, in fixture: AgentFixture) async throws {
        let result = try await fixture.run("/usr/bin/prlimit", ["--pid", String(agent.pid), "--nofile=\(limit):"])
        #expect(result.status == .exited(0), "\(result)")
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
