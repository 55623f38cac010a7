import AlarmModel
import FoundationEssentials

/// Everything the agent keeps about one alarm: who owns it, what it is, and where it is in time.
package struct AlarmRecord: Hashable, Sendable, Identifiable {
    /// The alarm's identifier.
    package var id: UUID
    /// The app (or person) that owns it.
    package var owner: String
    /// Its configuration.
    package var definition: AlarmDefinition
    /// Its state and the instants that go with it.
    package var phase: Phase
    /// The instant the next occurrence of a clock-time schedule is looked for after; the last
    /// occurrence that alerted, or the instant the alarm was scheduled.
    package var anchor: Date
    /// The occurrence of a repeating alarm that was skipped (`reveille skip`): it does not ring,
    /// and the alarm is scheduled for the one after. Cleared when that one alerts, or by `unskip`.
    package var skippedAlert: Date?

    /// Creates a record.
    package init(
        id: UUID, owner: String, definition: AlarmDefinition, phase: Phase, anchor: Date, skippedAlert: Date? = nil
    ) {
        self.id = id
        self.owner = owner
        self.definition = definition
        self.phase = phase
        self.anchor = anchor
        self.skippedAlert = skippedAlert
    }

    /// The skipped occurrence, while it is still ahead of `now` (what the list shows).
    package func pendingSkip(at now: Date) -> Date? {
        guard let skippedAlert, skippedAlert > now else { return nil }
        return skippedAlert
    }

    /// The alarm as AlarmKit shows it.
    package var alarm: Alarm {
        Alarm(id: id, schedule: definition.schedule, countdownDuration: definition.countdownDuration, state: state)
    }

    /// The alarm's AlarmKit state.
    package var state: Alarm.State {
        switch phase {
        case .scheduled: .scheduled
        case .countdown: .countdown
        case .paused: .paused
        case .alerting: .alerting
        }
    }
}

extension AlarmRecord {
    /// The state of an alarm with the instants that state needs.
    package enum Phase: Hashable, Sendable {
        /// Waiting to alert at `alertAt` (its countdown, if any, begins `preAlert` earlier).
        case scheduled(alertAt: Date)
        /// A countdown running to its end.
        case countdown(RunningCountdown)
        /// A countdown held with the time it had left.
        case paused(PausedCountdown)
        /// Ringing.
        case alerting(Ringing)
    }

    /// Which countdown runs: the one before the alert, or the one after it (snooze, repeat).
    package enum CountdownPhase: String, Codable, Hashable, Sendable {
        /// Before the alert: a timer's duration, or a scheduled alarm's pre-alert.
        case preAlert
        /// After the alert: a snooze or a repeat.
        case postAlert
    }

    /// A countdown that is running.
    package struct RunningCountdown: Hashable, Sendable {
        /// Which countdown it is.
        package var kind: CountdownPhase
        /// When it ends.
        package var endsAt: ElapsedDeadline
        /// Its whole length, for progress.
        package var duration: TimeInterval

        /// Creates a running countdown.
        package init(kind: CountdownPhase, endsAt: ElapsedDeadline, duration: TimeInterval) {
            self.kind = kind
            self.endsAt = endsAt
            self.duration = duration
        }
    }

    /// A countdown that is paused.
    package struct PausedCountdown: Hashable, Sendable {
        /// Which countdown it is.
        package var kind: CountdownPhase
        /// The time it had left when paused.
        package var remaining: TimeInterval
        /// Its whole length, for progress.
        package var duration: TimeInterval

        /// Creates a paused countdown.
        package init(kind: CountdownPhase, remaining: TimeInterval, duration: TimeInterval) {
            self.kind = kind
            self.remaining = remaining
            self.duration = duration
        }
    }

    /// An alert that is ringing.
    package struct Ringing: Hashable, Sendable {
        /// The instant it was due.
        package var scheduledAt: Date
        /// The instant it began to ring.
        package var startedAt: Date
        /// When an unanswered ring ends as timed out; `nil` rings until answered.
        package var timesOutAt: ElapsedDeadline?

        /// Creates a ringing alert.
        package init(scheduledAt: Date, startedAt: Date, timesOutAt: ElapsedDeadline?) {
            self.scheduledAt = scheduledAt
            self.startedAt = startedAt
            self.timesOutAt = timesOutAt
        }
    }

    /// The deadline the engine must wake up for, if the alarm's state has one (an alarm turned off
    /// has none).
    package var deadline: Deadline? {
        switch phase {
        case .scheduled where !definition.isEnabled:
            nil
        case .scheduled(let alertAt):
            .wall(alertAt.addingTimeInterval(-(definition.countdownDuration?.preAlert ?? 0)))
        case .countdown(let countdown):
            .elapsed(countdown.endsAt)
        case .paused:
            nil
        case .alerting(let ringing):
            ringing.timesOutAt.map(Deadline.elapsed)
        }
    }

    /// The next instant the alarm alerts, when known: its scheduled instant, or the end of its
    /// running countdown; `nil` for an alarm turned off.
    package func fireDate(from reading: ClockReading) -> Date? {
        switch phase {
        case .scheduled where !definition.isEnabled: nil
        case .scheduled(let alertAt): alertAt
        case .countdown(let countdown): countdown.endsAt.wallInstant(from: reading)
        case .paused, .alerting: nil
        }
    }

    /// The time left of a running or paused countdown.
    package func remaining(from reading: ClockReading) -> TimeInterval? {
        switch phase {
        case .countdown(let countdown): max(0, countdown.endsAt.remaining(from: reading))
        case .paused(let paused): paused.remaining
        case .scheduled, .alerting: nil
        }
    }
}

/// A moment the engine must wake up at, on the wall clock or the boot clock.
package enum Deadline: Hashable, Sendable {
    /// A wall-clock instant.
    case wall(Date)
    /// A boot-clock moment.
    case elapsed(ElapsedDeadline)

    /// Whether the deadline has come, as seen from the reading.
    package func isDue(at reading: ClockReading) -> Bool {
        switch self {
        case .wall(let date): date <= reading.now
        case .elapsed(let deadline): deadline.remaining(from: reading) <= 0
        }
    }
}
