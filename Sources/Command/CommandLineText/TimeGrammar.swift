import AlarmModel
import FoundationEssentials
import Localization

/// The words people write a time with, read into what they name: the one grammar of TIME.
///
/// `reveille add` and `reveille edit --time` read TIME with it, and anything else that takes a
/// time from a person (a desktop search provider, say) calls the same function, so that the same
/// words work everywhere. It depends on nothing but the text, the present, the time zone and the
/// day names given: no argument parsing, no agent.
///
/// The forms, after surrounding white space is removed, in any case (the words are English,
/// whatever the language; the person's own short day names may be added, `dayNames`):
///
/// - A clock time, which follows the time zone (`.clockTime`, once): `7:30`, `07:30`, `23:59`;
///   `7.30` and `19h30` (as written in much of Europe); `7:30pm`, `7:30 p.m.`, `7pm`; `noon`
///   (12:00) and `midnight` (0:00). See ``ClockTimeInput``.
/// - A clock time on days, which repeats (`.clockTime`, weekly): a list, range or group of days
///   before or after it: `mon,wed 6:45`, `mon-fri 7:00`, `weekdays 7:00`, `weekends 9:00`,
///   `daily 6:30`, `every day 6:30`, `every mon 7:00`, `every weekday 7:00`, `mondays 7:00`,
///   `6:45 sat,sun`, `7:30 on mondays`; days may also be written apart: `mon wed 6:45`,
///   `monday and wednesday 6:45`.
/// - A clock time on one day, once (`.instant`): `today 18:00`, `tomorrow 7:30`, `7:30 tomorrow`;
///   `fri 9:00` (the next Friday whose 9:00 is still ahead: today if it is Friday before nine);
///   `next friday 9am` (the first Friday after today, never today). `at` may come between:
///   `tomorrow at 7:30`, `at 7:30`.
/// - A date and time (`.instant`): `2026-12-01 07:30`, `2026-12-01T07:30:00+01:00` (see
///   ``ClockTimeInput``).
/// - A length from now (`.fromNow`): `in 20m`, `in 1h30m`, `+20m` (the length as
///   ``DurationInput`` reads it). It counts real time: across a change of the clocks, `in 1h`
///   is an hour away, whatever the clock on the wall says then.
///
/// A day and clock time is resolved in `zone` as a date and time is: a time in the hour skipped
/// when daylight saving time begins names the first instant after it, a time that occurs twice
/// its first occurrence. Whether an instant has passed is for the caller to say.
///
/// Anything else throws an ``InputError`` that names the bad part, and for a form this grammar
/// does not have, one it does (`19h` is not a clock time: `19:00`, `19h00`, or `in 19h`).
package enum TimeGrammar {
    /// Reads TIME.
    ///
    /// - Parameters:
    ///   - now: the present, from which moments and days are counted.
    ///   - zone: the time zone the days and clock times are in.
    ///   - dayNames: more words for single days (the person's own short day names, lowercase, as
    ///     `mo` or `sam`), each read as an English day name is; English names always work.
    package static func read(
        _ text: String, now: Date, zone: ZoneRules, dayNames: [String: Locale.Weekday] = [:]
    ) throws(InputError) -> TimeReading {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw .empty(.time) }
        guard trimmed.utf8.count <= ClockTimeInput.maximumLength else { throw .unrecognized(.time, trimmed) }
        let lowered = trimmed.lowercased()
        if let length = lengthFromNow(lowered) {
            do {
                return .fromNow(try DurationInput.parse(length))
            } catch {
                throw .invalid(
                    .time, trimmed,
                    reason: lowered.hasPrefix("+")
                        ? Translation.format("after + give how long from now, such as 20m or 1h30m (%s)", error.description)
                        : Translation.format("after “in” give how long from now, such as 20m or 1h30m (%s)", error.description))
            }
        }
        var words = Self.joiningDays(Self.words(of: lowered).filter { $0 != "on" }, dayNames: dayNames)
        let phrase = try dayPhrase(taking: &words, text: trimmed, dayNames: dayNames)
        let saidAt = words.first == "at"
        if saidAt { words.removeFirst() }
        let clockText = words.joined(separator: " ")
        guard let day = phrase else {
            do {
                switch try ClockTimeInput.schedule(saidAt ? clockText : trimmed, zone: zone) {
                case .relative(let relative): return .clockTime(relative)
                case .fixed(let instant): return .instant(instant)
                }
            } catch {
                throw hinted(error, text: trimmed)
            }
        }
        let time: Alarm.Schedule.Relative.Time
        do throws(InputError) {
            guard !clockText.isEmpty, case .relative(let relative) = try ClockTimeInput.schedule(clockText, zone: zone) else {
                throw InputError.unrecognized(.time, clockText)
            }
            time = relative.time
        } catch {
            if case .invalid(_, _, let reason) = error { throw .invalid(.time, trimmed, reason: reason) }
            throw .invalid(.time, trimmed, reason: Translation.format("give a clock time with the day, as in %s 7:30", day.example))
        }
        return day.reading(at: time, now: now, zone: zone)
    }

    /// The length after `in ` or `+`, or `nil` when the text does not start so.
    private static func lengthFromNow(_ lowered: String) -> String? {
        if lowered.hasPrefix("+") { return String(lowered.dropFirst()) }
        if lowered.hasPrefix("in ") || lowered.hasPrefix("in\t") { return String(lowered.dropFirst(3)) }
        return nil
    }

    /// The words of the text, split at white space, with the white space around commas removed
    /// (`mon, wed` is one word, `mon,wed`).
    private static func words(of lowered: String) -> [String] {
        var joined = ""
        var pendingSpace = false
        for character in lowered {
            if character == " " || character == "\t" {
                pendingSpace = true
            } else if character == "," {
                joined.append(",")
                pendingSpace = false
            } else {
                if pendingSpace, !joined.isEmpty, joined.last != "," { joined.append(" ") }
                joined.append(character)
                pendingSpace = false
            }
        }
        return joined.split(separator: " ").map(String.init)
    }

    /// The words with each run of two or more day words (`mon wed`, `monday and wednesday`) made
    /// one list (`mon,wed`), as days to repeat on are written.
    private static func joiningDays(_ words: [String], dayNames: [String: Locale.Weekday]) -> [String] {
        func isDays(_ word: String) -> Bool {
            guard word.contains(where: \.isLetter), !["today", "tomorrow", "tmrw", "next", "every", "at"].contains(word) else {
                return false
            }
            return dayNames[word] != nil || (try? WeekdaysInput.parse(word)) != nil
        }
        var result: [String] = []
        var run: [String] = []
        func endRun() {
            result.append(contentsOf: run.count > 1 ? [run.map { dayNames[$0]?.englishName ?? $0 }.joined(separator: ",")] : run)
            run = []
        }
        for (index, word) in words.enumerated() {
            if isDays(word) {
                run.append(word)
            } else if word == "and", !run.isEmpty, index + 1 < words.count, isDays(words[index + 1]) {
                continue
            } else {
                endRun()
                result.append(word)
            }
        }
        endRun()
        return result
    }

    /// The days a TIME names, if any, taken from the start or the end of its words.
    private enum Day {
        case today, tomorrow
        /// The next such day whose time is still ahead.
        case coming(Locale.Weekday)
        /// The first such day after today.
        case next(Locale.Weekday)
        /// Every one of these days.
        case every([Locale.Weekday])

        /// The words for the day as this grammar writes them, for a hint: `tomorrow`, `fri`,
        /// `next fri`, `weekdays`, `mon,wed` (never the typed text, which may hold anything).
        var example: String {
            switch self {
            case .today: return "today"
            case .tomorrow: return "tomorrow"
            case .coming(let day): return String(day.englishName.prefix(3))
            case .next(let day): return "next " + day.englishName.prefix(3)
            case .every(let days):
                switch WeekdaysInput.weekOrdered(days) {
                case WeekdaysInput.mondayFirst: return "daily"
                case [.monday, .tuesday, .wednesday, .thursday, .friday]: return "weekdays"
                case [.saturday, .sunday]: return "weekends"
                case let days: return days.map { String($0.englishName.prefix(3)) }.joined(separator: ",")
                }
            }
        }

        /// What the day and `time` name, from `now` in `zone`.
        func reading(at time: Alarm.Schedule.Relative.Time, now: Date, zone: ZoneRules) -> TimeReading {
            let today = CivilDate(containing: now, rules: zone)
            let offset: Int64
            switch self {
            case .every(let days):
                return .clockTime(.init(time: time, repeats: .weekly(WeekdaysInput.weekOrdered(days))))
            case .today:
                offset = 0
            case .tomorrow:
                offset = 1
            case .coming(let weekday):
                let ahead = Self.daysAhead(from: today.weekday, to: weekday)
                let instant = LocalTimeResolver(timeZone: zone).resolve(
                    localSeconds: today.localSeconds(hour: time.hour, minute: time.minute))
                offset = ahead == 0 && instant.instant <= now ? 7 : ahead
            case .next(let weekday):
                let ahead = Self.daysAhead(from: today.weekday, to: weekday)
                offset = ahead == 0 ? 7 : ahead
            }
            let wall = today.adding(days: offset).localSeconds(hour: time.hour, minute: time.minute)
            return .instant(LocalTimeResolver(timeZone: zone).resolve(localSeconds: wall).instant)
        }

        /// How many days from one weekday to the next `target`: 0 to 6.
        private static func daysAhead(from weekday: Locale.Weekday, to target: Locale.Weekday) -> Int64 {
            let from = WeekdaysInput.mondayFirst.firstIndex(of: weekday) ?? 0
            let to = WeekdaysInput.mondayFirst.firstIndex(of: target) ?? 0
            return Int64((to - from + 7) % 7)
        }
    }

    /// Takes the day phrase from the start of `words`, else from the end: `today`, `tomorrow`,
    /// `next DAY`, `every DAYS`, a single day, or days to repeat on. Throws for `every` and `next`
    /// followed by no day.
    private static func dayPhrase(
        taking words: inout [String], text: String, dayNames: [String: Locale.Weekday]
    ) throws(InputError) -> Day? {
        guard !words.isEmpty else { return nil }
        // `next DAY` and `every DAYS`, at the start or at the end.
        for start in Set([0, words.count - 2]).sorted() where start >= 0 && start + 1 < words.count {
            let (first, second) = (words[start], words[start + 1])
            let phrase: Day
            switch first {
            case "next":
                guard let weekday = WeekdaysInput.singleDay(named: second) ?? dayNames[second] else {
                    throw .invalid(.time, text, reason: Translation.text("after “next” give a day, as in next fri 9:00"))
                }
                phrase = .next(weekday)
            case "every":
                // `every weekday` and `every weekend` as people say them, besides the plurals.
                let group = ["weekday": "weekdays", "weekend": "weekends"][second] ?? second
                let days = group == "day" ? WeekdaysInput.mondayFirst : (try? WeekdaysInput.parse(group)) ?? dayNames[group].map { [$0] }
                guard let days else {
                    throw .invalid(.time, text, reason: Translation.text("after “every” give days, as in every mon 7:00 or every day 6:30"))
                }
                phrase = .every(days)
            default:
                continue
            }
            words.removeSubrange(start...(start + 1))
            return phrase
        }
        if let phrase = day(words[0], dayNames: dayNames) {
            words.removeFirst()
            return phrase
        }
        if words.count > 1, let phrase = day(words[words.count - 1], dayNames: dayNames) {
            words.removeLast()
            return phrase
        }
        return nil
    }

    /// The day one word names: `today`, `tomorrow`, one day (`fri`), or days to repeat on (a
    /// list, a range, a group or a plural); `nil` when it names none.
    private static func day(_ word: String, dayNames: [String: Locale.Weekday]) -> Day? {
        switch word {
        case "today": return .today
        case "tomorrow", "tmrw": return .tomorrow
        default: break
        }
        if let weekday = WeekdaysInput.singleDay(named: word) ?? dayNames[word] { return .coming(weekday) }
        // Days need a letter: `7:30` and `12` are no days.
        guard word.contains(where: \.isLetter), let days = try? WeekdaysInput.parse(word) else { return nil }
        return .every(days)
    }

    /// An error about TIME with a form that works named where the text reads as another kind of
    /// value: a length (`20m`: `in 20m`), or an hour with `h` (`19h`: `19:00` or `19h00`).
    private static func hinted(_ error: InputError, text: String) -> InputError {
        switch error {
        case .invalid(_, _, let reason): return .invalid(.time, text, reason: reason)
        case .unrecognized: break
        default: return error
        }
        guard let seconds = try? DurationInput.parse(text) else { return .unrecognized(.time, text) }
        // The length as this grammar writes it, never the typed text (which may hold anything).
        let length = DurationFormat.units(seconds)
        let compact = text.filter { !$0.isWhitespace }
        if compact.hasSuffix("h"), let hour = Int(compact.dropLast()), (0...23).contains(hour), compact.count <= 3 {
            return .invalid(
                .time, text,
                reason: Translation.format(
                    "for a clock time write %s:00 or %sh00; for %s hours from now, in %s", String(hour), String(hour), String(hour), length)
            )
        }
        return .invalid(
            .time, text, reason: Translation.format("that is a length of time: for that long from now, write in %s", length))
    }
}

/// What a TIME names (``TimeGrammar``).
package enum TimeReading: Hashable, Sendable {
    /// A clock time that follows the time zone, once or on days of the week.
    case clockTime(Alarm.Schedule.Relative)
    /// An instant: a date and time, or a day and a clock time.
    case instant(Date)
    /// A length of time from now, in seconds.
    case fromNow(TimeInterval)

    /// The schedule of an alarm at this time, a length counted from `now`.
    package func schedule(from now: Date) -> Alarm.Schedule {
        switch self {
        case .clockTime(let relative): .relative(relative)
        case .instant(let instant): .fixed(instant)
        case .fromNow(let seconds): .fixed(now.addingTimeInterval(seconds))
        }
    }

    /// The days it repeats on, when it names days (`weekdays 7:00`); `nil` otherwise.
    package var repeatingDays: [Locale.Weekday]? {
        guard case .clockTime(let relative) = self, case .weekly(let days) = relative.repeats else { return nil }
        return days
    }
}

extension TimeGrammar {
    /// The person's own short day names (`LC_TIME`: `mo`, `sam`), lowercase and without a final
    /// dot, for TIME to read besides the English ones; none under the C locale. The command and
    /// the desktop's search read them alike.
    package static func personDayNames(_ style: TimeStyle) -> [String: Locale.Weekday] {
        var names: [String: Locale.Weekday] = [:]
        for day in WeekdaysInput.mondayFirst {
            var name = style.weekdayText(day).lowercased()
            while name.hasSuffix(".") { name.removeLast() }
            // Only a word: never one that reads as a clock time, a day list or a command word.
            guard !name.isEmpty, name.allSatisfy(\.isLetter), WeekdaysInput.singleDay(named: name) == nil,
                !["at", "in", "next", "every", "today", "tomorrow", "noon", "midnight", "am", "pm"].contains(name)
            else { continue }
            names[name] = day
        }
        return names
    }
}
