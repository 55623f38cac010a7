import AlarmModel
import FoundationEssentials

/// A change to some of an alarm's settings that keeps its id, its history and, where its time
/// stays, its state: `reveille edit`, the `Edit` call. Only what is given changes.
package struct AlarmEdit: Hashable, Sendable {
    /// The alert's title (and the countdown's and paused view's, where they showed the same).
    package var title: String?
    /// A whole new schedule: a clock time on days, an instant.
    package var schedule: Alarm.Schedule?
    /// A new clock time, keeping the days; for an instant, its local day.
    package var time: Alarm.Schedule.Relative.Time?
    /// New days to repeat on, keeping the clock time; none rings once.
    package var weekdays: [Locale.Weekday]?
    /// The Snooze button (Repeat for a timer) and how long it counts down.
    package var snooze: Snooze?
    /// The countdown before the alert, in seconds; 0 takes it away.
    package var preAlert: TimeInterval?
    /// The sound.
    package var sound: AlertConfiguration.AlertSound?
    /// The sound's volume in percent.
    package var volume: Int?
    /// How long the sound rises, in seconds.
    package var ramp: TimeInterval?
    /// How long an unanswered alert rings, in seconds (0: until answered).
    package var ringTimeout: TimeInterval?
    /// Whether the alert breaks through do-not-disturb.
    package var breakthrough: Bool?
    /// The sound settings that go back to the agent's own.
    package var reset: Set<Setting> = []

    /// Creates an empty change.
    package init() {}

    /// Whether it changes nothing.
    package var isEmpty: Bool { self == AlarmEdit() }

    /// What Snooze does after the change.
    package enum Snooze: Hashable, Sendable {
        /// No Snooze (nor Repeat): the alert has Stop only.
        case off
        /// Snooze for the agent's length (`reveilled --default-snooze`).
        case agentDefault
        /// Snooze for this many seconds.
        case seconds(TimeInterval)
    }

    /// A sound setting an edit can give back to the agent.
    package enum Setting: String, Hashable, Sendable, CaseIterable {
        /// `volume`
        case volume
        /// `ramp`
        case ramp
        /// `ringTimeout`
        case ringTimeout
    }

    /// The definition with the change made, days and clock times read in `zone`.
    ///
    /// - Throws: `invalidConfiguration` naming the field when the change does not fit the alarm
    ///   (a clock time or days for a timer). The result is not validated: that is the caller's.
    package func applied(to definition: AlarmDefinition, zone: ZoneRules) throws(AlarmRequestError) -> AlarmDefinition {
        var next = definition
        if let title {
            let old = definition.presentation.alert.title
            let new = LocalizedStringResource(title)
            next.presentation.alert.title = new
            if next.presentation.countdown?.title == old { next.presentation.countdown?.title = new }
            if next.presentation.paused?.title == old { next.presentation.paused?.title = new }
        }
        if let schedule { next.schedule = schedule }
        if let time { next.schedule = try Self.schedule(next.schedule, at: time, zone: zone) }
        if let weekdays { next.schedule = try Self.schedule(next.schedule, on: weekdays, zone: zone) }
        var preAlertDuration = next.countdownDuration?.preAlert
        var postAlertDuration = next.countdownDuration?.postAlert
        if let preAlert { preAlertDuration = preAlert > 0 ? preAlert : nil }
        if let snooze {
            switch snooze {
            case .off:
                next.presentation.alert.secondaryButton = nil
                next.presentation.alert.secondaryButtonBehavior = nil
                next.secondaryIntent = nil
                postAlertDuration = nil
            case .agentDefault, .seconds:
                if next.presentation.alert.secondaryButtonBehavior != .countdown {
                    next.presentation.alert.secondaryButton = next.isTimer ? .repeatButton : .snoozeButton
                    next.presentation.alert.secondaryButtonBehavior = .countdown
                    next.secondaryIntent = nil
                }
                if case .seconds(let seconds) = snooze { postAlertDuration = seconds } else { postAlertDuration = nil }
            }
        }
        next.countdownDuration =
            preAlertDuration == nil && postAlertDuration == nil
            ? nil : .init(preAlert: preAlertDuration, postAlert: postAlertDuration)
        if let sound { next.sound = sound }
        if let volume { next.volume = volume }
        if let ramp { next.soundRamp = ramp }
        if let ringTimeout { next.ringTimeout = ringTimeout }
        if let breakthrough { next.breakthrough = breakthrough }
        if reset.contains(.volume) { next.volume = nil }
        if reset.contains(.ramp) { next.soundRamp = nil }
        if reset.contains(.ringTimeout) { next.ringTimeout = nil }
        return next
    }

    /// `schedule` at a new clock time: a clock time keeps its days, an instant its local day.
    private static func schedule(
        _ schedule: Alarm.Schedule?, at time: Alarm.Schedule.Relative.Time, zone: ZoneRules
    ) throws(AlarmRequestError) -> Alarm.Schedule {
        switch schedule {
        case .relative(var relative):
            relative.time = time
            return .relative(relative)
        case .fixed(let instant):
            try checkReadable(instant, field: "time")
            let day = CivilDate(containing: instant, rules: zone)
            return .fixed(
                LocalTimeResolver(timeZone: zone).resolve(localSeconds: day.localSeconds(hour: time.hour, minute: time.minute)).instant)
        case nil:
            throw .invalidConfiguration(field: "time", reason: "a timer has no clock time")
        }
    }

    /// `schedule` repeating on `days` (none: once): an instant becomes its clock time, on those days.
    private static func schedule(
        _ schedule: Alarm.Schedule?, on days: [Locale.Weekday], zone: ZoneRules
    ) throws(AlarmRequestError) -> Alarm.Schedule {
        let repeats: Alarm.Schedule.Relative.Recurrence = days.isEmpty ? .never : .weekly(Locale.Weekday.mondayFirst.filter(days.contains))
        switch schedule {
        case .relative(var relative):
            relative.repeats = repeats
            return .relative(relative)
        case .fixed(let instant):
            guard !days.isEmpty else { return .fixed(instant) }
            try checkReadable(instant, field: "weekdays")
            let (hour, minute) = Self.clockTime(of: instant, zone: zone)
            return .relative(.init(time: .init(hour: hour, minute: minute), repeats: repeats))
        case nil:
            throw .invalidConfiguration(field: "weekdays", reason: "a timer does not repeat on days")
        }
    }

    /// Refuses an instant whose local day and clock time cannot be read (not finite, or beyond
    /// the year 9999, past what whole seconds since 1970 hold), before they are read: the
    /// change that gave it (`schedule` with `time` or `weekdays`) is refused, naming `field`.
    private static func checkReadable(_ instant: Date, field: String) throws(AlarmRequestError) {
        let seconds = instant.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) <= 253_402_300_799 else {
            throw .invalidConfiguration(field: field, reason: "the alarm's instant (\(seconds) s since 1970) has no clock time")
        }
    }

    /// The local clock time of an instant in `zone`.
    private static func clockTime(of instant: Date, zone: ZoneRules) -> (hour: Int, minute: Int) {
        let seconds = Int64(instant.timeIntervalSince1970.rounded(.down))
        let local = seconds + zone.secondsFromGMT(at: seconds)
        let second = (local % 86_400 + 86_400) % 86_400
        return (Int(second / 3_600), Int(second % 3_600 / 60))
    }
}

extension Locale.Weekday {
    /// The days of a week that starts on Monday, the order the JSON form and ISO 8601 use.
    package static let mondayFirst: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]
}
