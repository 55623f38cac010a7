import AlarmModel
import AlarmRecords
import FoundationEssentials

/// AlarmKit's alarm life cycle as a value type: an event and a clock reading give the alarm's next
/// record and the actions to carry out. It stores nothing and presents nothing itself.
///
/// Transitions: `cancel` from any state; `pause` only in `countdown`; `resume` only in `paused`;
/// `stop` only in `alerting` (a one-shot alarm is removed, a repeating one scheduled for its next
/// day); `countdown` only in `alerting`, into the `postAlert` countdown. Any other throws
/// `AlarmRequestError.operationNotAllowed` and changes nothing.
package struct AlarmStateMachine: Sendable {
    /// The settings that shape transitions.
    package var policy: AlarmPolicy

    /// Creates a state machine with a policy.
    package init(policy: AlarmPolicy = AlarmPolicy()) {
        self.policy = policy
    }

    /// Something that happens to an alarm.
    package enum Event: Hashable, Sendable {
        /// Remove it.
        case cancel
        /// End its alert.
        case stop
        /// Pause its countdown.
        case pause
        /// Resume its paused countdown.
        case resume
        /// Snooze or repeat its alert into the `postAlert` countdown.
        case countdown
        /// Snooze or repeat its alert for this many seconds instead of its `postAlert` duration
        /// (checked as a countdown duration is: positive, at most `AlarmDefinition.maximumDuration`).
        case snooze(TimeInterval)
        /// Skip its next alert: a repeating alarm is scheduled for the one after.
        case skip
        /// Ring the skipped alert after all, if it is still ahead.
        case unskip
        /// Turn it off: it keeps its settings and never rings.
        case turnOff
        /// Turn it on again: scheduled for its next alert from now.
        case turnOn
        /// Its deadline came.
        case deadlineReached
        /// The wall clock was set: check its deadline again.
        case clockChanged
        /// The machine resumed from suspend: check its deadline again.
        case resumedFromSuspend
        /// The time zone changed: compute a clock-time schedule again.
        case timeZoneChanged

        /// The request this event stands for, if a person or app asked for it.
        var operation: AlarmOperation? {
            switch self {
            case .cancel: .cancel
            case .stop: .stop
            case .pause: .pause
            case .resume: .resume
            case .countdown, .snooze: .countdown
            case .skip: .skip
            case .unskip: .unskip
            case .turnOff: .turnOff
            case .turnOn: .turnOn
            case .deadlineReached, .clockChanged, .resumedFromSuspend, .timeZoneChanged: nil
            }
        }
    }

    /// A change to the alert history.
    package enum HistoryChange: Hashable, Sendable {
        /// An alert began to ring.
        case alertStarted(AlertHistoryEntry)
        /// The ringing alert of an alarm ended.
        case alertEnded(alarmID: UUID, outcome: AlertOutcome, at: Date)
        /// Alerts were missed (one entry, with their count).
        case missed(AlertHistoryEntry)
        /// The phone backup rang these phones (none: it found none reachable) for the alarm's
        /// latest alert.
        case phonesRung(alarmID: UUID, phones: [String])
    }

    /// Something the engine must do because of a transition.
    package enum Action: Hashable, Sendable {
        /// Store the alarm's new record.
        case store(AlarmRecord)
        /// Remove the alarm from the store.
        case delete(UUID)
        /// Record a change to the alert history.
        case recordHistory(HistoryChange)
        /// Wake up at this deadline for the alarm.
        case arm(UUID, Deadline)
        /// The alarm has no deadline any more.
        case disarm(UUID)
        /// Show the alert and ring.
        case presentAlert(AlarmRecord)
        /// End the alarm's alert, for this reason.
        case endAlert(UUID, AlertOutcome)
        /// Show (or update) the alarm's countdown or paused view.
        case presentCountdown(AlarmRecord)
        /// Remove the alarm's countdown view.
        case endCountdown(UUID)
        /// Tell the person alerts were missed.
        case announceMissed(AlarmRecord, count: Int)

        /// Whether the action changes what is stored.
        package var isDurable: Bool {
            switch self {
            case .store, .delete, .recordHistory: true
            default: false
            }
        }
    }

    /// The outcome of an event: the alarm's next record (`nil` once removed) and the actions.
    package struct Transition: Hashable, Sendable {
        /// The record after the event; `nil` when the alarm is gone.
        package var record: AlarmRecord?
        /// What to carry out, in order.
        package var actions: [Action]
    }

    // MARK: - Scheduling

    /// Schedules a new alarm (or the replacement of one, once the old is cancelled).
    package func schedule(
        id: UUID, owner: String, definition: AlarmDefinition, at reading: ClockReading
    ) throws(AlarmRequestError) -> Transition {
        try definition.validate(now: reading.now)
        let calendar = AlertCalendar(timeZone: reading.timeZone)
        let phase: AlarmRecord.Phase
        if let schedule = definition.schedule {
            guard let alertAt = calendar.nextAlert(of: schedule, after: reading.now) else {
                throw .invalidConfiguration(field: "schedule", reason: "it never alerts")
            }
            phase = .scheduled(alertAt: alertAt)
        } else {
            // A timer: validation guarantees a preAlert duration.
            let duration = definition.countdownDuration?.preAlert ?? 0
            phase = .countdown(.init(kind: .preAlert, endsAt: reading.elapsedDeadline(after: duration), duration: duration))
        }
        let record = AlarmRecord(id: id, owner: owner, definition: definition, phase: phase, anchor: reading.now)
        return Transition(record: record, actions: [.store(record)] + presentAndArm(record))
    }

    /// Changes some of an alarm's settings, keeping its id and history.
    ///
    /// An alarm whose time changes (its schedule, or the countdown before it) is scheduled anew
    /// from now, as `schedule` would: a skip is forgotten, a pre-alert countdown on screen taken
    /// away, an alarm turned off stays off. Otherwise it keeps its state and instants: a timer
    /// keeps counting, a snooze keeps its end, and a countdown on screen shows the new title. A
    /// ringing alarm is not changed (`operationNotAllowed`): stop or snooze it first. An alarm
    /// stays an alarm and a timer a timer.
    package func edit(
        _ record: AlarmRecord, applying change: AlarmEdit, at reading: ClockReading
    ) throws(AlarmRequestError) -> Transition {
        if case .alerting = record.phase { throw .operationNotAllowed(.edit, state: record.state) }
        var definition = try change.applied(to: record.definition, zone: reading.timeZone)
        guard definition.isTimer == record.definition.isTimer else {
            throw .invalidConfiguration(field: "schedule", reason: "a timer cannot become an alarm, nor an alarm a timer")
        }
        definition.isEnabled = record.definition.isEnabled
        let timeChanged =
            definition.schedule != record.definition.schedule
            || (!definition.isTimer && definition.countdownDuration?.preAlert != record.definition.countdownDuration?.preAlert)
        try definition.validate(now: reading.now, checkingInstant: timeChanged)
        var next = record
        next.definition = definition
        var preAlertRunning = false
        if case .countdown(let countdown) = record.phase, countdown.kind == .preAlert { preAlertRunning = true }
        guard timeChanged, let schedule = definition.schedule else {
            return Transition(record: next, actions: [.store(next)] + presentAndArm(next))
        }
        switch record.phase {
        case .scheduled:
            break
        case .countdown where preAlertRunning:
            break
        default:
            // Snoozed or paused: the countdown runs on; the next alert after it follows the new time.
            return Transition(record: next, actions: [.store(next)] + presentAndArm(next))
        }
        guard let alertAt = AlertCalendar(timeZone: reading.timeZone).nextAlert(of: schedule, after: reading.now) else {
            throw .invalidConfiguration(field: "schedule", reason: "it never alerts")
        }
        next.anchor = reading.now
        next.skippedAlert = nil
        next.phase = .scheduled(alertAt: alertAt)
        var actions: [Action] = [.store(next)]
        if preAlertRunning { actions.append(.endCountdown(record.id)) }
        guard definition.isEnabled else { return Transition(record: next, actions: actions + [.disarm(record.id)]) }
        let check = deadlineCheck(next, at: reading)
        return Transition(record: check.record, actions: actions + check.actions)
    }

    // MARK: - Events

    /// Applies an event to an alarm.
    package func handle(
        _ event: Event, to record: AlarmRecord, at reading: ClockReading
    ) throws(AlarmRequestError) -> Transition {
        switch (event, record.phase) {
        case (.cancel, _):
            return cancel(record, at: reading)

        case (.pause, .countdown(let countdown)):
            var next = record
            next.phase = .paused(
                .init(
                    kind: countdown.kind, remaining: max(0, countdown.endsAt.remaining(from: reading)),
                    duration: countdown.duration))
            return Transition(record: next, actions: [.store(next), .disarm(record.id), .presentCountdown(next)])

        case (.resume, .paused(let paused)):
            var next = record
            next.phase = .countdown(
                .init(
                    kind: paused.kind, endsAt: reading.elapsedDeadline(after: paused.remaining),
                    duration: paused.duration))
            return Transition(record: next, actions: [.store(next)] + presentAndArm(next))

        case (.stop, .alerting):
            return endAlert(record, outcome: .stopped, at: reading)

        case (.countdown, .alerting):
            guard let postAlert = postAlertDuration(of: record) else { throw .noPostAlertDuration(record.id) }
            return snooze(record, for: postAlert, at: reading)

        case (.snooze(let seconds), .alerting):
            try AlarmDefinition.validate(duration: seconds, field: "duration")
            return snooze(record, for: seconds, at: reading)

        case (.skip, _):
            return try skip(record, at: reading)

        case (.unskip, _):
            return try unskip(record, at: reading)

        case (.turnOff, _):
            return try turnOff(record, at: reading)

        case (.turnOn, _):
            return try turnOn(record, at: reading)

        case (.deadlineReached, _), (.clockChanged, _), (.resumedFromSuspend, _):
            return deadlineCheck(record, at: reading)

        case (.timeZoneChanged, _):
            return timeZoneChanged(record, at: reading)

        case (_, _):
            throw .operationNotAllowed(event.operation ?? .schedule, state: record.state)
        }
    }

    // MARK: - Transitions

    /// How long `countdown` (snooze, repeat) counts down for an alerting alarm: its `postAlert`
    /// duration, or the policy's default snooze when its secondary button counts down without
    /// one; `nil` when it has neither.
    func postAlertDuration(of record: AlarmRecord) -> TimeInterval? {
        if let postAlert = record.definition.countdownDuration?.postAlert { return postAlert }
        return record.definition.presentation.alert.secondaryButtonBehavior == .countdown ? policy.defaultSnooze : nil
    }

    /// Ends an alert into a `postAlert` countdown of `seconds`: a snooze, or a timer's repeat.
    private func snooze(_ record: AlarmRecord, for seconds: TimeInterval, at reading: ClockReading) -> Transition {
        var next = record
        next.phase = .countdown(.init(kind: .postAlert, endsAt: reading.elapsedDeadline(after: seconds), duration: seconds))
        return Transition(
            record: next,
            actions: [
                .recordHistory(.alertEnded(alarmID: record.id, outcome: .snoozed, at: reading.now)),
                .store(next), .endAlert(record.id, .snoozed),
            ] + presentAndArm(next))
    }

    /// How long an alert of `record` rings unanswered: its own ring time-out (0: until answered),
    /// or the policy's.
    func ringTimeout(of record: AlarmRecord) -> TimeInterval? {
        guard let own = record.definition.ringTimeout else { return policy.ringTimeout }
        return own > 0 ? own : nil
    }

    /// The occurrence a scheduled alarm waits for: its alert instant, or the end of the pre-alert
    /// countdown running to it (the occurrence after its anchor); `nil` in any other state.
    private func awaitedOccurrence(of record: AlarmRecord, calendar: AlertCalendar) -> Date? {
        switch record.phase {
        case .scheduled(let alertAt):
            alertAt
        case .countdown(let countdown) where countdown.kind == .preAlert:
            record.definition.schedule.flatMap { calendar.nextAlert(of: $0, after: record.anchor) }
        default:
            nil
        }
    }

    /// Skips a repeating alarm's next alert: it is scheduled for the one after, and remembers the
    /// skipped one (shown in lists, undone by `unskip`). One alert at a time: skipping again
    /// while one is skipped is refused.
    private func skip(_ record: AlarmRecord, at reading: ClockReading) throws(AlarmRequestError) -> Transition {
        let calendar = AlertCalendar(timeZone: reading.timeZone)
        guard record.definition.repeats, record.definition.isEnabled, record.pendingSkip(at: reading.now) == nil,
            let schedule = record.definition.schedule, let skipped = awaitedOccurrence(of: record, calendar: calendar),
            let following = calendar.nextAlert(of: schedule, after: skipped)
        else { throw .operationNotAllowed(.skip, state: record.state) }
        var next = record
        next.skippedAlert = skipped
        next.anchor = skipped
        next.phase = .scheduled(alertAt: following)
        var actions: [Action] = [.store(next)]
        if case .countdown = record.phase { actions.append(.endCountdown(record.id)) }
        return Transition(record: next, actions: actions + presentAndArm(next))
    }

    /// Schedules the skipped alert again, if it is still ahead; with none to restore, changes
    /// nothing (a skip whose instant passed is only forgotten).
    private func unskip(_ record: AlarmRecord, at reading: ClockReading) throws(AlarmRequestError) -> Transition {
        guard let skipped = record.pendingSkip(at: reading.now) else {
            guard record.skippedAlert != nil else { return Transition(record: record, actions: []) }
            var next = record
            next.skippedAlert = nil
            return Transition(record: next, actions: [.store(next)])
        }
        guard case .scheduled = record.phase, record.definition.isEnabled else {
            throw .operationNotAllowed(.unskip, state: record.state)
        }
        var next = record
        next.skippedAlert = nil
        next.anchor = reading.now
        next.phase = .scheduled(alertAt: skipped)
        // Within its pre-alert countdown already: the check starts it.
        let check = deadlineCheck(next, at: reading)
        return Transition(record: check.record, actions: [.store(next)] + check.actions)
    }

    /// Turns an alarm off: it waits with no deadline, keeps its settings, and forgets a skip. A
    /// pre-alert countdown running to its alert is taken away. An alarm already off is left as it is.
    private func turnOff(_ record: AlarmRecord, at reading: ClockReading) throws(AlarmRequestError) -> Transition {
        guard record.definition.isEnabled else { return Transition(record: record, actions: []) }
        let calendar = AlertCalendar(timeZone: reading.timeZone)
        guard record.definition.schedule != nil, let occurrence = awaitedOccurrence(of: record, calendar: calendar) else {
            throw .operationNotAllowed(.turnOff, state: record.state)
        }
        var next = record
        next.definition.isEnabled = false
        next.skippedAlert = nil
        next.phase = .scheduled(alertAt: occurrence)
        var actions: [Action] = [.store(next), .disarm(record.id)]
        if case .countdown = record.phase { actions.append(.endCountdown(record.id)) }
        return Transition(record: next, actions: actions)
    }

    /// Turns an alarm on again, scheduled for its next alert from now (none of the days it was off
    /// ring, or count as missed). A one-time instant that passed while it was off is refused, as
    /// scheduling it would be. An alarm already on is left as it is.
    private func turnOn(_ record: AlarmRecord, at reading: ClockReading) throws(AlarmRequestError) -> Transition {
        guard !record.definition.isEnabled else { return Transition(record: record, actions: []) }
        guard case .scheduled = record.phase, let schedule = record.definition.schedule else {
            throw .operationNotAllowed(.turnOn, state: record.state)
        }
        var next = record
        next.definition.isEnabled = true
        try next.definition.validate(now: reading.now)
        guard let alertAt = AlertCalendar(timeZone: reading.timeZone).nextAlert(of: schedule, after: reading.now) else {
            throw .invalidConfiguration(field: "schedule", reason: "it never alerts")
        }
        next.anchor = reading.now
        next.phase = .scheduled(alertAt: alertAt)
        let check = deadlineCheck(next, at: reading)
        return Transition(record: check.record, actions: [.store(next)] + check.actions)
    }

    private func cancel(_ record: AlarmRecord, at reading: ClockReading) -> Transition {
        var actions: [Action] = [.delete(record.id), .disarm(record.id)]
        switch record.phase {
        case .alerting:
            actions.insert(.recordHistory(.alertEnded(alarmID: record.id, outcome: .cancelled, at: reading.now)), at: 0)
            actions.append(.endAlert(record.id, .cancelled))
        case .countdown, .paused:
            actions.append(.endCountdown(record.id))
        case .scheduled:
            break
        }
        return Transition(record: nil, actions: actions)
    }

    /// Runs whatever a passed deadline calls for; re-arms a deadline still ahead.
    private func deadlineCheck(_ record: AlarmRecord, at reading: ClockReading) -> Transition {
        guard let deadline = record.deadline else { return Transition(record: record, actions: []) }
        guard deadline.isDue(at: reading) else {
            return Transition(record: record, actions: [.arm(record.id, deadline)])
        }
        switch record.phase {
        case .scheduled(let alertAt):
            if let preAlert = record.definition.countdownDuration?.preAlert, reading.now < alertAt {
                var next = record
                next.phase = .countdown(
                    .init(
                        kind: .preAlert, endsAt: reading.elapsedDeadline(after: alertAt.timeIntervalSince(reading.now)),
                        duration: preAlert))
                return Transition(record: next, actions: [.store(next)] + presentAndArm(next))
            }
            return alertDue(record, scheduledAt: alertAt, occurrence: true, at: reading)
        case .countdown(let countdown):
            let due = countdown.endsAt.wallInstant(from: reading)
            // The end of a pre-alert countdown is the alarm's scheduled occurrence.
            let occurrence = countdown.kind == .preAlert && record.definition.schedule != nil
            return alertDue(record, scheduledAt: due, occurrence: occurrence, at: reading)
        case .alerting:
            return endAlert(record, outcome: .timedOut, at: reading)
        case .paused:
            return Transition(record: record, actions: [])
        }
    }

    /// An alert's instant came, perhaps late: ring, or apply the missed-alert policy.
    private func alertDue(
        _ record: AlarmRecord, scheduledAt: Date, occurrence: Bool, at reading: ClockReading
    ) -> Transition {
        var actions: [Action] = []
        // A countdown that ends in an alert is taken away after the alert is shown, not before.
        var endsCountdown = false
        if case .countdown = record.phase { endsCountdown = true }
        var next = record
        var dueAt = scheduledAt
        if occurrence {
            next.anchor = scheduledAt
            next.skippedAlert = nil
        }

        if reading.now.timeIntervalSince(scheduledAt) > policy.graceWindow {
            // Late beyond the grace window. A repeating alarm may have missed several days; the
            // latest of them may still be within the window.
            var missed = [scheduledAt]
            if occurrence, record.definition.repeats, let schedule = record.definition.schedule {
                let calendar = AlertCalendar(timeZone: reading.timeZone)
                missed += calendar.alerts(of: schedule, after: scheduledAt, through: reading.now, limit: 100_000)
            }
            let latest = missed.last!
            let ringsLatest = reading.now.timeIntervalSince(latest) <= policy.graceWindow
            let missedCount = ringsLatest ? missed.count - 1 : missed.count
            let entry = AlertHistoryEntry(
                alarmID: record.id, title: record.definition.title, scheduledAt: scheduledAt,
                alertedAt: nil, endedAt: nil, outcome: .missed, count: missedCount)
            actions.append(.recordHistory(.missed(entry)))
            actions.append(.announceMissed(record, count: missedCount))
            if ringsLatest {
                dueAt = latest
                next.anchor = latest
            } else {
                if occurrence { next.anchor = latest }
                if endsCountdown { actions.append(.endCountdown(record.id)) }
                return actions.withFollowUp(afterAlertOf: next, at: reading, calendar: calendarIfRepeating(record, reading))
            }
        }

        next.phase = .alerting(
            .init(
                scheduledAt: dueAt, startedAt: reading.now,
                timesOutAt: ringTimeout(of: record).map { reading.elapsedDeadline(after: $0) }))
        actions.append(
            .recordHistory(
                .alertStarted(
                    AlertHistoryEntry(
                        alarmID: record.id, title: record.definition.title, scheduledAt: dueAt,
                        alertedAt: reading.now, endedAt: nil, outcome: nil))))
        actions.append(.store(next))
        actions.append(.presentAlert(next))
        if endsCountdown { actions.append(.endCountdown(record.id)) }
        actions.append(next.deadline.map { .arm(record.id, $0) } ?? .disarm(record.id))
        return Transition(record: next, actions: actions)
    }

    /// Ends a ringing alert: a one-shot alarm is removed, a repeating one scheduled for its next day.
    private func endAlert(_ record: AlarmRecord, outcome: AlertOutcome, at reading: ClockReading) -> Transition {
        let actions: [Action] = [
            .recordHistory(.alertEnded(alarmID: record.id, outcome: outcome, at: reading.now)),
            .endAlert(record.id, outcome),
        ]
        return actions.withFollowUp(afterAlertOf: record, at: reading, calendar: calendarIfRepeating(record, reading))
    }

    private func calendarIfRepeating(_ record: AlarmRecord, _ reading: ClockReading) -> AlertCalendar? {
        record.definition.repeats ? AlertCalendar(timeZone: reading.timeZone) : nil
    }

    /// Computes a clock-time schedule again in the new zone; instants and countdowns stay.
    private func timeZoneChanged(_ record: AlarmRecord, at reading: ClockReading) -> Transition {
        guard case .relative = record.definition.schedule, let schedule = record.definition.schedule else {
            return deadlineCheck(record, at: reading)
        }
        let calendar = AlertCalendar(timeZone: reading.timeZone)
        let from = max(record.anchor, reading.now)
        switch record.phase {
        case .scheduled(let alertAt):
            guard let recomputed = calendar.nextAlert(of: schedule, after: from), recomputed != alertAt else {
                return deadlineCheck(record, at: reading)
            }
            var next = record
            next.phase = .scheduled(alertAt: recomputed)
            let check = deadlineCheck(next, at: reading)
            return Transition(record: check.record, actions: [.store(next)] + check.actions)
        case .countdown(let countdown) where countdown.kind == .preAlert:
            guard let recomputed = calendar.nextAlert(of: schedule, after: from) else {
                return deadlineCheck(record, at: reading)
            }
            var next = record
            next.phase = .scheduled(alertAt: recomputed)
            let check = deadlineCheck(next, at: reading)
            var actions: [Action] = [.store(next)]
            if case .scheduled = check.record?.phase { actions.append(.endCountdown(record.id)) }
            return Transition(record: check.record, actions: actions + check.actions)
        default:
            return deadlineCheck(record, at: reading)
        }
    }

    /// The actions that show a record's countdown and arm its deadline.
    private func presentAndArm(_ record: AlarmRecord) -> [Action] {
        var actions: [Action] = []
        if case .countdown = record.phase { actions.append(.presentCountdown(record)) }
        if case .paused = record.phase { actions.append(.presentCountdown(record)) }
        actions.append(record.deadline.map { .arm(record.id, $0) } ?? .disarm(record.id))
        return actions
    }
}

extension [AlarmStateMachine.Action] {
    /// Completes the actions after an alert ended or was missed: schedule a repeating alarm's next
    /// occurrence (`calendar` given), or remove a one-shot alarm.
    fileprivate func withFollowUp(
        afterAlertOf record: AlarmRecord, at reading: ClockReading, calendar: AlertCalendar?
    ) -> AlarmStateMachine.Transition {
        if let calendar, let schedule = record.definition.schedule,
            let next = calendar.nextAlert(of: schedule, after: Swift.max(record.anchor, reading.now))
        {
            var scheduled = record
            scheduled.phase = .scheduled(alertAt: next)
            let deadline = scheduled.deadline!
            return .init(record: scheduled, actions: self + [.store(scheduled), .arm(record.id, deadline)])
        }
        return .init(record: nil, actions: self + [.delete(record.id), .disarm(record.id)])
    }
}
