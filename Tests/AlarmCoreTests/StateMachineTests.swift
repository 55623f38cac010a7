import AlarmCore
import AlarmModel
import AlarmRecords
import Foundation
import Testing
import TestRequirements
import TestSupport

/// Every transition of AlarmKit's life cycle, valid and invalid, on the pure state machine.
@Suite("State machine", .onItsOwnThread)
struct StateMachineTests {
    let machine = AlarmStateMachine(policy: AlarmPolicy(graceWindow: 600, ringTimeout: 600))
    let reading = ClockReading(
        now: Fixtures.instant("2026-06-01T12:00:00Z"), uptime: .seconds(10_000), bootID: "boot", timeZone: Fixtures.zone("UTC"))
    let id = UUID()

    /// A record in each state, with a post-alert duration so `countdown` can be valid.
    func record(in state: Alarm.State, repeating: Bool = false) -> AlarmRecord {
        let schedule = repeating ? Fixtures.clockTime(7, 30, on: [.monday, .friday]) : Fixtures.clockTime(7, 30)
        let definition = Fixtures.definition(schedule, snooze: 300)
        let phase: AlarmRecord.Phase
        switch state {
        case .scheduled:
            phase = .scheduled(alertAt: reading.now.addingTimeInterval(3600))
        case .countdown:
            phase = .countdown(.init(kind: .postAlert, endsAt: reading.elapsedDeadline(after: 120), duration: 300))
        case .paused:
            phase = .paused(.init(kind: .postAlert, remaining: 120, duration: 300))
        case .alerting:
            phase = .alerting(.init(scheduledAt: reading.now, startedAt: reading.now, timesOutAt: reading.elapsedDeadline(after: 600)))
        }
        return AlarmRecord(id: id, owner: "user", definition: definition, phase: phase, anchor: reading.now.addingTimeInterval(-60))
    }

    static let allowed: [AlarmStateMachine.Event: Set<Alarm.State>] = [
        .cancel: Set(Alarm.State.allCases),
        .pause: [.countdown],
        .resume: [.paused],
        .stop: [.alerting],
        .countdown: [.alerting],
        .snooze(120): [.alerting],
    ]

    @Test(
        "Requests the state does not allow throw a typed error naming both, and change nothing",
        arguments: [AlarmStateMachine.Event.cancel, .pause, .resume, .stop, .countdown, .snooze(120)], Alarm.State.allCases)
    func everyRequestInEveryState(event: AlarmStateMachine.Event, state: Alarm.State) throws {
        let before = record(in: state)
        if Self.allowed[event]!.contains(state) {
            let transition = try machine.handle(event, to: before, at: reading)
            #expect(transition.actions.contains { $0.isDurable }, "an allowed request is stored")
        } else {
            // A snooze for a chosen time is a countdown, as far as the alarm's state goes.
            let operation: AlarmOperation = if case .snooze = event { .countdown } else { AlarmOperation(rawValue: "\(event)")! }
            #expect(throws: AlarmRequestError.operationNotAllowed(operation, state: state)) {
                try machine.handle(event, to: before, at: reading)
            }
        }
    }

    @Test("The refusal message names the operation and the state")
    func refusalMessage() {
        let error = AlarmRequestError.operationNotAllowed(.pause, state: .scheduled)
        #expect(error.description == "cannot pause an alarm that is scheduled (only when counting down)")
    }

    @Test("Cancel removes the alarm from every state and ends what it showed")
    func cancel() throws {
        for state in Alarm.State.allCases {
            let transition = try machine.handle(.cancel, to: record(in: state), at: reading)
            #expect(transition.record == nil)
            #expect(transition.actions.contains(.delete(id)))
            switch state {
            case .alerting: #expect(transition.actions.contains(.endAlert(id, .cancelled)))
            case .countdown, .paused: #expect(transition.actions.contains(.endCountdown(id)))
            case .scheduled: #expect(!transition.actions.contains { if case .endAlert = $0 { true } else { false } })
            }
        }
    }

    @Test("Pause keeps the time left; resume counts the rest from now")
    func pauseAndResume() throws {
        let paused = try machine.handle(.pause, to: record(in: .countdown), at: reading)
        guard case .paused(let held) = paused.record?.phase else { Issue.record("not paused"); return }
        #expect(held.remaining == 120)
        #expect(paused.actions.contains(.disarm(id)))

        var later = reading
        later.uptime += .seconds(5_000)
        later.now = later.now.addingTimeInterval(5_000)
        let resumed = try machine.handle(.resume, to: paused.record!, at: later)
        guard case .countdown(let running) = resumed.record?.phase else { Issue.record("not counting down"); return }
        #expect(running.endsAt.remaining(from: later) == 120)
    }

    @Test("Stopping a one-shot alarm removes it; stopping a repeating one schedules its next day")
    func stop() throws {
        let oneShot = try machine.handle(.stop, to: record(in: .alerting), at: reading)
        #expect(oneShot.record == nil)
        #expect(oneShot.actions.contains(.recordHistory(.alertEnded(alarmID: id, outcome: .stopped, at: reading.now))))

        // 2026-06-01 is a Monday; the next Monday-or-Friday 07:30 after noon is Friday the 5th.
        let repeating = try machine.handle(.stop, to: record(in: .alerting, repeating: true), at: reading)
        #expect(repeating.record?.phase == .scheduled(alertAt: Fixtures.instant("2026-06-05T07:30:00Z")))
    }

    @Test("Countdown from an alert runs the post-alert duration; without one it is refused")
    func snooze() throws {
        let snoozed = try machine.handle(.countdown, to: record(in: .alerting), at: reading)
        guard case .countdown(let running) = snoozed.record?.phase else { Issue.record("not counting down"); return }
        #expect(running.kind == .postAlert)
        #expect(running.endsAt.remaining(from: reading) == 300)
        #expect(snoozed.actions.contains(.endAlert(id, .snoozed)))

        var plain = record(in: .alerting)
        plain.definition = Fixtures.definition(Fixtures.clockTime(7, 30))
        #expect(throws: AlarmRequestError.noPostAlertDuration(id)) {
            try machine.handle(.countdown, to: plain, at: reading)
        }
    }

    @Test("Snooze for a chosen time counts that down instead of the post-alert duration, even without one")
    func snoozeForChosenTime() throws {
        let snoozed = try machine.handle(.snooze(1_200), to: record(in: .alerting), at: reading)
        guard case .countdown(let running) = snoozed.record?.phase else { Issue.record("not counting down"); return }
        #expect(running.kind == .postAlert)
        #expect(running.duration == 1_200)
        #expect(running.endsAt.remaining(from: reading) == 1_200)
        #expect(snoozed.actions.contains(.endAlert(id, .snoozed)))
        #expect(snoozed.actions.contains(.recordHistory(.alertEnded(alarmID: id, outcome: .snoozed, at: reading.now))))
        // The alarm's own snooze stays what it was for next time.
        #expect(snoozed.record?.definition.countdownDuration?.postAlert == 300)

        var plain = record(in: .alerting)
        plain.definition = Fixtures.definition(Fixtures.clockTime(7, 30))
        let chosen = try machine.handle(.snooze(60), to: plain, at: reading)
        guard case .countdown(let plainRunning) = chosen.record?.phase else { Issue.record("not counting down"); return }
        #expect(plainRunning.endsAt.remaining(from: reading) == 60)
    }

    @Test(
        "Snooze refuses a time that is not a positive number of seconds up to a year, and changes nothing",
        arguments: [0, -5, .infinity, .nan, AlarmDefinition.maximumDuration + 1])
    func snoozeRefusesBadTimes(seconds: TimeInterval) {
        #expect(throws: AlarmRequestError.self) { try machine.handle(.snooze(seconds), to: record(in: .alerting), at: reading) }
    }

    @Test(
        "Scheduling validates every field and names the bad one",
        arguments: [
            (Fixtures.definition(Fixtures.clockTime(25, 0)), "schedule.hour"),
            (Fixtures.definition(Fixtures.clockTime(7, 60)), "schedule.minute"),
            (Fixtures.definition(Fixtures.clockTime(7, 0, on: [])), "schedule.weekdays"),
            (Fixtures.definition(.fixed(Fixtures.instant("2020-01-01T00:00:00Z"))), "schedule.fixed"),
            (Fixtures.timer(-5), "countdownDuration.preAlert"),
            (Fixtures.timer(.nan), "countdownDuration.preAlert"),
            (Fixtures.definition(Fixtures.clockTime(7, 0), snooze: 0), "countdownDuration.postAlert"),
            (Fixtures.definition(nil), "schedule"),
            (Fixtures.definition(Fixtures.clockTime(7, 0), title: String(repeating: "x", count: 1_001)), "presentation.alert.title"),
        ])
    func invalidConfigurations(definition: AlarmDefinition, field: String) {
        #expect {
            try machine.schedule(id: id, owner: "user", definition: definition, at: reading)
        } throws: { error in
            guard case .invalidConfiguration(let named, _) = error as? AlarmRequestError else { return false }
            return named == field
        }
    }

    /// Apple's own example of a one-time alarm: a snooze button that counts down, and no
    /// countdown duration at all.
    struct NoMetadata: AlarmMetadata {}
    static let seedAlarm = AlarmManager.AlarmConfiguration<NoMetadata>.alarm(
        schedule: .fixed(Fixtures.instant("2026-06-01T13:00:00Z")),
        attributes: AlarmAttributes(
            presentation: AlarmPresentation(
                alert: .init(
                    title: "Wake Up", stopButton: .stopButton, secondaryButton: .snoozeButton, secondaryButtonBehavior: .countdown)),
            tintColor: .blue))

    @Test(
        "A snooze button with no post-alert duration (Apple's example) is accepted and snoozes for the policy's default: 9 minutes, or as set"
    )
    func snoozeWithoutPostAlert() throws {
        let definition = try AlarmDefinition(Self.seedAlarm)
        #expect(definition.countdownDuration == nil)
        let scheduled = try machine.schedule(id: id, owner: "user", definition: definition, at: reading)
        var ringing = try #require(scheduled.record)
        ringing.phase = .alerting(.init(scheduledAt: reading.now, startedAt: reading.now, timesOutAt: nil))
        for (policy, length) in [(AlarmPolicy(), 540.0), (AlarmPolicy(defaultSnooze: 120), 120)] {
            let snoozed = try AlarmStateMachine(policy: policy).handle(.countdown, to: ringing, at: reading)
            guard case .countdown(let countdown) = snoozed.record?.phase else {
                Issue.record("not counting down: \(String(describing: snoozed.record?.phase))")
                continue
            }
            #expect(countdown.kind == .postAlert && countdown.duration == length)
            #expect(countdown.endsAt == reading.elapsedDeadline(after: length))
        }
    }

    @Test("Without a snooze button or a post-alert duration, countdown is refused by name")
    func noSnoozeNoPostAlert() throws {
        var definition = Fixtures.definition(Fixtures.clockTime(7, 0), snooze: 60)
        definition.countdownDuration = nil
        definition.presentation.alert.secondaryButton = nil
        definition.presentation.alert.secondaryButtonBehavior = nil
        var ringing = try #require(try machine.schedule(id: id, owner: "user", definition: definition, at: reading).record)
        ringing.phase = .alerting(.init(scheduledAt: reading.now, startedAt: reading.now, timesOutAt: nil))
        #expect(throws: AlarmRequestError.noPostAlertDuration(id)) { try machine.handle(.countdown, to: ringing, at: reading) }
    }

    @Test("A scheduled alarm with a pre-alert starts counting down that long before its instant")
    func preAlert() throws {
        let definition = Fixtures.definition(.fixed(reading.now.addingTimeInterval(3_600)), preAlert: 600)
        let scheduled = try machine.schedule(id: id, owner: "user", definition: definition, at: reading)
        #expect(scheduled.record?.deadline == .wall(reading.now.addingTimeInterval(3_000)))

        var at = reading
        at.now = at.now.addingTimeInterval(3_000)
        at.uptime += .seconds(3_000)
        let counting = try machine.handle(.deadlineReached, to: scheduled.record!, at: at)
        guard case .countdown(let running) = counting.record?.phase else { Issue.record("not counting down"); return }
        #expect(running.kind == .preAlert)
        #expect(running.endsAt.remaining(from: at) == 600)
        #expect(counting.actions.contains(.presentCountdown(counting.record!)))
    }
}
