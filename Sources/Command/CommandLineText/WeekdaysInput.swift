import AlarmModel
import FoundationEssentials

/// Reads DAYS as a person types it (`--repeat mon,wed,fri`, `--repeat weekdays`).
///
/// The text is a comma-separated list; white space around entries is ignored and case does not
/// matter. Each entry is a day, as its three-letter abbreviation (`mon`, `tue`, `wed`, `thu`,
/// `fri`, `sat`, `sun`), its full English name (`monday`), or the common `tues`, `thur` and
/// `thurs`; or a group: `weekdays` (Monday to Friday), `weekends` (Saturday and Sunday) or `daily`
/// (all seven). Entries may repeat and overlap (`weekends,sun`); the result has each day once, in
/// week order starting on Monday, the order the JSON form and ISO 8601 use.
package enum WeekdaysInput {
    /// The days of a week that starts on Monday.
    package static let mondayFirst: [Locale.Weekday] = [
        .monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday,
    ]

    /// Reads a list of days; never empty when it returns.
    package static func parse(_ text: String) throws(InputError) -> [Locale.Weekday] {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw .empty(.days) }
        var found = Set<Locale.Weekday>()
        for entry in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            let name = entry.trimmingWhitespace()
            guard !name.isEmpty else { throw .missingDay(trimmed) }
            guard let days = Self.days(named: name.lowercased()) else { throw .unknownDay(name) }
            found.formUnion(days)
        }
        return mondayFirst.filter(found.contains)
    }

    /// The days, each once, in week order starting on Monday.
    package static func weekOrdered(_ days: [Locale.Weekday]) -> [Locale.Weekday] {
        mondayFirst.filter(days.contains)
    }

    /// The days a lowercase name stands for, or `nil` when it is not a name.
    private static func days(named name: String) -> [Locale.Weekday]? {
        switch name {
        case "mon", "monday": [.monday]
        case "tue", "tues", "tuesday": [.tuesday]
        case "wed", "wednesday": [.wednesday]
        case "thu", "thur", "thurs", "thursday": [.thursday]
        case "fri", "friday": [.friday]
        case "sat", "saturday": [.saturday]
        case "sun", "sunday": [.sunday]
        case "weekdays": [.monday, .tuesday, .wednesday, .thursday, .friday]
        case "weekends": [.saturday, .sunday]
        case "daily": mondayFirst
        default: nil
        }
    }
}
