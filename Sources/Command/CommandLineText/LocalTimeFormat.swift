import AlarmModel
import FoundationEssentials

/// Writes an alert instant as a local wall time for the CLI: `Sat 07:30` or `2026-12-01 07:30`
/// (in the standard style; a person's `TimeStyle` gives `Sa. 07:30` or `Sat 7:30 AM`).
///
/// The instant is shown in the reading's time zone, on the 24-hour clock, to the minute (seconds
/// are dropped, not rounded, so the minute shown is the one the alert falls in). Within the next
/// six local days, today included, the day is an English weekday abbreviation, which is unambiguous
/// within that span; otherwise, and for instants before today, the date is `YYYY-MM-DD`. The text
/// depends only on the style passed, not on the process's locale or time zone. Offsets come from the zone's `ZoneRules`,
/// as the alarms' own instants do.
package enum LocalTimeFormat {
    /// The largest distance from 1970, in seconds, shown; beyond it the text is `-`.
    static let limit: TimeInterval = 100_000_000_000_000

    /// The instant as local time in `reading.timeZone`, relative to the day of `reading.now`,
    /// written in `style` (the person's clock and day names; `standard` is the text above).
    package static func string(for date: Date, at reading: ClockReading, style: TimeStyle = .standard) -> String {
        let rules = reading.timeZone
        guard let (day, secondOfDay) = localDay(of: date, rules: rules),
            let (today, _) = localDay(of: reading.now, rules: rules)
        else { return "-" }
        let time = style.clockText(hour: Int(secondOfDay / 3_600), minute: Int(secondOfDay % 3_600 / 60))
        if (0...6).contains(day - today) {
            return style.weekdayText(CivilDate(daysSinceEpoch: day).weekday) + " " + time
        }
        let civil = GregorianDate(daysSinceEpoch: day)
        return style.dateText(year: civil.year, month: civil.month, day: civil.day) + " " + time
    }

    /// The local day (days since 1970-01-01) of an instant and the second of that day.
    static func localDay(of date: Date, rules: ZoneRules) -> (day: Int64, second: Int64)? {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, abs(interval) < limit else { return nil }
        let local = Int64(interval.rounded(.down)) + rules.secondsFromGMT(for: date)
        var day = local / 86_400
        var second = local % 86_400
        if second < 0 {
            day -= 1
            second += 86_400
        }
        return (day, second)
    }
}
