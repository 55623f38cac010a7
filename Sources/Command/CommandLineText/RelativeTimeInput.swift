import AlarmModel
import FoundationEssentials

/// Reads the forms of TIME that name a moment from the present (`in 20m`, `tomorrow 7:30`), which
/// ``ClockTimeInput/parse(_:timeZone:now:)`` tries before its own forms.
///
/// Accepted forms, after surrounding white space is removed, in any case (English words):
///
/// - `in DUR` or `+DUR`: that long from now (`in 20m`, `+1h30m`, `in 90 seconds`; DUR as
///   ``DurationInput`` reads it).
/// - A day and a clock time, in either order: `tomorrow 7:30`, `7:30 tomorrow`, `today 18:00`,
///   `mon 7:30`, `friday 6:45pm`. A weekday names its next date whose time is still ahead: today
///   when the time has not come yet, otherwise the same day next week.
///
/// Each is an instant (`.fixed`): the clock time on that date in the time zone, resolved with
/// ``LocalTimeResolver`` as a date and time is. Anything else is none of these (`nil`), and the
/// caller reads it as it would without them.
enum RelativeTimeInput {
    /// The schedule `text` names from `now`, `nil` when it is not a relative form; throws when it
    /// is one with a bad part, naming it.
    static func parse(_ text: String, timeZone: ZoneRules, now: Date) throws(InputError) -> Alarm.Schedule? {
        let lowered = text.lowercased()
        if lowered.hasPrefix("+") || lowered.hasPrefix("in ") {
            let length = lowered.hasPrefix("+") ? String(lowered.dropFirst()) : String(lowered.dropFirst(3))
            let seconds: TimeInterval
            do {
                seconds = try DurationInput.parse(length)
            } catch {
                throw .invalid(
                    .time, text,
                    reason: "after \(lowered.hasPrefix("+") ? "+" : "“in”") give how long from now, such as 20m or 1h30m (\(error))")
            }
            return .fixed(now.addingTimeInterval(seconds))
        }
        let words = lowered.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard words.count >= 2 else { return nil }
        let day: Day
        let clockText: String
        if let first = Day(named: words[0]) {
            day = first
            clockText = words.dropFirst().joined(separator: " ")
        } else if let last = Day(named: words[words.count - 1]) {
            day = last
            clockText = words.dropLast().joined(separator: " ")
        } else {
            return nil
        }
        let time: Alarm.Schedule.Relative.Time
        do throws(InputError) {
            guard case .relative(let relative) = try ClockTimeInput.parse(clockText, timeZone: timeZone) else {
                throw InputError.unrecognized(.time, clockText)
            }
            time = relative.time
        } catch {
            if case .invalid(_, _, let reason) = error { throw .invalid(.time, text, reason: reason) }
            throw .invalid(.time, text, reason: "give a clock time with the day, as in \(day.name) 7:30")
        }
        let secondsOfDay = Int64(time.hour) * 3_600 + Int64(time.minute) * 60
        let localNow = Int64((now.timeIntervalSince1970 + TimeInterval(timeZone.secondsFromGMT(for: now))).rounded(.down))
        let today = floorDivide(localNow, 86_400)
        let offset: Int64
        switch day {
        case .today:
            offset = 0
        case .tomorrow:
            offset = 1
        case .weekday(let weekday):
            // 1970-01-01 was a Thursday: days since the epoch plus 3, mod 7, count from Monday.
            let todayIndex = Int((today + 3) % 7)
            let targetIndex = WeekdaysInput.mondayFirst.firstIndex(of: weekday) ?? 0
            var ahead = Int64((targetIndex - todayIndex + 7) % 7)
            if ahead == 0, secondsOfDay <= localNow - today * 86_400 { ahead = 7 }
            offset = ahead
        }
        let wall = (today + offset) * 86_400 + secondsOfDay
        switch LocalTimeResolver(timeZone: timeZone).resolve(localSeconds: wall) {
        case .exact(let instant), .afterGap(let instant): return .fixed(instant)
        }
    }

    /// A day word.
    private enum Day {
        case today, tomorrow
        case weekday(Locale.Weekday)

        init?(named word: String) {
            switch word {
            case "today": self = .today
            case "tomorrow", "tmrw": self = .tomorrow
            default:
                guard let days = try? WeekdaysInput.parse(word), days.count == 1 else { return nil }
                self = .weekday(days[0])
            }
        }

        /// The word, for a hint.
        var name: String {
            switch self {
            case .today: "today"
            case .tomorrow: "tomorrow"
            case .weekday(let day): String("\(day)".prefix(3))
            }
        }
    }

    /// `value / divisor`, rounded towards negative infinity.
    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }
}
