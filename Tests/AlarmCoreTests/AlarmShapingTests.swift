import AlarmCore
import AlarmModel
import AlarmRecords
import Foundation
import Testing
import TestRequirements
import TestSupport

/// Skipping a repeating alarm's next alert, turning alarms off and on, and an alarm's own ring
/// time-out, on the pure state machine.
@Suite("Skip, off and on, ring time-out", .onItsOwnThread)
struct AlarmShapingTests {
    let machine = AlarmStateMachine(policy: AlarmPolicy(graceWindow: 600, ringTimeout: 600))
    /// Monday 2026-06-01, noon UTC.
    let reading = ClockReading(
        now: Fixtures.instant("2026-06-01T12:00:00Z"), uptime: .seconds(10_000), bootID: "boot", timeZone: Fixtures.zone("UTC"))
    let id = UUID()

    /// A Monday-and-Friday 07:30 alarm scheduled at noon on Monday: next Friday 07:30.
    func weekly() throws -> AlarmRecord {
        let definition = Fixtures.definition(Fixtures.clockTime(7, 30, on: [.monday, .friday]), snooze: 300)
        return try #require(machine.schedule(id: id, owner: "user", definition: definition, at: reading).record)
    }

    func later(_ seconds: TimeInterval, than reading: ClockReading) -> ClockReading {
        ClockReading(
            now: reading.now.addingTimeInterval(seconds), uptime: reading.uptime + .seconds(seconds), bootID: reading.bootID,
            timeZone: reading.timeZone)
    }

    @Test("Skip moves a repeating alarm to the alert after the next, remembers the skipped one, and unskip puts it back")
    func skipAndUnskip() throws {
        let friday = Fixtures.instant("2026-06-05T07:30:00Z")
        let monday = Fixtures.instant("2026-06-08T07:30:00Z")
        let record = try weekly()
        #expect(record.phase == .scheduled(alertAt: friday))

        let skipped = try machine.handle(.skip, to: record, at: reading)
        let skipping = try #require(skipped.record)
        #expect(skipping.phase == .scheduled(alertAt: monday))
        #expect(skipping.skippedAlert == friday)
        #expect(skipping.pendingSkip(at: reading.now) == friday)
        #expect(skipped.actions.contains(.store(skipping)))
        #expect(skipped.actions.contains(.arm(id, .wall(monday))))

        // One at a time.
        #expect(throws: AlarmRequestError.operationNotAllowed(.skip, state: .scheduled)) {
            try machine.handle(.skip, to: skipping, at: reading)
        }
        // A zone change computes the alert again from the skipped one, not before it.
        let moved = try machine.handle(.timeZoneChanged, to: skipping, at: reading)
        #expect(moved.record?.phase == .scheduled(alertAt: monday))

        let restored = try machine.handle(.unskip, to: skipping, at: reading)
        #expect(restored.record?.phase == .scheduled(alertAt: friday))
        #expect(restored.record?.skippedAlert == nil)
        #expect(restored.actions.contains(.arm(id, .wall(friday))))
        // Nothing to restore: nothing changes.
        #expect(try machine.handle(.unskip, to: record, at: reading).actions.isEmpty)
    }

    @Test("The skipped alert never rings; the one after does, and forgets the skip")
    func skippedAlertDoesNotRing() throws {
        let monday = Fixtures.instant("2026-06-08T07:30:00Z")
        let skipping = try #require(try machine.handle(.skip, to: try weekly(), at: reading).record)
        // Friday 07:30 comes: the alarm's deadline is Monday, so nothing is due.
        let friday = later(Fixtures.instant("2026-06-05T07:30:00Z").timeIntervalSince(reading.now), than: reading)
        let onFriday = try machine.handle(.deadlineReached, to: skipping, at: friday)
        #expect(!onFriday.actions.contains { if case .presentAlert = $0 { true } else { false } })
        // After the skipped instant, unskip only forgets it.
        let forgotten = try machine.handle(.unskip, to: skipping, at: later(3_600, than: friday))
        #expect(forgotten.record?.skippedAlert == nil)
        #expect(forgotten.record?.phase == .scheduled(alertAt: monday))

        let onMonday = later(monday.timeIntervalSince(reading.now), than: reading)
        let rang = try machine.handle(.deadlineReached, to: skipping, at: onMonday)
        #expect(rang.actions.contains { if case .presentAlert = $0 { true } else { false } })
        #expect(rang.record?.skippedAlert == nil)
    }

    @Test("Skip is only for a repeating alarm waiting for its next alert")
    func skipRefused() throws {
        let once = try #require(
            try machine.schedule(
                id: id, owner: "user", definition: Fixtures.definition(Fixtures.clockTime(7, 30)), at: reading
            ).record)
        #expect(throws: AlarmRequestError.operationNotAllowed(.skip, state: .scheduled)) {
            try machine.handle(.skip, to: once, at: reading)
        }
        var ringing = try weekly()
        ringing.phase = .alerting(.init(scheduledAt: reading.now, startedAt: reading.now, timesOutAt: nil))
        #expect(throws: AlarmRequestError.operationNotAllowed(.skip, state: .alerting)) {
            try machine.handle(.skip, to: ringing, at: reading)
        }
        let timer = try #require(try machine.schedule(id: id, owner: "user", definition: Fixtures.timer(60), at: reading).record)
        #expect(throws: AlarmRequestError.operationNotAllowed(.skip, state: .countdown)) {
            try machine.handle(.skip, to: timer, at: reading)
        }
    }

    @Test("Off keeps the alarm with no deadline, so it never rings; on schedules its next alert from now")
    func offAndOn() throws {
        let record = try weekly()
        let off = try machine.handle(.turnOff, to: record, at: reading)
        let kept = try #require(off.record)
        #expect(!kept.definition.isEnabled)
        #expect(kept.deadline == nil)
        #expect(kept.fireDate(from: reading) == nil)
        #expect(off.actions.contains(.disarm(id)))
        #expect(off.actions.contains(.store(kept)))
        #expect(kept.definition.countdownDuration?.postAlert == 300, "it keeps its settings")
        // Already off: nothing changes.
        #expect(try machine.handle(.turnOff, to: kept, at: reading).actions.isEmpty)

        // Ten days on, nothing came due in between, and nothing counts as missed.
        let tenDays = later(10 * 86_400, than: reading)
        let quiet = try machine.handle(.deadlineReached, to: kept, at: tenDays)
        #expect(quiet.actions.isEmpty)
        let on = try machine.handle(.turnOn, to: kept, at: tenDays)
        // Thursday 2026-06-11 noon: next is Friday 06-12 07:30.
        #expect(on.record?.phase == .scheduled(alertAt: Fixtures.instant("2026-06-12T07:30:00Z")))
        #expect(on.record?.definition.isEnabled == true)
        #expect(on.actions.contains(.arm(id, .wall(Fixtures.instant("2026-06-12T07:30:00Z")))))
        #expect(!on.actions.contains { if case .recordHistory = $0 { true } else { false } })
    }

    @Test("Off is refused for timers and ringing alarms; on is refused for an instant that passed while off")
    func offAndOnRefused() throws {
        let timer = try #require(try machine.schedule(id: id, owner: "user", definition: Fixtures.timer(60), at: reading).record)
        #expect(throws: AlarmRequestError.operationNotAllowed(.turnOff, state: .countdown)) {
            try machine.handle(.turnOff, to: timer, at: reading)
        }
        var ringing = try weekly()
        ringing.phase = .alerting(.init(scheduledAt: reading.now, startedAt: reading.now, timesOutAt: nil))
        #expect(throws: AlarmRequestError.operationNotAllowed(.turnOff, state: .alerting)) {
            try machine.handle(.turnOff, to: ringing, at: reading)
        }

        let instant = Fixtures.definition(.fixed(reading.now.addingTimeInterval(60)))
        let once = try #require(try machine.schedule(id: id, owner: "user", definition: instant, at: reading).record)
        let off = try #require(try machine.handle(.turnOff, to: once, at: reading).record)
        #expect {
            try machine.handle(.turnOn, to: off, at: later(120, than: reading))
        } throws: { error in
            guard case .invalidConfiguration("schedule.fixed", _) = error as? AlarmRequestError else { return false }
            return true
        }
        // Still ahead: on again, at its instant.
        #expect(
            try machine.handle(.turnOn, to: off, at: later(30, than: reading)).record?.phase
                == .scheduled(alertAt: reading.now.addingTimeInterval(60)))
    }

    @Test("Off during the pre-alert countdown takes the countdown away; on within it starts it again")
    func offDuringCountdown() throws {
        let definition = Fixtures.definition(Fixtures.clockTime(12, 10), preAlert: 1_200)
        let record = try #require(try machine.schedule(id: id, owner: "user", definition: definition, at: reading).record)
        // 12:10 minus 20 minutes is already past: the countdown runs at once.
        let running = try #require(try machine.handle(.deadlineReached, to: record, at: reading).record)
        #expect(running.state == .countdown)
        let off = try machine.handle(.turnOff, to: running, at: reading)
        #expect(off.record?.phase == .scheduled(alertAt: Fixtures.instant("2026-06-01T12:10:00Z")))
        #expect(off.actions.contains(.endCountdown(id)))
        let on = try machine.handle(.turnOn, to: try #require(off.record), at: later(60, than: reading))
        #expect(on.record?.state == .countdown)
    }

    @Test("An alarm's own ring time-out replaces the agent's; 0 rings until answered")
    func ownRingTimeout() throws {
        func ringing(_ ringTimeout: TimeInterval?) throws -> AlarmRecord.Ringing? {
            var definition = Fixtures.timer(1)
            definition.ringTimeout = ringTimeout
            let record = try #require(try machine.schedule(id: id, owner: "user", definition: definition, at: reading).record)
            let due = try machine.handle(.deadlineReached, to: record, at: later(1, than: reading))
            guard case .alerting(let ringing) = due.record?.phase else { return nil }
            return ringing
        }
        let at = later(1, than: reading)
        #expect(try ringing(nil)?.timesOutAt?.remaining(from: at) == 600)
        #expect(try ringing(1_200)?.timesOutAt?.remaining(from: at) == 1_200)
        #expect(try #require(try ringing(0)).timesOutAt == nil)
    }

    @Test(
        "Volume, crescendo and ring time-out are checked and named",
        arguments: [
            ("volume", 101, nil, nil), ("volume", -1, nil, nil), ("soundRamp", nil, -1, nil), ("soundRamp", nil, 3_601, nil),
            ("ringTimeout", nil, nil, .nan), ("ringTimeout", nil, nil, 86_401),
        ] as [(String, Int?, TimeInterval?, TimeInterval?)])
    func soundSettingsValidated(field: String, volume: Int?, ramp: TimeInterval?, ringTimeout: TimeInterval?) {
        var definition = Fixtures.timer(60)
        definition.volume = volume
        definition.soundRamp = ramp
        definition.ringTimeout = ringTimeout
        #expect {
            try machine.schedule(id: id, owner: "user", definition: definition, at: reading)
        } throws: { error in
            guard case .invalidConfiguration(let named, _) = error as? AlarmRequestError else { return false }
            return named == field
        }
    }
}
