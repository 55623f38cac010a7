import AlarmKit
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The agent costs nothing while it waits: no thread of it wakes up until something is due.
/// (A running timer is not waiting: its notification shows the time left, second by second.)
@Suite("Agent: idle", .onItsOwnThread, .serialized, .requires(Built.unavailable))
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
        // The calls' last aftermath is the store's checkpoint, a second after the last change:
        // it empties the write-ahead log (`wal_checkpoint(TRUNCATE)`).
        let log = fixture.sandbox.dataHome.appendingPathComponent("reveille/alarms.sqlite-wal").path
        try await waitUntil("the store's checkpoint to empty \(log)") {
            ((try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? nil) == 0 ? () : nil
        }
        // The engine is still on its way back from the checkpoint when the log reads empty.
        try await ProcessStatistics.waitUntilStill(pid: agent.pid)
        let before = ProcessStatistics(pid: agent.pid)
        try await Task.sleep(for: .seconds(3))
        let wakeUps = ProcessStatistics(pid: agent.pid).wakeUpsByThread(since: before).filter { $0.value != 0 }
        #expect(wakeUps.isEmpty, "threads that woke up: \(wakeUps)")
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
            var waiting = ProcessStatistics.threadsWaitingWithTimeout(pid: agent.pid)
            if !waiting.isEmpty {
                // A thread may be waiting for a reply that is on its way (a slow notification
                // server); the dead timeout lasts 25 s. Only a thread still waiting later counts.
                try await Task.sleep(for: .seconds(2))
                let later = ProcessStatistics.threadsWaitingWithTimeout(pid: agent.pid)
                waiting = waiting.filter { later[$0.key] != nil }
            }
            #expect(waiting.isEmpty, "start \(start): threads asleep with a timeout: \(waiting)")
        }
    }
}
