import AlarmModel
import FoundationEssentials
import AlarmRecords

/// Reads DAYS as a person types it (`--repeat mon,wed,fri`, `--repeat weekdays`).
///
/// The text is a comma-separated list; white space around entries is ignored and case does not
/// matter. Each entry is a day, as its three-letter abbreviation (`mon`, `tue`, `wed`, `thu`,
/// `fri`, `sat`, `sun`), its full English name (`monday`), the common `tues`, `thur` and
/// `thurs`, or a plural (`mondays`); a range of days, as systemd writes it (`mon-fri`,
/// `mon..fri`; `fri-mon` wraps round the weekend); or a group: `weekdays` (Monday to Friday),
/// `weekends` (Saturday and Sunday), `daily`, `everyday` or `every day` (all seven). Entries may
/// repeat and overlap (`weekends,sun`); the result has each day once, in week order starting on
/// Monday, the order the JSON form and ISO 8601 use.
package enum WeekdaysInput {
    /// The days of a week that starts on Monday.
    package static let mondayFirst = Locale.Weekday.mondayFirst

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

    /// The day a word names by its singular name (`mon`, `Friday`, `thurs`), in any case; `nil`
    /// for anything else, a plural, range or group included. TIME reads such a word as the next
    /// such day (`fri 9:00`), and every other list of days as days to repeat on.
    package static func singleDay(named word: some StringProtocol) -> Locale.Weekday? {
        switch word.lowercased() {
        case "mon", "monday": .monday
        case "tue", "tues", "tuesday": .tuesday
        case "wed", "wednesday": .wednesday
        case "thu", "thur", "thurs", "thursday": .thursday
        case "fri", "friday": .friday
        case "sat", "saturday": .saturday
        case "sun", "sunday": .sunday
        default: nil
        }
    }

    /// The days a lowercase entry stands for, or `nil` when it is not a day, a range or a group.
    private static func days(named name: String) -> [Locale.Weekday]? {
        if let day = singleDay(named: name) { return [day] }
        // A plural: every Monday.
        if name.hasSuffix("s"), let day = singleDay(named: name.dropLast()), day.englishName == String(name.dropLast()) {
            return [day]
        }
        switch name {
        case "weekdays": return [.monday, .tuesday, .wednesday, .thursday, .friday]
        case "weekends": return [.saturday, .sunday]
        case "daily", "everyday", "every day": return mondayFirst
        default: return range(name)
        }
    }

    /// The days of a range, `mon-fri` or `mon..fri`, from its first day to its last, going round
    /// the end of the week when the last comes before the first.
    private static func range(_ name: String) -> [Locale.Weekday]? {
        let ends =
            name.contains("..")
            ? name.split(separator: "..", omittingEmptySubsequences: false).map(String.init)
            : name.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard ends.count == 2, let first = singleDay(named: ends[0].trimmingWhitespace()),
            let last = singleDay(named: ends[1].trimmingWhitespace()),
            let start = mondayFirst.firstIndex(of: first), let end = mondayFirst.firstIndex(of: last)
        else { return nil }
        let count = (end - start + 7) % 7 + 1
        return (0..<count).map { mondayFirst[(start + $0) % 7] }
    }
}
