import AlarmModel
import AlarmRecords
import FoundationEssentials
import Localization

/// What a person typed into the desktop's search (GNOME's overview, Plasma's KRunner) asks of
/// Reveille: an alarm or timer to set, the list of alarms, or the alarms whose title has some words.
///
/// The forms, in any case (the words are English, as TIME's are; the person's own short day names
/// are read too, `dayNames`):
///
/// - `timer 10m tea`, `timer 1h 30m`: a timer for that long (DUR as ``DurationInput`` reads it),
///   with the words after it as its title.
/// - A bare length with a unit, `10m`, `1h30m tea`: a timer too. (`7:30` alone is a clock time,
///   never a length.)
/// - `alarm 7:30`, `alarm tomorrow 6:45 dentist`, `alarm weekdays 6:45`: an alarm at TIME, the whole
///   grammar of ``TimeGrammar``; the longest start of the words that is a TIME is the time, the
///   rest the title.
/// - `wake me at 6`, `wake me up at 6:30`, `wake me tomorrow at 7`: an alarm, whose hour alone
///   (`6`) is a clock time (`6:00`), since "at" already says it is one.
/// - `alarms`: the next alarms and running timers.
/// - Any other words, at least two letters: the alarms whose titles contain them.
///
/// A time already passed, or words this grammar does not read, set nothing: the query then looks
/// for titles only. Nothing here talks to the agent: the server that answers the search asks it for
/// the alarms (``SearchResultText``) and sets what ``SearchProposal/definitionParts(from:)`` gives.
package enum SearchQuery: Hashable, Sendable {
    /// An alarm or timer that Enter sets.
    case set(SearchProposal)
    /// The next alarms and running timers (`alarms`).
    case alarms
    /// The alarms whose titles contain these words.
    case find(String)

    /// The shortest text that finds alarms by title.
    package static let minimumFindLength = 2

    /// Reads a query; `nil` for one that asks nothing (empty, or one letter).
    package static func read(
        _ text: String, now: Date, zone: ZoneRules, dayNames: [String: Locale.Weekday] = [:]
    ) -> SearchQuery? {
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let first = words.first?.lowercased() else { return nil }
        if words.count == 1, ["alarms", "timers"].contains(first) { return .alarms }
        if let proposal = proposal(words, now: now, zone: zone, dayNames: dayNames) { return .set(proposal) }
        let joined = words.joined(separator: " ")
        return joined.count >= minimumFindLength ? .find(joined) : nil
    }

    /// The alarm or timer the words name, if they name one.
    private static func proposal(
        _ words: [String], now: Date, zone: ZoneRules, dayNames: [String: Locale.Weekday]
    ) -> SearchProposal? {
        let lowered = words.map { $0.lowercased() }
        switch lowered[0] {
        case "timer":
            return timer(Array(words.dropFirst()))
        case "alarm":
            return alarm(Array(words.dropFirst()), now: now, zone: zone, dayNames: dayNames, hourAlone: false)
        case "wake" where lowered.count > 2 && lowered[1] == "me":
            let rest = lowered.count > 3 && lowered[2] == "up" ? words.dropFirst(3) : words.dropFirst(2)
            return alarm(Array(rest), now: now, zone: zone, dayNames: dayNames, hourAlone: true)
        default:
            // A bare length needs a unit: `10m` is a timer, `7:30` is no length here.
            if lowered[0].contains(where: \.isLetter), let timer = timer(words) { return timer }
            return alarm(words, now: now, zone: zone, dayNames: dayNames, hourAlone: false)
        }
    }

    /// A timer: the longest start of `words` that is a length (up to four words: `1h 30m`), the
    /// rest its title.
    private static func timer(_ words: [String]) -> SearchProposal? {
        for count in stride(from: min(words.count, 4), through: 1, by: -1) {
            guard let seconds = try? DurationInput.parse(words.prefix(count).joined(separator: " ")) else { continue }
            return SearchProposal(time: .timer(seconds), title: title(words.dropFirst(count)))
        }
        return nil
    }

    /// An alarm: the longest start of `words` that TIME reads, the rest its title. With
    /// `hourAlone`, a whole hour (`6`, `at 6`, `tomorrow at 6`) is that hour's clock time.
    private static func alarm(
        _ words: [String], now: Date, zone: ZoneRules, dayNames: [String: Locale.Weekday], hourAlone: Bool
    ) -> SearchProposal? {
        for count in stride(from: words.count, through: 1, by: -1) {
            var timeWords = Array(words.prefix(count))
            if hourAlone, let last = timeWords.last, let hour = Int(last), (0...23).contains(hour), last.allSatisfy(\.isASCII) {
                timeWords[timeWords.count - 1] = "\(hour):00"
            }
            guard let reading = try? TimeGrammar.read(timeWords.joined(separator: " "), now: now, zone: zone, dayNames: dayNames)
            else { continue }
            if case .fixed(let instant) = reading.schedule(from: now), instant <= now { return nil }
            return SearchProposal(time: .alarm(reading), title: title(words.dropFirst(count)))
        }
        return nil
    }

    /// The title the words give, or `nil` for none.
    private static func title(_ words: ArraySlice<String>) -> String? {
        words.isEmpty ? nil : words.joined(separator: " ")
    }
}

/// An alarm or timer a search offers to set: when, and its title as typed.
package struct SearchProposal: Hashable, Sendable {
    /// When it rings.
    package enum Time: Hashable, Sendable {
        /// A countdown of this many seconds, from when it is set.
        case timer(TimeInterval)
        /// An alarm at a TIME.
        case alarm(TimeReading)
    }

    /// When it rings.
    package var time: Time
    /// Its title as typed, or `nil` for the default (`Alarm`, `Timer`).
    package var title: String?

    /// Creates a proposal.
    package init(time: Time, title: String?) {
        self.time = time
        self.title = title
    }

    /// Whether it is a timer.
    package var isTimer: Bool {
        if case .timer = time { true } else { false }
    }

    /// What the search shows for it, in the person's language and clock: the result's name, which
    /// says what Enter sets ("Timer for 10 min: tea", "Alarm at Sat 07:30: dentist", "Alarm at
    /// 06:45 on weekdays"), and a line on when it rings.
    package func text(at reading: ClockReading, style: TimeStyle) -> (name: String, detail: String) {
        switch time {
        case .timer(let seconds):
            let length = LengthText.text(seconds: Int64(seconds.rounded()))
            let end = reading.now.addingTimeInterval(seconds)
            let name =
                title.map { Translation.format("Timer for %s: %s", length, AlarmListFormat.cleaned($0)) }
                ?? Translation.format("Timer for %s", length)
            return (
                name,
                Translation.format(
                    "rings at %s, %s", LocalTimeFormat.string(for: end, at: reading, style: style), LengthText.fromNow(seconds))
            )
        case .alarm(let timeReading):
            let schedule = timeReading.schedule(from: reading.now)
            let next = AlertCalendar(timeZone: reading.timeZone).nextAlert(of: schedule, after: reading.now)
            let when: String
            if let days = timeReading.repeatingDays, case .clockTime(let relative) = timeReading {
                when =
                    style.clockText(hour: relative.time.hour, minute: relative.time.minute) + " "
                    + Confirmation.daysText(days, style: style)
            } else {
                when = next.map { LocalTimeFormat.string(for: $0, at: reading, style: style) } ?? "-"
            }
            let name =
                title.map { Translation.format("Alarm at %s: %s", when, AlarmListFormat.cleaned($0)) }
                ?? Translation.format("Alarm at %s", when)
            let detail =
                next.map {
                    Translation.format(
                        "next %s, %s", LocalTimeFormat.string(for: $0, at: reading, style: style),
                        LengthText.fromNow($0.timeIntervalSince(reading.now)))
                } ?? ""
            return (name, detail)
        }
    }

    /// What `reveille timer` or `reveille add` would be given for it: the schedule (`nil` for a
    /// timer), the countdown, the title and whether it snoozes, read at `now` (the instant Enter
    /// is pressed, so a timer counts from then).
    package func definitionParts(from now: Date) -> (schedule: Alarm.Schedule?, countdown: TimeInterval?, title: String) {
        switch time {
        case .timer(let seconds):
            (nil, seconds, title ?? "Timer")
        case .alarm(let reading):
            (reading.schedule(from: now), nil, title ?? "Alarm")
        }
    }
}

/// The alarms a search shows, and how: for `alarms` the next ones and the running timers, for
/// words the alarms whose titles contain them; each named as the command names it, with when it
/// rings next (``Confirmation``'s words).
package enum SearchResultText {
    /// The most alarms one search shows.
    package static let maximumAlarms = 10

    /// The alarms `query` finds among `records`, soonest first (ringing ones first, alarms turned
    /// off last); none for a query that sets something.
    package static func alarms(for query: SearchQuery, among records: [AlarmRecord], at reading: ClockReading) -> [AlarmRecord] {
        let found: [AlarmRecord]
        switch query {
        case .set: return []
        case .alarms: found = records.filter(\.definition.isEnabled)
        case .find(let words):
            let wanted = words.lowercased()
            found = records.filter { $0.definition.title.lowercased().contains(wanted) }
        }
        func order(_ record: AlarmRecord) -> (Int, Date) {
            if case .alerting = record.phase { return (0, .distantPast) }
            if case .paused = record.phase { return (2, .distantFuture) }
            guard let date = record.fireDate(from: reading) else { return (3, .distantFuture) }
            return (1, date)
        }
        return Array(found.sorted { order($0) < order($1) }.prefix(maximumAlarms))
    }

    /// An alarm's name ("“Tea”", "Timer") and what it does next ("rings at 14:35, in 5 min").
    package static func text(of record: AlarmRecord, at reading: ClockReading, style: TimeStyle) -> (name: String, detail: String) {
        (Confirmation.name(of: record.definition), Confirmation.next(record, at: reading, style: style))
    }
}
