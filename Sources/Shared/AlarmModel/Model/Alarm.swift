import FoundationEssentials

/// An alarm or timer known to the agent, as AlarmKit's `Alarm` describes it.
///
/// The value is a snapshot: the agent publishes a fresh list of alarms after every change.
public struct Alarm: Identifiable, Codable, Hashable, Sendable {
    /// The alarm's identifier, chosen by the app that scheduled it.
    public let id: UUID
    /// When the alarm alerts; `nil` for a timer that only counts down.
    public let schedule: Schedule?
    /// The countdown before the alert (a timer, a pre-alert) and after it (snooze, repeat).
    public let countdownDuration: CountdownDuration?
    /// Where the alarm is in its life.
    public let state: State

    /// Creates a snapshot of an alarm.
    public init(id: UUID, schedule: Schedule?, countdownDuration: CountdownDuration?, state: State) {
        self.id = id
        self.schedule = schedule
        self.countdownDuration = countdownDuration
        self.state = state
    }
}

/// Another name for `Alarm.State`, the name Apple's AlarmKit gives the alarm's state.
///
/// Not in Apple's AlarmKit; it is here for code written from the AlarmKit guide Xcode's assistant
/// ships, and third-party guides after it, which call the type of `Alarm.state` `AlarmState`.
public typealias AlarmState = Alarm.State

extension Alarm {
    /// The four states of AlarmKit's alarm life cycle.
    public enum State: String, Codable, Hashable, Sendable, CaseIterable {
        /// Waiting for its scheduled instant.
        case scheduled
        /// Counting down: a timer, a pre-alert, or a snooze.
        case countdown
        /// A countdown held by the person; it keeps the time that had passed.
        case paused
        /// Ringing now.
        case alerting
    }

    /// The durations counted before and after an alert.
    public struct CountdownDuration: Codable, Hashable, Sendable {
        /// How long the countdown before the alert runs (a timer's duration, or a pre-alert).
        public var preAlert: TimeInterval?
        /// How long the countdown after the alert runs when it is snoozed or repeated.
        public var postAlert: TimeInterval?

        /// Creates countdown durations; either may be absent.
        public init(preAlert: TimeInterval?, postAlert: TimeInterval?) {
            self.preAlert = preAlert
            self.postAlert = postAlert
        }
    }

    /// When an alarm alerts: at an instant, or at a clock time that follows the time zone.
    public enum Schedule: Codable, Hashable, Sendable {
        /// An instant; it never moves with the time zone.
        case fixed(Date)
        /// A clock time in the current time zone, once or on some weekdays.
        case relative(Relative)

        /// A local clock time, once or weekly.
        public struct Relative: Codable, Hashable, Sendable {
            /// The clock time of the alert.
            public var time: Time
            /// Whether and how the alarm repeats.
            public var repeats: Recurrence

            /// Creates a clock-time schedule.
            public init(time: Time, repeats: Recurrence = .never) {
                self.time = time
                self.repeats = repeats
            }

            /// An hour and minute of the day, in the current time zone.
            public struct Time: Codable, Hashable, Sendable {
                /// The hour, 0 to 23.
                public var hour: Int
                /// The minute, 0 to 59.
                public var minute: Int

                /// Creates a clock time.
                public init(hour: Int, minute: Int) {
                    self.hour = hour
                    self.minute = minute
                }
            }

            /// How a clock-time alarm repeats.
            public enum Recurrence: Codable, Hashable, Sendable {
                /// Alerts once, at the next occurrence of the time.
                case never
                /// Alerts every week on the given days.
                case weekly([Locale.Weekday])
            }
        }
    }
}

extension Alarm.Schedule.Relative.Recurrence {
    /// The days a weekly alarm alerts on, without repeats, Sunday first; empty for `.never`.
    public var weekdays: [Locale.Weekday] {
        guard case .weekly(let days) = self else { return [] }
        return Locale.Weekday.sundayFirst.filter(days.contains)
    }
}

extension Locale.Weekday {
    /// All seven days, Sunday first, as `Calendar.component(.weekday, ...)` numbers them.
    public static let sundayFirst: [Locale.Weekday] = [
        .sunday, .monday, .tuesday, .wednesday, .thursday, .friday, .saturday,
    ]

    /// The day's English name in lowercase, as the JSON form and the CLI write it: `monday`.
    public var englishName: String {
        switch self {
        case .sunday: "sunday"
        case .monday: "monday"
        case .tuesday: "tuesday"
        case .wednesday: "wednesday"
        case .thursday: "thursday"
        case .friday: "friday"
        case .saturday: "saturday"
        @unknown default: rawValue
        }
    }

    /// The Gregorian weekday number, 1 (Sunday) to 7 (Saturday).
    public var gregorianNumber: Int {
        Locale.Weekday.sundayFirst.firstIndex(of: self)! + 1
    }
}
