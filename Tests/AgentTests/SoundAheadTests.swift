@testable import AlarmAgent
import AlarmModel
import AlarmRecords
import Foundation
import Synchronization
import Testing
import TestRequirements
import TestSupport

/// Opening an alert's sound a lead before it is due, on the virtual clock: when it is opened,
/// for which alarms, and when what was opened is let go.
@Suite("Agent: the alert's sound opened ahead", .onItsOwnThread)
struct SoundAheadTests {
    static let t0 = Fixtures.instant("2026-06-01T06:00:00Z")

    /// The sounds' side as `SoundAhead` drives it: what it was asked to open and to let go.
    final class RecordingSounds: AlertSoundPreparing {
        let opened = Mutex<[(ids: [UUID], due: Date)]>([])
        let released = Mutex<[Date]>([])
        func prepareAhead(_ records: [AlarmRecord], due: Date) { opened.withLock { $0.append((records.map(\.id), due)) } }
        func releaseAhead(notDueBy date: Date, now: Date) { released.withLock { $0.append(date) } }
    }

    /// An alarm scheduled at `instant`.
    static func alarm(at instant: Date) -> AlarmRecord {
        AlarmRecord(
            id: UUID(), owner: "user", definition: Fixtures.definition(.fixed(instant)), phase: .scheduled(alertAt: instant),
            anchor: t0)
    }

    /// A sound-ahead on a virtual clock at `t0`, whose engine has `alarms`; and a task waiting far
    /// ahead on the clock, as the engine always does, so that the clock moves on.
    static func make(alarms: [AlarmRecord]) -> (VirtualClock, RecordingSounds, SoundAhead, Task<Void, Never>) {
        let clock = VirtualClock(now: t0)
        let sounds = RecordingSounds()
        let ahead = SoundAhead(clock: clock, sounds: [sounds]) { instant in
            alarms.filter { $0.fireDate(from: clock.read()) == instant }
        }
        let engine = Task { _ = try? await clock.wait(for: WakeUp(wall: t0.addingTimeInterval(86_400))) }
        return (clock, sounds, ahead, engine)
    }

    @Test("The sounds of the alarms due at the deadline are opened 5 s before it, not before; the same deadline again opens nothing more")
    func openedAtTheLead() async throws {
        let instant = Self.t0.addingTimeInterval(60)
        let due = [Self.alarm(at: instant), Self.alarm(at: instant)]
        let (clock, sounds, ahead, engine) = Self.make(alarms: due + [Self.alarm(at: instant.addingTimeInterval(60))])
        defer { engine.cancel(); ahead.stop() }

        ahead.request(instant)
        try await clock.advance(by: 54.9)
        try await Task.sleep(for: .milliseconds(100))
        #expect(sounds.opened.withLock { $0.isEmpty }, "opened before the lead")
        try await clock.advance(by: 0.1)
        try await WakeAheadTests.eventually("opened 5 s ahead") { sounds.opened.withLock { $0.count } == 1 }
        let opened = try #require(sounds.opened.withLock { $0.first })
        #expect(Set(opened.ids) == Set(due.map(\.id)), "only the alarms due at that deadline")
        #expect(opened.due == instant)

        ahead.request(instant)
        try await clock.advance(by: 1)
        try await Task.sleep(for: .milliseconds(100))
        #expect(sounds.opened.withLock { $0.count } == 1)
    }

    @Test(
        "A new deadline lets go of what was opened for a later one, and opens the new one's alarms at its own lead; none lets go of all not yet due"
    )
    func letGoOnAChange() async throws {
        let later = Self.t0.addingTimeInterval(60)
        let sooner = Self.t0.addingTimeInterval(30)
        let (clock, sounds, ahead, engine) = Self.make(alarms: [Self.alarm(at: later), Self.alarm(at: sooner)])
        defer { engine.cancel(); ahead.stop() }

        ahead.request(later)
        #expect(sounds.released.withLock { $0 } == [later])
        // An alarm set sooner: the later one's lead is not waited for any more.
        ahead.request(sooner)
        #expect(sounds.released.withLock { $0 } == [later, sooner])
        try await clock.advance(by: 25)
        try await WakeAheadTests.eventually("the sooner alarm opened") { sounds.opened.withLock { $0.count } == 1 }
        #expect(sounds.opened.withLock { $0.first?.due } == sooner)
        try await clock.advance(by: 35)
        try await Task.sleep(for: .milliseconds(100))
        #expect(sounds.opened.withLock { $0.count } == 1, "the later alarm's lead passed after it was no longer the deadline")
        // Nothing to wait for: what is not yet due is let go (the clock reads now).
        ahead.request(nil)
        #expect(sounds.released.withLock { $0.last } == clock.read().now)
    }

    @Test("After a suspend past the lead (a wake that came late), the sound is opened at the resume")
    func openedAtTheResume() async throws {
        let instant = Self.t0.addingTimeInterval(300)
        let alarm = Self.alarm(at: instant)
        let (clock, sounds, ahead, engine) = Self.make(alarms: [alarm])
        defer { engine.cancel(); ahead.stop() }

        ahead.request(instant)
        // The engine's wait and the sound-ahead's: the suspend comes after the lead was armed.
        try await clock.settled(waiters: 2)
        clock.suspend(for: 297)
        try await Task.sleep(for: .milliseconds(100))
        #expect(sounds.opened.withLock { $0.isEmpty })
        try await clock.advance(by: 0.001)
        try await WakeAheadTests.eventually("opened at the resume, 3 s before the instant") { sounds.opened.withLock { $0.count } == 1 }
        #expect(sounds.opened.withLock { $0.first?.ids } == [alarm.id])
    }
}
