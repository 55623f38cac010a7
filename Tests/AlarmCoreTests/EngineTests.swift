import AlarmCore
import AlarmModel
import AlarmPresentation
import Foundation
import Synchronization
import Testing
import TestRequirements
import TestSupport

/// The engine with a virtual clock and the real store: alarms ring at their instants.
@Suite("Engine", .onItsOwnThread)
struct EngineTests {
    /// The instants at which alerts were presented, in order.
    func alertInstants(_ harness: EngineHarness) -> [Date] {
        harness.presenter.effects.compactMap {
            if case .alert(let record) = $0, case .alerting(let ringing) = record.phase { ringing.startedAt } else { nil }
        }
    }

    @Test("A weekday alarm rings at 07:30 local every weekday for a week across the DST change")
    func weekAcrossDST() async throws {
        let berlin = Fixtures.zone("Europe/Berlin")
        // Wednesday 2026-03-25, 12:00 local; DST begins Sunday 2026-03-29.
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-03-25T11:00:00Z"), timeZone: berlin)
        defer { Task { await harness.removeStore() } }
        let id = UUID()
        let weekdays: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday]
        try await harness.engine.schedule(
            id: id, definition: Fixtures.definition(Fixtures.clockTime(7, 30, on: weekdays)), caller: .user)

        let started = ContinuousClock.now
        var rang: [Date] = []
        for _ in 0..<(8 * 24 * 4) {
            try await harness.clock.advance(by: 900)
            if await harness.state(of: id) == .alerting {
                rang.append(harness.clock.now)
                try await harness.engine.stop(id: id, caller: .user)
            }
        }
        let elapsed = ContinuousClock.now - started
        // Thu 26, Fri 27 at 07:30 CET (06:30Z); Mon 30, Tue 31, Wed 1 at 07:30 CEST (05:30Z).
        let expected = [
            "2026-03-26T06:30:00Z", "2026-03-27T06:30:00Z", "2026-03-30T05:30:00Z",
            "2026-03-31T05:30:00Z", "2026-04-01T05:30:00Z", "2026-04-02T05:30:00Z",
        ].map(Fixtures.instant)
        #expect(alertInstants(harness) == expected, "each alert rang exactly at its instant")
        #expect(rang.count == 6)
        #expect(await harness.state(of: id) == .scheduled, "a repeating alarm is scheduled again after Stop")
        let history = try await harness.engine.history()
        #expect(history.count == 6)
        #expect(history.allSatisfy { $0.outcome == .stopped && $0.lateness == 0 })
        print("a week of a weekday alarm across DST took \(elapsed)")
    }

    @Test("The store's checkpoint gives way to an alarm or a countdown due within a quarter second")
    func checkpointGivesWay() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-06-01T12:00:00Z"))
        defer { Task { await harness.removeStore() } }
        #expect(try await harness.engine.checkpointStore(), "nothing due: it runs")
        let alarm = UUID()
        try await harness.engine.schedule(
            id: alarm, definition: Fixtures.definition(.fixed(harness.clock.now.addingTimeInterval(0.2))), caller: .user)
        #expect(try await harness.engine.checkpointStore() == false, "an alarm due in 0.2 s goes first")
        try await harness.clock.advance(by: 0.2)
        #expect(await harness.state(of: alarm) == .alerting)
        try await harness.engine.stop(id: alarm, caller: .user)
        #expect(try await harness.engine.checkpointStore(), "the alarm has rung: it runs")

        let timer = UUID()
        try await harness.engine.schedule(id: timer, definition: Fixtures.timer(0.1), caller: .user)
        #expect(try await harness.engine.checkpointStore() == false, "a countdown ending in 0.1 s goes first")
        try await harness.clock.advance(by: 5)
        #expect(await harness.state(of: timer) == .alerting)
        // The alert's own ring time-out is ten minutes away.
        #expect(try await harness.engine.checkpointStore())
    }

    @Test("A timer alerts after its duration; snooze counts down and alerts again; stop removes it")
    func timerSnoozeStop() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-06-01T12:00:00Z"))
        defer { Task { await harness.removeStore() } }
        let id = UUID()
        let record = try await harness.engine.schedule(id: id, definition: Fixtures.timer(300, snooze: 60), caller: .user)
        #expect(record.state == .countdown)
        try await harness.clock.advance(by: 299)
        #expect(await harness.state(of: id) == .countdown)
        try await harness.clock.advance(by: 1)
        #expect(await harness.state(of: id) == .alerting)

        try await harness.engine.countdown(id: id, caller: .user)
        #expect(await harness.state(of: id) == .countdown)
        try await harness.clock.advance(by: 59)
        #expect(await harness.state(of: id) == .countdown)
        try await harness.clock.advance(by: 1)
        #expect(await harness.state(of: id) == .alerting)
        #expect(alertInstants(harness) == [Fixtures.instant("2026-06-01T12:05:00Z"), Fixtures.instant("2026-06-01T12:06:00Z")])

        try await harness.engine.stop(id: id, caller: .user)
        #expect(await harness.state(of: id) == nil)
        let outcomes = try await harness.engine.history().map(\.outcome)
        #expect(outcomes == [.stopped, .snoozed])
    }

    @Test("A paused countdown keeps its elapsed time and resumes where it left off")
    func pauseResume() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-06-01T12:00:00Z"))
        defer { Task { await harness.removeStore() } }
        let id = UUID()
        try await harness.engine.schedule(id: id, definition: Fixtures.timer(600), caller: .user)
        try await harness.clock.advance(by: 200)
        try await harness.engine.pause(id: id, caller: .user)
        try await harness.clock.advance(by: 5_000)
        #expect(await harness.state(of: id) == .paused)
        try await harness.engine.resume(id: id, caller: .user)
        let reading = harness.clock.read()
        #expect(try await harness.engine.alarm(id: id, caller: .user).remaining(from: reading) == 400)
        try await harness.clock.advance(by: 399)
        #expect(await harness.state(of: id) == .countdown)
        try await harness.clock.advance(by: 1)
        #expect(await harness.state(of: id) == .alerting)
    }

    @Test("A refused request changes nothing, in memory or in the store")
    func refusedRequestChangesNothing() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-06-01T12:00:00Z"))
        defer { Task { await harness.removeStore() } }
        let id = UUID()
        try await harness.engine.schedule(id: id, definition: Fixtures.definition(Fixtures.clockTime(7, 30)), caller: .user)
        let before = try await harness.engine.alarm(id: id, caller: .user)
        await #expect(throws: AlarmRequestError.operationNotAllowed(.stop, state: .scheduled)) {
            try await harness.engine.stop(id: id, caller: .user)
        }
        await #expect(throws: AlarmRequestError.self) {
            try await harness.engine.schedule(id: id, definition: Fixtures.definition(Fixtures.clockTime(24, 0)), caller: .user)
        }
        await #expect(throws: AlarmRequestError.alarmNotFound(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!)) {
            try await harness.engine.cancel(id: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, caller: .user)
        }
        #expect(try await harness.engine.alarm(id: id, caller: .user) == before)
        let restarted = try await harness.restarted()
        #expect(await restarted.engine.alarms(visibleTo: .user) == [before])
    }

    @Test("Scheduling the same id again replaces the alarm, and ends the old one's alert")
    func replace() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-06-01T12:00:00Z"))
        defer { Task { await harness.removeStore() } }
        let id = UUID()
        try await harness.engine.schedule(id: id, definition: Fixtures.timer(10), caller: .user)
        try await harness.clock.advance(by: 10)
        #expect(await harness.state(of: id) == .alerting)
        try await harness.engine.schedule(id: id, definition: Fixtures.timer(60, title: "Tea"), caller: .user)
        let alarms = await harness.engine.alarms(visibleTo: .user)
        #expect(alarms.count == 1)
        #expect(alarms.first?.definition.title == "Tea")
        #expect(alarms.first?.state == .countdown)
        #expect(harness.presenter.effects.contains(.endAlert(id, .cancelled)))
    }

    @Test("An app sees and changes only its own alarms; the user sees all")
    func ownership() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-06-01T12:00:00Z"))
        defer { Task { await harness.removeStore() } }
        let mine = UUID(), theirs = UUID()
        try await harness.engine.schedule(id: mine, definition: Fixtures.timer(60), caller: .app("org.example.A"))
        try await harness.engine.schedule(id: theirs, definition: Fixtures.timer(60), caller: .app("org.example.B"))
        #expect(await harness.engine.alarms(visibleTo: .app("org.example.A")).map(\.id) == [mine])
        await #expect(throws: AlarmRequestError.alarmNotFound(theirs)) {
            try await harness.engine.cancel(id: theirs, caller: .app("org.example.A"))
        }
        await #expect(throws: AlarmRequestError.alarmNotFound(theirs)) {
            try await harness.engine.schedule(id: theirs, definition: Fixtures.timer(5), caller: .app("org.example.A"))
        }
        #expect(await harness.engine.alarms(visibleTo: .user).count == 2)
        try await harness.engine.cancel(id: theirs, caller: .user)
        #expect(await harness.engine.alarms(visibleTo: .app("org.example.B")).isEmpty)
    }

    @Test("The per-owner limit gives maximumLimitReached; other owners and replacements are not counted")
    func limit() async throws {
        let harness = try await EngineHarness.start(
            now: Fixtures.instant("2026-06-01T12:00:00Z"), policy: AlarmPolicy(maximumAlarmsPerOwner: 3))
        defer { Task { await harness.removeStore() } }
        var ids: [UUID] = []
        for _ in 0..<3 {
            let id = UUID()
            ids.append(id)
            try await harness.engine.schedule(id: id, definition: Fixtures.timer(60), caller: .app("a"))
        }
        await #expect(throws: AlarmManager.AlarmError.maximumLimitReached) {
            try await harness.engine.schedule(id: UUID(), definition: Fixtures.timer(60), caller: .app("a"))
        }
        try await harness.engine.schedule(id: ids[0], definition: Fixtures.timer(90), caller: .app("a"))
        try await harness.engine.schedule(id: UUID(), definition: Fixtures.timer(60), caller: .app("b"))
        #expect(await harness.engine.count == 4)
    }

    @Test("Fifty alarms alert at the same instant; each stops on its own")
    func manyAtOnce() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-06-01T12:00:00Z"))
        defer { Task { await harness.removeStore() } }
        let at = Fixtures.instant("2026-06-01T13:00:00Z")
        let ids = (0..<50).map { _ in UUID() }
        for id in ids {
            try await harness.engine.schedule(id: id, definition: Fixtures.definition(.fixed(at)), caller: .user)
        }
        try await harness.clock.advance(to: at)
        #expect(Set(harness.presenter.alerted) == Set(ids))
        #expect(alertInstants(harness).allSatisfy { $0 == at })
        try await harness.engine.stop(id: ids[0], caller: .user)
        #expect(harness.presenter.effects.filter { if case .endAlert = $0 { true } else { false } } == [.endAlert(ids[0], .stopped)])
        let states = await harness.engine.alarms(visibleTo: .user).map(\.state)
        #expect(states.count == 49)
        #expect(states.allSatisfy { $0 == .alerting })
    }

    @Test("An unanswered alert times out after the ring time-out")
    func ringTimeout() async throws {
        let harness = try await EngineHarness.start(
            now: Fixtures.instant("2026-06-01T12:00:00Z"), policy: AlarmPolicy(ringTimeout: 600))
        defer { Task { await harness.removeStore() } }
        let id = UUID()
        try await harness.engine.schedule(id: id, definition: Fixtures.timer(60), caller: .user)
        try await harness.clock.advance(by: 60 + 599)
        #expect(await harness.state(of: id) == .alerting)
        try await harness.clock.advance(by: 1)
        #expect(await harness.state(of: id) == nil)
        #expect(harness.presenter.effects.contains(.endAlert(id, .timedOut)))
        #expect(try await harness.engine.history().first?.outcome == .timedOut)
    }

    @Test("alarmUpdates publishes the whole list after every change; a gone alarm is absent", .timeLimit(.minutes(2)))
    func updates() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-06-01T12:00:00Z"))
        defer { Task { await harness.removeStore() } }
        var iterator = await harness.engine.updates(visibleTo: .user).makeAsyncIterator()
        #expect(await iterator.next()?.isEmpty == true)
        let id = UUID()
        try await harness.engine.schedule(id: id, definition: Fixtures.timer(60), caller: .user)
        #expect(await iterator.next()?.map(\.state) == [.countdown])
        try await harness.clock.advance(by: 60)
        #expect(await iterator.next()?.map(\.state) == [.alerting])
        try await harness.engine.stop(id: id, caller: .user)
        #expect(await iterator.next()?.isEmpty == true)
    }

    @Test("The change observer hears of every alarm at once, then of each change before the call that made it returns")
    func changeObserver() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-05-04T08:00:00Z"))
        defer { Task { await harness.removeStore() } }
        let (first, second) = (UUID(), UUID())
        try await harness.engine.schedule(id: first, definition: Fixtures.timer(600), caller: .user)
        let heard = Mutex<[AlarmChange]>([])
        let transactions = Mutex(0)
        await harness.engine.observeChanges { changes in
            heard.withLock { $0.append(contentsOf: changes) }
            transactions.withLock { $0 += 1 }
        }
        #expect(heard.withLock { $0.map(\.id) } == [first], "the alarm there is, as updated, at once")

        try await harness.engine.schedule(id: second, definition: Fixtures.timer(60), caller: .user)
        #expect(heard.withLock { $0.last } == .updated(try await harness.engine.alarm(id: second, caller: .user)))
        try await harness.engine.pause(id: second, caller: .user)
        #expect(heard.withLock { $0.last?.id == second && $0.last?.state == .paused })
        let paused = try await harness.engine.alarm(id: second, caller: .user)
        try await harness.engine.cancel(id: second, caller: .user)
        #expect(heard.withLock { $0.last } == .removed(paused), "a cancelled alarm is removed, with its last record")

        // A deadline's change is heard too: the timer alerts.
        try await harness.clock.advance(by: 601)
        try await harness.clock.settled()
        #expect(heard.withLock { $0.last?.id == first && $0.last?.state == .alerting })
        #expect(heard.withLock { $0.count } == 5, "one change each, nothing repeated: \(heard.withLock { $0 })")
        #expect(transactions.withLock { $0 } == 5, "one call per stored change")
        // A refused request tells nothing.
        await #expect(throws: AlarmRequestError.self) { try await harness.engine.stop(id: second, caller: .user) }
        #expect(heard.withLock { $0.count } == 5)
    }

}

/// What happens to alerts whose instant passed while nothing ran.
@Suite("Missed alerts", .onItsOwnThread)
struct MissedAlertTests {
    @Test("An alert late by no more than the grace window rings at once on start")
    func withinGrace() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-06-01T07:00:00Z"))
        let id = UUID()
        try await harness.engine.schedule(id: id, definition: Fixtures.definition(Fixtures.clockTime(7, 30)), caller: .user)
        await harness.engine.shutdown()
        harness.clock.suspend(for: 35 * 60)  // nothing runs until 07:35
        let restarted = try await harness.restarted()
        defer { Task { await restarted.removeStore() } }
        #expect(await restarted.state(of: id) == .alerting)
        let entry = try #require(try await restarted.engine.history().first)
        #expect(entry.scheduledAt == Fixtures.instant("2026-06-01T07:30:00Z"))
        #expect(entry.alertedAt == Fixtures.instant("2026-06-01T07:35:00Z"))
        #expect(entry.lateness == 300)
    }

    @Test("Beyond the grace window a one-shot alarm is recorded as missed and removed")
    func oneShotMissed() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-06-01T07:00:00Z"))
        let id = UUID()
        try await harness.engine.schedule(id: id, definition: Fixtures.definition(Fixtures.clockTime(7, 30)), caller: .user)
        await harness.engine.shutdown()
        harness.clock.suspend(for: 60 * 60)
        let restarted = try await harness.restarted()
        defer { Task { await restarted.removeStore() } }
        #expect(await restarted.state(of: id) == nil)
        #expect(restarted.presenter.alerted.isEmpty, "a missed alert does not ring")
        let entry = try #require(try await restarted.engine.history().first)
        #expect(entry.outcome == .missed)
        #expect(entry.count == 1)
        #expect(restarted.presenter.effects.contains { if case .missed(_, 1) = $0 { true } else { false } })
    }

    @Test("Several missed days of a repeating alarm are recorded once, with their count; today's still rings")
    func repeatingMissedDays() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-06-01T07:00:00Z"))
        let id = UUID()
        try await harness.engine.schedule(
            id: id, definition: Fixtures.definition(Fixtures.clockTime(7, 30, on: Locale.Weekday.sundayFirst)), caller: .user)
        await harness.engine.shutdown()
        harness.clock.suspend(for: 3 * 86_400 + 35 * 60)  // back on June 4th at 07:35
        let restarted = try await harness.restarted()
        defer { Task { await restarted.removeStore() } }
        #expect(await restarted.state(of: id) == .alerting)
        let history = try await restarted.engine.history()
        let missed = try #require(history.first { $0.outcome == .missed })
        #expect(missed.count == 3)
        #expect(missed.scheduledAt == Fixtures.instant("2026-06-01T07:30:00Z"))
        let ringing = try #require(history.first { $0.outcome == nil })
        #expect(ringing.scheduledAt == Fixtures.instant("2026-06-04T07:30:00Z"))
    }

    @Test("A repeating alarm missed beyond the grace window moves to its next day")
    func repeatingMovesOn() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-06-01T07:00:00Z"))
        let id = UUID()
        try await harness.engine.schedule(
            id: id, definition: Fixtures.definition(Fixtures.clockTime(7, 30, on: Locale.Weekday.sundayFirst)), caller: .user)
        await harness.engine.shutdown()
        harness.clock.suspend(for: 2 * 3600)
        let restarted = try await harness.restarted()
        defer { Task { await restarted.removeStore() } }
        let record = try await restarted.engine.alarm(id: id, caller: .user)
        #expect(record.phase == .scheduled(alertAt: Fixtures.instant("2026-06-02T07:30:00Z")))
        #expect(try await restarted.engine.history().map(\.outcome) == [.missed])
    }

    @Test("A timer that ended while the agent was down beyond grace is missed; within grace it rings")
    func timerWhileDown() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-06-01T07:00:00Z"))
        let short = UUID(), long = UUID()
        try await harness.engine.schedule(id: short, definition: Fixtures.timer(60 * 55), caller: .user)
        try await harness.engine.schedule(id: long, definition: Fixtures.timer(60 * 5), caller: .user)
        await harness.engine.shutdown()
        harness.clock.suspend(for: 60 * 60)
        let restarted = try await harness.restarted()
        defer { Task { await restarted.removeStore() } }
        #expect(await restarted.state(of: short) == .alerting)
        #expect(await restarted.state(of: long) == nil)
    }
}

/// Clock sets, suspend and time-zone changes.
@Suite("Clock changes", .onItsOwnThread)
struct ClockChangeTests {
    @Test("A clock-time alarm follows the time zone; a fixed one keeps its instant; a timer keeps its time")
    func timeZoneChange() async throws {
        let harness = try await EngineHarness.start(
            now: Fixtures.instant("2026-06-01T20:00:00Z"), timeZone: Fixtures.zone("Europe/Berlin"))
        defer { Task { await harness.removeStore() } }
        let relative = UUID(), fixed = UUID(), timer = UUID()
        let instant = Fixtures.instant("2026-06-02T12:00:00Z")
        try await harness.engine.schedule(id: relative, definition: Fixtures.definition(Fixtures.clockTime(7, 30)), caller: .user)
        try await harness.engine.schedule(id: fixed, definition: Fixtures.definition(.fixed(instant)), caller: .user)
        try await harness.engine.schedule(id: timer, definition: Fixtures.timer(600), caller: .user)
        #expect(
            try await harness.engine.alarm(id: relative, caller: .user).phase
                == .scheduled(alertAt: Fixtures.instant("2026-06-02T05:30:00Z")))

        harness.clock.setTimeZone(Fixtures.zone("America/New_York"))
        await harness.engine.timeZoneChanged()
        #expect(
            try await harness.engine.alarm(id: relative, caller: .user).phase
                == .scheduled(alertAt: Fixtures.instant("2026-06-02T11:30:00Z")))
        #expect(try await harness.engine.alarm(id: fixed, caller: .user).phase == .scheduled(alertAt: instant))
        #expect(try await harness.engine.alarm(id: timer, caller: .user).remaining(from: harness.clock.read()) == 600)
    }

    @Test("Setting the clock forward past an alarm misses it; a timer still ends on elapsed time")
    func clockSet() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-06-01T12:00:00Z"))
        defer { Task { await harness.removeStore() } }
        let alarm = UUID(), timer = UUID()
        try await harness.engine.schedule(
            id: alarm, definition: Fixtures.definition(.fixed(Fixtures.instant("2026-06-01T13:00:00Z"))), caller: .user)
        try await harness.engine.schedule(id: timer, definition: Fixtures.timer(600), caller: .user)
        try await harness.clock.setWallClock(to: Fixtures.instant("2026-06-01T15:00:00Z"))
        #expect(await harness.state(of: alarm) == nil)
        #expect(try await harness.engine.history().first?.outcome == .missed)
        #expect(await harness.state(of: timer) == .countdown)
        try await harness.clock.advance(by: 599)
        #expect(await harness.state(of: timer) == .countdown)
        try await harness.clock.advance(by: 1)
        #expect(await harness.state(of: timer) == .alerting)
    }

    @Test(
        "A wake-up whose timers cannot be made is tried again until it is armed, said meanwhile, and the alarm rings on time",
        .timeLimit(.minutes(1)))
    func wakeTimerRetried() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-06-01T12:00:00Z"))
        defer { Task { await harness.removeStore() } }
        struct OutOfDescriptors: Error, CustomStringConvertible {
            var description: String { "timerfd_create: Too many open files" }
        }
        harness.clock.failWaits(with: OutOfDescriptors())
        let timer = UUID()
        try await harness.engine.schedule(id: timer, definition: Fixtures.timer(5), caller: .user)
        // Three attempts take 50 + 100 ms of retry delays.
        var trouble = await harness.engine.wakeTimerTrouble
        try await waitUntil(
            "three attempts to arm the wake-up", every: .milliseconds(20), detail: { "trouble: \(String(describing: trouble))" }
        ) {
            trouble = await harness.engine.wakeTimerTrouble
            return (trouble?.attempts ?? 0) >= 3 ? () : nil
        }
        #expect(trouble?.reason == "timerfd_create: Too many open files")
        if let trouble {
            // What `reveille status` shows on its `timer` line meanwhile.
            #expect(
                trouble.sentence(at: trouble.since.addingTimeInterval(2))
                    == "not armed: timerfd_create: Too many open files; trying again (\(trouble.attempts) attempts in 2 s)")
        }

        // Armed again, the trouble is over (the engine hears of the arming on a task of its own).
        harness.clock.stopFailingWaits()
        try await harness.clock.settled()
        try await waitUntil("the wake-up to be armed again", every: .milliseconds(10)) {
            await harness.engine.wakeTimerTrouble == nil ? () : nil
        }
        try await harness.clock.advance(by: 4.9)
        #expect(await harness.state(of: timer) == .countdown)
        try await harness.clock.advance(by: 0.1)
        #expect(await harness.state(of: timer) == .alerting)
    }

    @Test("Setting the clock back leaves an instant where it was")
    func clockSetBack() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-06-01T12:00:00Z"))
        defer { Task { await harness.removeStore() } }
        let id = UUID()
        let at = Fixtures.instant("2026-06-01T13:00:00Z")
        try await harness.engine.schedule(id: id, definition: Fixtures.definition(.fixed(at)), caller: .user)
        try await harness.clock.setWallClock(to: Fixtures.instant("2026-06-01T10:00:00Z"))
        try await harness.clock.advance(by: 3 * 3600 - 1)
        #expect(await harness.state(of: id) == .scheduled)
        try await harness.clock.advance(by: 1)
        #expect(await harness.state(of: id) == .alerting)
    }

    @Test("Countdowns count through suspend; a timer that ended during suspend alerts on resume")
    func suspend() async throws {
        let harness = try await EngineHarness.start(now: Fixtures.instant("2026-06-01T12:00:00Z"))
        defer { Task { await harness.removeStore() } }
        let id = UUID()
        try await harness.engine.schedule(id: id, definition: Fixtures.timer(600), caller: .user)
        harness.clock.suspend(for: 300)
        await harness.engine.resumedFromSuspend()
        #expect(try await harness.engine.alarm(id: id, caller: .user).remaining(from: harness.clock.read()) == 300)
        harness.clock.suspend(for: 400)
        await harness.engine.resumedFromSuspend()
        #expect(await harness.state(of: id) == .alerting)
    }
}

/// A whole day of alarms through the things that go wrong with time.
@Suite("Engine: a day with DST, clock steps, a suspend and a time-zone change", .onItsOwnThread)
struct DayOfTimeTests {
    @Test("No alert is missed and none rings early")
    func day() async throws {
        let result = try await DaySimulation().run()
        #expect(result.alerts > 150, "\(result)")
        #expect(result.missed.isEmpty, "\(result.missed.prefix(10))")
        #expect(result.early.isEmpty, "\(result.early.prefix(10))")
    }
}

extension AlarmChange {
    /// The alarm the change is about.
    var id: UUID {
        switch self {
        case .updated(let record), .removed(let record): record.id
        }
    }

    /// The alarm's state after the change (`nil` once removed).
    var state: Alarm.State? {
        switch self {
        case .updated(let record): record.state
        case .removed: nil
        }
    }
}

/// A presenter that, when an alert ends, reads what the store holds for that alarm through a
/// connection of its own: whether the alert was silenced before or after its end was stored.
final class StoreReadingPresenter: AlarmPresenter {
    let directory: URL
    /// Every effect, in order.
    let effects = Mutex<[PresentationEffect]>([])
    /// The stored state of each alarm whose alert ended, read as it ended (nil: not stored).
    let storedWhenEnded = Mutex<[UUID: Alarm.State?]>([:])

    init(directory: URL) { self.directory = directory }

    func perform(_ effect: PresentationEffect) {
        effects.withLock { $0.append(effect) }
        if case .endAlert(let id, _) = effect {
            let stored = try? AlarmStore(directory: directory).loadAlarms().first { $0.id == id }?.state
            storedWhenEnded.withLock { $0[id] = stored }
        }
    }
}

/// A switch that makes a store's writes fail while it is on.
final class StoreFault: Sendable {
    let on = Mutex(false)
}

@Suite("Engine: ending a ringing alert", .onItsOwnThread)
struct EndingAlertTests {
    /// An engine over a store in `directory` whose writes fail while `failing` is set.
    static func start(
        at now: Date, directory: URL, clock: VirtualClock? = nil, failing: StoreFault? = nil
    ) async throws -> (AlarmEngine, VirtualClock, StoreReadingPresenter) {
        let clock = clock ?? VirtualClock(now: now, timeZone: .utc)
        let presenter = StoreReadingPresenter(directory: directory)
        let store = try AlarmStore(
            directory: directory,
            faultInjector: { _ in
                if failing?.on.withLock({ $0 }) == true { throw CocoaError(.fileWriteOutOfSpace) }
            })
        let engine = AlarmEngine(store: store, clock: clock, policy: AlarmPolicy(), presenter: presenter)
        try await engine.start()
        try await clock.settled()
        return (engine, clock, presenter)
    }

    @Test("Stop silences the alert before its end is stored: no fsync between Stop and silence")
    func silencedBeforeStored() async throws {
        let directory = Fixtures.temporaryDirectory("reveille-ending")
        defer { try? FileManager.default.removeItem(at: directory) }
        let now = Fixtures.instant("2026-06-01T07:00:00Z")
        let (engine, clock, presenter) = try await Self.start(at: now, directory: directory)
        let id = UUID()
        try await engine.schedule(id: id, definition: Fixtures.definition(.fixed(now.addingTimeInterval(60))), caller: .user)
        try await clock.advance(by: 60)
        #expect(try await engine.alarm(id: id, caller: .user).state == .alerting)
        try await engine.stop(id: id, caller: .user)
        #expect(presenter.storedWhenEnded.withLock { $0[id] } == .some(.alerting), "silenced while still stored as ringing")
        #expect(try AlarmStore(directory: directory).loadAlarms().isEmpty, "then the stop was stored: the one-shot alarm is gone")
        await engine.shutdown()
    }

    @Test("A Stop the store cannot keep still silences the alert; the caller hears why, and a restart rings it again")
    func silencedWhenNotStored() async throws {
        let directory = Fixtures.temporaryDirectory("reveille-ending")
        defer { try? FileManager.default.removeItem(at: directory) }
        let now = Fixtures.instant("2026-06-01T07:00:00Z")
        let failing = StoreFault()
        let (engine, clock, presenter) = try await Self.start(at: now, directory: directory, failing: failing)
        let ringing = UUID()
        let later = UUID()
        try await engine.schedule(id: ringing, definition: Fixtures.definition(.fixed(now.addingTimeInterval(60))), caller: .user)
        try await clock.advance(by: 60)
        #expect(try await engine.alarm(id: ringing, caller: .user).state == .alerting)

        failing.on.withLock { $0 = true }
        // A change that ends no alert changes nothing when it cannot be stored.
        await #expect(throws: (any Error).self) {
            try await engine.schedule(id: later, definition: Fixtures.definition(.fixed(now.addingTimeInterval(3_600))), caller: .user)
        }
        await #expect(throws: AlarmRequestError.alarmNotFound(later)) { try await engine.alarm(id: later, caller: .user) }
        // Stop is carried out all the same.
        let error = await #expect(throws: AlertEndedNotStored.self) { try await engine.stop(id: ringing, caller: .user) }
        #expect(error?.id == ringing)
        #expect(presenter.effects.withLock { $0.contains(.endAlert(ringing, .stopped)) }, "silenced")
        #expect(await engine.alarms(visibleTo: .user).isEmpty, "the agent shows it ended")

        // Stored as ringing still: after a restart within the grace window it rings again.
        failing.on.withLock { $0 = false }
        await engine.shutdown()
        let (restarted, _, _) = try await Self.start(at: now, directory: directory, clock: clock)
        #expect(try await restarted.alarm(id: ringing, caller: .user).state == .alerting)
        await restarted.shutdown()
    }
}
