import AlarmModel
import Localization

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

    /// The accepted forms, as a clause for an error message, in the person's language.
    var hint: String {
        switch self {
        case .time:
            // One literal: scripts/update-translations reads the literal a call is given, not a sum.
            Translation.text(
                "use a clock time such as 7:30, 7pm or noon, a day and time such as tomorrow 7:30 or mon,wed 6:45, a date and time such as 2026-12-01 07:30, or a moment from now such as in 20m"
            )
        case .days:
            Translation.text(
                "use mon, tue, wed, thu, fri, sat, sun or full day names separated by commas, a range such as mon-fri, or weekdays, weekends or daily"
            )
        case .duration:
            Translation.text("use a length such as 90s, 5m, 1h30m or 00:05:00")
        case .alarmID:
            Translation.text("use the full id or its first few characters (0-9, a-f and dashes)")
        }
    }

    /// "no time given", in the person's language.
    var nothingGiven: String {
        switch self {
        case .time: Translation.text("no time given")
        case .days: Translation.text("no days given")
        case .duration: Translation.text("no duration given")
        case .alarmID: Translation.text("no alarm id given")
        }
    }

    /// "invalid time "25:00"", the text already quoted, in the person's language.
    func invalid(_ quoted: String) -> String {
        switch self {
        case .time: Translation.format("invalid time %s", quoted)
        case .days: Translation.format("invalid days %s", quoted)
        case .duration: Translation.format("invalid duration %s", quoted)
        case .alarmID: Translation.format("invalid alarm id %s", quoted)
        }
    }
}
