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
@Suite("Agent: a failing desktop", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(10)))
struct ResilienceTests {
    @Test(
        "The notification server crashes five times mid-alert: every new server gets the alert, the sound goes on, the agent does not spin")
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

    @Test(
        "Out of file descriptors when an alarm is due (soft and hard limit at the lowest free number), it still rings: its notification is posted and its sound heard at its instant, and the log says why",
        .timeLimit(.minutes(3)))
    func outOfDescriptorsWhenDue() async throws {
        let fixture = try await AlertingTests.start(arguments: ["--verbose"])
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let agent = try #require(fixture.agent)
        let monitor = try sandbox.monitorNotifyCalls()
        // An instant, set while the agent has descriptors; then it is starved before it comes.
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 6).rounded(.down))
        let added = try await fixture.reveille("add", Self.instantText(due), "--title", "Starved")
        try #require(added.status == .exited(0), "\(added)")
        let id = try #require(UUID(uuidString: added.line), "\(added)")
        // The store's checkpoint follows a change by a second: let it pass, as the agent's own
        // aftermath, before the limit comes down.
        try await ProcessStatistics.waitUntilStill(pid: agent.pid, for: .milliseconds(1_500))
        try await Self.starve(agent, in: fixture)
        defer { _ = try? sandbox.run("prlimit", ["--pid", String(agent.pid), "--nofile=1024:1024"]) }
        try #require(Date() < due.addingTimeInterval(-1), "the limit came down too late to judge the alarm")

        // Rung as a person sees and hears it: the alert on the bus at its instant, then its sound.
        let alert = try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Starved") }, timeout: .seconds(30))
        let posted = DoNotDisturbDunstTests.wallClock(of: try #require(alert.receivedAt))
        let late = posted.timeIntervalSince(due)
        print("ResilienceTests: starved of descriptors, the alert was posted \(String(format: "%.3f", late)) s after its instant")
        #expect(late >= 0 && late < 1, "posted \(late) s after its instant")
        do {
            try await sandbox.waitForCapturedBytes(atLeast: AlertingTests.pace)
        } catch {
            Issue.record("no sound; the agent's log:\n\(agent.standardError.suffix(4_000))")
            throw error
        }
        #expect(agent.isRunning, "\(agent.outputs())")
        let log = agent.standardError
        #expect(log.contains("out of file descriptors"), "the agent's log:\n\(log.suffix(4_000))")

        let stop = try await fixture.reveille("stop", id.uuidString)
        #expect(stop.status == .exited(0), "\(stop)\nthe agent's log:\n\(agent.standardError.suffix(3_000))")
        try await fixture.waitForSilence()
        #expect(agent.isRunning, "\(agent.outputs())")
    }

    @Test(
        "Out of file descriptors while a timer counts down (its notification updated every second), the agent does not abort, and the timer rings",
        .timeLimit(.minutes(3)))
    func outOfDescriptorsCountingDown() async throws {
        let fixture = try await AlertingTests.start(arguments: ["--verbose"])
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let agent = try #require(fixture.agent)
        let monitor = try sandbox.monitorNotifyCalls()
        let id = try await AlertingTests.timer(fixture, "8s", "--title", "Starved timer")
        func isCountdown(_ call: NotifyCall) -> Bool { call.summary == "Starved timer" && call.actionKeys.contains("pause") }
        try await monitor.waitForNotify(matching: { isCountdown($0) && $0.returnedID != nil })
        try await Self.starve(agent, in: fixture)
        defer { _ = try? sandbox.run("prlimit", ["--pid", String(agent.pid), "--nofile=1024:1024"]) }
        // The countdown's next updates, each a call GLib needs a descriptor for, then the alert.
        let updates = monitor.notifyCalls().filter(isCountdown).count
        do {
            try await monitor.waitForNotify(matching: { _ in monitor.notifyCalls().filter(isCountdown).count >= updates + 2 })
            try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Starved timer") }, timeout: .seconds(30))
        } catch {
            Issue.record("the agent's log:\n\(agent.standardError.suffix(4_000))")
            throw error
        }
        try await sandbox.waitForCapturedBytes(atLeast: AlertingTests.pace)
        #expect(agent.isRunning, "\(agent.outputs())")
        #expect(agent.standardError.contains("out of file descriptors"), "the agent's log:\n\(agent.standardError.suffix(4_000))")
        let stop = try await fixture.reveille("stop", id.uuidString)
        #expect(stop.status == .exited(0), "\(stop)\nthe agent's log:\n\(agent.standardError.suffix(3_000))")
        try await fixture.waitForSilence()
        #expect(agent.isRunning, "\(agent.outputs())")
    }

    /// Starves `agent` of file descriptors: its soft and hard limits on open files both become
    /// the lowest descriptor number it does not use, so every new descriptor fails (`EMFILE`)
    /// and it cannot raise the limit again.
    static func starve(_ agent: SandboxProcess, in fixture: AgentFixture) async throws {
        let open = try Self.openDescriptors(of: agent)
        let lowestFree = (0...).first { !open.contains($0) }!
        try await Self.limitDescriptors(of: agent, to: "\(lowestFree):\(lowestFree)", in: fixture)
        let limits = try String(contentsOfFile: "/proc/\(agent.pid)/limits", encoding: .utf8)
        let openFiles = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }?.split(separator: " ").dropFirst(3).prefix(2)
        try #require(openFiles.map(Array.init) == ["\(lowestFree)", "\(lowestFree)"], "\(limits)")
    }

    /// An instant as `reveille add` reads it: `2026-12-01T07:30:05+00:00`.
    static func instantText(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssxxxxx"
        return formatter.string(from: date)
    }

    /// The descriptor numbers a process has open.
    static func openDescriptors(of process: SandboxProcess) throws -> Set<Int> {
        Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.pid)/fd").compactMap { Int($0) })
    }

    /// Sets a process's limits on open files (`prlimit --nofile=SOFT:HARD`).
    static func limitDescriptors(of process: SandboxProcess, to limits: String, in fixture: AgentFixture) async throws {
        let result = try await fixture.run("/usr/bin/prlimit", ["--pid", String(process.pid), "--nofile=\(limits)"])
        try #require(result.status == .exited(0), "\(result)")
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
