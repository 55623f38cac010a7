import AlarmModel
/// The kinds of text the CLI reads from a person.
package enum InputField: String, Hashable, Sendable, CaseIterable {
    /// A clock time or a date and time (TIME).
    case time
    /// A list of days of the week (DAYS).
    case days
    /// A length of time (DUR).
    case duration
    /// An alarm's id or a prefix of it (ID).
    case alarmID

    /// What a person calls it.
    var noun: String {
        switch self {
        case .time: "time"
        case .days: "days"
        case .duration: "duration"
        case .alarmID: "alarm id"
        }
    }

    /// The accepted forms, as a clause for an error message.
    var hint: String {
        switch self {
        case .time:
            "use a clock time such as 7:30 or 7:30pm, or a date and time such as 2026-12-01 07:30"
        case .days:
            "use mon, tue, wed, thu, fri, sat, sun or full day names separated by commas, or weekdays, weekends or daily"
        case .duration:
            "use a length such as 90s, 5m, 1h30m or 00:05:00"
        case .alarmID:
            "use the full id or its first few characters (0-9, a-f and dashes)"
        }
    }
}
