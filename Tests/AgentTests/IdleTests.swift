import AlarmKit
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The agent costs nothing while it waits: no thread of it wakes up until something is due.
/// (A running timer is not waiting: its notification shows the time left, second by second.)
@Suite("Agent: idle", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(10)))
struct IdleTests {
    @Test("With alarms days ahead and a notification server up, no thread of the agent wakes up in 3 s")
    func noWakeUps() async throws {
        let fixture = try await AgentFixture.start(notificationServer: true)
        defer { fixture.stop() }
        let agent = try #require(fixture.agent)
        try await fixture.authorizeTestProcess()
        let client = try fixture.client()
        for index in 0..<20 {
            let instant = Date().addingTimeInterval(Double(2 * 86_400 + index * 60))
            _ = try await client.schedule(id: UUID(), definition: Fixtures.definition(.fixed(instant), title: "Later \(index)"))
        }
        client.connection.close()
        try await Self.expectNoWakeUps(of: agent, in: fixture, over: .seconds(3))
    }

    /// Waits for the store's last checkpoint and the agent to be still, then expects no thread of
    /// the agent to wake up over `window`, waited out in full; fails when the agent is not running
    /// at its start or end (a dead agent has no threads, so "no wake-ups" would hold).
    static func expectNoWakeUps(of agent: SandboxProcess, in fixture: AgentFixture, over window: Duration) async throws {
        // A change's last aftermath is the store's checkpoint, a second after the last change:
        // it empties the write-ahead log (`wal_checkpoint(TRUNCATE)`).
        let log = fixture.sandbox.dataHome.appendingPathComponent("reveille/alarms.sqlite-wal").path
        try await waitUntil("the store's checkpoint to empty \(log)", detail: { agent.outputs() }) {
            ((try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? nil) == 0 ? () : nil
        }
        // The engine is still on its way back from the checkpoint when the log reads empty.
        try await ProcessStatistics.waitUntilStill(pid: agent.pid)
        try #require(agent.isRunning, "the agent ended before the idle window: \(agent.outputs())")
        let wakeUps = try await ProcessStatistics.wakeUps(of: agent.pid, over: window)
        try #require(agent.isRunning, "the agent ended during the idle window: \(agent.outputs())")
        #expect(wakeUps.byThread.isEmpty, "threads that woke up in \(window): \(wakeUps)")
    }

    @Test(
        "After an alarm has rung (notification, a sound file) and been stopped from its notification, and status was asked, no thread of the agent wakes up in a minute",
        .timeLimit(.minutes(3)))
    func noWakeUpsAfterAnAlert() async throws {
        let fixture = try await AlertingTests.start()
        defer { fixture.stop() }
        let agent = try #require(fixture.agent)
        let sandbox = fixture.sandbox
        // An alarm days ahead keeps the agent's timers armed, as in a person's week.
        let later = try await fixture.reveille("add", "tomorrow 7:00", "--title", "Later")
        try #require(later.status == .exited(0), "\(later)")
        let monitor = try sandbox.monitorNotifyCalls()
        // A sound file of the person's: checked as the timer is set, found again as it rings.
        let sound = try AlertingTests.write(AlertingTests.constant(9_000), named: "bell.wav", in: fixture)
        let id = try await AlertingTests.timer(fixture, "1s", "--title", "Rang", "--sound", sound)
        try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Rang") })
        try await sandbox.waitForCapturedBytes(atLeast: AlertingTests.pace / 2)
        try await offPool { try sandbox.pickAction("stop") }
        try await AlertingTests.waitForState(nil, of: id, in: fixture) { agent.outputs() }
        try await fixture.waitForSilence()
        try await sandbox.waitForDisplayedCount(0)
        // And the person asks how things stand: the agent opens the sound device to tell.
        let status = try await fixture.reveille("status")
        try #require(status.status == .exited(0) && status.output.contains("sound    available"), "\(status)")
        try await Self.expectNoWakeUps(of: agent, in: fixture, over: .seconds(60))
    }

    @Test("A freshly started agent keeps no timeout armed: no thread sleeps on a timer (8 starts)")
    func noTimerAfterStart() async throws {
        // GDBus's name watcher used to leave its GetNameOwner reply timeout in the notification
        // thread's poll in about one start of three, waking it 25 s later for nothing.
        for start in 1...8 {
            let fixture = try await AgentFixture.start(notificationServer: start.isMultiple(of: 2))
            defer { fixture.stop() }
            let agent = try #require(fixture.agent)
            try await Task.sleep(for: .seconds(1))
            // A process that ended has no threads, so none waiting: it must be running.
            _ = try ProcessStatistics.live(pid: agent.pid)
            var waiting = ProcessStatistics.threadsWaitingWithTimeout(pid: agent.pid)
            if !waiting.isEmpty {
                // A thread may be waiting for a reply that is on its way (a slow notification
                // server); the dead timeout lasts 25 s. Only a thread still waiting later counts.
                try await Task.sleep(for: .seconds(2))
                let later = ProcessStatistics.threadsWaitingWithTimeout(pid: agent.pid)
                waiting = waiting.filter { later[$0.key] != nil }
            }
            _ = try ProcessStatistics.live(pid: agent.pid)
            try #require(agent.isRunning, "start \(start): the agent ended: \(agent.outputs())")
            #expect(waiting.isEmpty, "start \(start): threads asleep with a timeout: \(waiting)")
        }
    }
}
