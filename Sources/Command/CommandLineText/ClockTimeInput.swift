import AlarmModel
import FoundationEssentials
import Localization

/// Reads the clock times and the dates and times of TIME (``TimeGrammar`` reads the rest: days,
/// moments from now).
///
/// Accepted forms, after surrounding white space is removed:
///
/// - A clock time, which follows the time zone (AlarmKit's `.relative`):
///   `H:MM` or `HH:MM` on the 24-hour clock (`7:30`, `07:30`, `23:59`), with a dot or an `h`
///   instead of the colon as much of Europe writes it (`7.30`, `19h30`), or on the 12-hour clock
///   with `am` or `pm` in any case, with or without a space and with or without dots
///   (`7:30pm`, `7:30 PM`, `7:30 p.m.`, `12:00am` is 00:00, `12:30pm` is 12:30); the minutes may
///   be left out with `am` or `pm` (`7am`). The minute always has two digits. `noon` is 12:00 and
///   `midnight` 0:00.
/// - A date and time, which is an instant (`.fixed`): `YYYY-MM-DD`, then `T` or spaces, then a time
///   `H:MM`, `HH:MM` or `HH:MM:SS`, optionally with a fraction of a second (`07:30:00.250`) and
///   `am`/`pm`, then optionally a UTC offset `Z`, `+01:00`, `+0100` or `+01`.
///   Without an offset the date and time are local to the given time zone, resolved with
///   ``LocalTimeResolver``: a time that falls in a gap (the hour skipped when daylight saving time
///   begins) names the first instant after the gap, and a time that occurs twice (when the clocks
///   go back) names its first occurrence; a fraction of a second is kept only when the time exists.
///
/// Only ASCII digits are read. The hour must be 0 to 23 (1 to 12 with am or pm), the minute and
/// second 0 to 59; `24:00` and leap seconds are refused. Whether an instant has already passed is
/// for the caller to check: this reading depends on nothing but the text and the time zone.
package enum ClockTimeInput {
    /// The longest text considered, in UTF-8 bytes; anything longer is no time.
    static let maximumLength = 64

    /// Reads TIME, in `timeZone` when it is a local date and time.
    ///
    /// A clock time becomes `.relative` with `repeats: .never`; a date and time becomes `.fixed`.
    package static func parse(_ text: String, timeZone: ZoneRules) throws(InputError) -> Alarm.Schedule {
        try schedule(text, zone: timeZone)
    }

    /// Reads a clock time or a date and time, in `zone` when it is a local date and time.
    static func schedule(_ text: String, zone: ZoneRules) throws(InputError) -> Alarm.Schedule {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw .empty(.time) }
        guard trimmed.utf8.count <= maximumLength else { throw .unrecognized(.time, trimmed) }
        switch trimmed.lowercased() {
        case "noon": return .relative(.init(time: .init(hour: 12, minute: 0), repeats: .never))
        case "midnight": return .relative(.init(time: .init(hour: 0, minute: 0), repeats: .never))
        default: break
        }
        var scanner = ASCIIScanner(Substring(trimmed))
        if startsWithDate(scanner.bytes) {
            return .fixed(try dateTime(&scanner, text: trimmed, timeZone: zone))
        }
        let time = try TimeOfDay.read(&scanner, text: trimmed, allowSeconds: false)
        guard scanner.isAtEnd else { throw .unrecognized(.time, trimmed) }
        try time.validate(text: trimmed)
        return .relative(.init(time: .init(hour: time.hour24, minute: time.minute ?? 0), repeats: .never))
    }

    /// Reads TIME with the whole grammar (``TimeGrammar``): also the days (`mon,wed 6:45`,
    /// `tomorrow 7:30`, `next fri 9am`) and the moments from `now` (`in 20m`, `+20m`).
    package static func parse(_ text: String, timeZone: ZoneRules, now: Date) throws(InputError) -> Alarm.Schedule {
        try TimeGrammar.read(text, now: now, zone: timeZone).schedule(from: now)
    }

    /// Reads TIME and makes it repeat on `days` when they are given (`--repeat DAYS`).
    ///
    /// Only a clock time can repeat: a date and time with days throws, as does an empty list.
    package static func parse(
        _ text: String, repeatingOn days: [Locale.Weekday]?, timeZone: ZoneRules
    ) throws(InputError) -> Alarm.Schedule {
        try repeating(try parse(text, timeZone: timeZone), text: text, on: days)
    }

    /// Reads TIME as `parse(_:timeZone:now:)` does and makes it repeat on `days` when they are
    /// given (see ``repeating(_:text:on:now:)``).
    package static func parse(
        _ text: String, repeatingOn days: [Locale.Weekday]?, timeZone: ZoneRules, now: Date
    ) throws(InputError) -> Alarm.Schedule {
        try repeating(try TimeGrammar.read(text, now: now, zone: timeZone), text: text, on: days, now: now)
    }

    /// The schedule of what TIME names, repeating on `days` when they are given (`--repeat`): a
    /// moment from now (`tomorrow 7:30`) is an instant and cannot repeat, and days cannot be given
    /// both in TIME and apart (`weekdays 7:00` with `--repeat sat`).
    package static func repeating(
        _ reading: TimeReading, text: String, on days: [Locale.Weekday]?, now: Date
    ) throws(InputError) -> Alarm.Schedule {
        if days != nil, reading.repeatingDays != nil {
            throw .invalid(
                .time, text.trimmingWhitespace(),
                reason: Translation.text("it names its days already; give the days once, in the time (mon,wed 6:45) or with --repeat"))
        }
        return try repeating(reading.schedule(from: now), text: text, on: days)
    }

    /// `schedule`, repeating on `days` when they are given.
    private static func repeating(
        _ schedule: Alarm.Schedule, text: String, on days: [Locale.Weekday]?
    ) throws(InputError) -> Alarm.Schedule {
        guard let days else { return schedule }
        guard !days.isEmpty else { throw .empty(.days) }
        switch schedule {
        case .relative(var relative):
            relative.repeats = .weekly(WeekdaysInput.weekOrdered(days))
            return .relative(relative)
        case .fixed:
            throw .invalid(
                .time, text.trimmingWhitespace(),
                reason: Translation.text("a date and time alerts once and cannot repeat; give a clock time such as 7:30 to repeat on days"))
        }
    }

    /// Whether the text begins with four digits and a dash, as a date does.
    private static func startsWithDate(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 5 && bytes[0..<4].allSatisfy(ASCIIScanner.isDigit) && bytes[4] == UInt8(ascii: "-")
    }

    /// Reads `YYYY-MM-DD`, a time and an optional UTC offset, and finds the instant they name.
    private static func dateTime(
        _ scanner: inout ASCIIScanner, text: String, timeZone: ZoneRules
    ) throws(InputError) -> Date {
        guard let yearDigits = scanner.digits(limit: 4), scanner.consume(UInt8(ascii: "-")),
            let monthDigits = scanner.digits(limit: 3), scanner.consume(UInt8(ascii: "-")),
            let dayDigits = scanner.digits(limit: 3)
        else { throw .unrecognized(.time, text) }
        if scanner.isAtEnd {
            throw .invalid(.time, text, reason: Translation.format("a date needs a time too, as in %s 07:30", text))
        }
        let separated = scanner.consume(UInt8(ascii: "t")) || scanner.skipSpaces()
        guard separated else { throw .unrecognized(.time, text) }
        let time = try TimeOfDay.read(&scanner, text: text, allowSeconds: true)
        scanner.skipSpaces()
        let offset = try utcOffset(&scanner, text: text)
        guard scanner.isAtEnd else { throw .unrecognized(.time, text) }

        // Validate, largest part first.
        let year = Int64(yearDigits.value(limit: 9999) ?? 0)
        guard monthDigits.count <= 2, let month = monthDigits.value(limit: 12), month >= 1 else {
            throw .invalid(.time, text, reason: Translation.text("the month must be 1 to 12"))
        }
        let days = GregorianDate.daysIn(month: Int64(month), of: year)
        guard dayDigits.count <= 2, let day = dayDigits.value(limit: Int(days)), day >= 1 else {
            let yearMonth = "\(GregorianDate.padded(year, 4))-\(GregorianDate.padded(Int64(month), 2))"
            throw .invalid(.time, text, reason: Translation.format("the day must be 1 to %s in %s", String(days), yearMonth))
        }
        try time.validate(text: text)
        if let offset {
            guard offset.hours <= 18, offset.minutes <= 59, offset.hours * 60 + offset.minutes <= 18 * 60 else {
                throw .invalid(.time, text, reason: Translation.text("the UTC offset must be at most 18 hours, with minutes 0 to 59"))
            }
        }

        let date = GregorianDate(year: year, month: Int64(month), day: Int64(day))
        let wall =
            date.daysSinceEpoch * 86_400 + Int64(time.hour24) * 3_600 + Int64(time.minute ?? 0) * 60
            + Int64(time.second)
        if let offset {
            let seconds = wall - offset.sign * Int64(offset.hours * 3_600 + offset.minutes * 60)
            return Date(timeIntervalSince1970: TimeInterval(seconds) + time.fraction)
        }
        switch LocalTimeResolver(timeZone: timeZone).resolve(localSeconds: wall) {
        case .exact(let instant): return instant.addingTimeInterval(time.fraction)
        case .afterGap(let instant): return instant
        }
    }

    /// A UTC offset as typed.
    private struct Offset {
        var sign: Int64
        var hours: Int
        var minutes: Int
    }

    /// Reads `Z`, `±HH:MM`, `±HHMM` or `±HH` if one comes next.
    private static func utcOffset(_ scanner: inout ASCIIScanner, text: String) throws(InputError) -> Offset? {
        if scanner.consume(UInt8(ascii: "z")) { return Offset(sign: 1, hours: 0, minutes: 0) }
        let sign: Int64
        if scanner.consume(UInt8(ascii: "+")) {
            sign = 1
        } else if scanner.consume(UInt8(ascii: "-")) {
            sign = -1
        } else {
            return nil
        }
        guard let hours = scanner.digits(limit: 2), hours.count == 2 else { throw .unrecognized(.time, text) }
        var minutes = 0
        let colon = scanner.consume(UInt8(ascii: ":"))
        if let minuteDigits = scanner.digits(limit: 2) {
            guard minuteDigits.count == 2 else { throw .unrecognized(.time, text) }
            minutes = minuteDigits.value(limit: 99) ?? 99
        } else if colon {
            throw .unrecognized(.time, text)
        }
        return Offset(sign: sign, hours: hours.value(limit: 99) ?? 99, minutes: minutes)
    }
}

/// A time of day as typed: the hour, minute and second, and `am` or `pm` if given.
private struct TimeOfDay {
    enum Meridiem { case am, pm }

    var hourDigits: ASCIIScanner.Digits
    var minute: Int?
    var minuteDigitCount = 2
    var second = 0
    var secondDigitCount = 2
    var fraction: TimeInterval = 0
    var meridiem: Meridiem?

    /// The hour as typed, or 100 when it has more than two digits.
    var hour: Int { hourDigits.count <= 2 ? hourDigits.value(limit: 99) ?? 100 : 100 }

    /// The hour on the 24-hour clock; meaningful once validated.
    var hour24: Int {
        switch meridiem {
        case nil: hour
        case .am: hour == 12 ? 0 : hour
        case .pm: hour == 12 ? 12 : hour + 12
        }
    }

    /// Reads `H[:MM[:SS[.fff]]] [am|pm]`, the hour and minute also separated by `.` or `h`
    /// (`7.30`, `19h30`); ranges are checked by `validate`.
    static func read(_ scanner: inout ASCIIScanner, text: String, allowSeconds: Bool) throws(InputError) -> TimeOfDay {
        guard let hourDigits = scanner.digits(limit: 5) else { throw .unrecognized(.time, text) }
        var time = TimeOfDay(hourDigits: hourDigits)
        if scanner.consume(UInt8(ascii: ":")) || scanner.consume(UInt8(ascii: ".")) || scanner.consumeHourLetter() {
            guard let minuteDigits = scanner.digits(limit: 3) else { throw .unrecognized(.time, text) }
            time.minute = minuteDigits.value(limit: 999)
            time.minuteDigitCount = minuteDigits.count
            if scanner.consume(UInt8(ascii: ":")) {
                guard let secondDigits = scanner.digits(limit: 3) else { throw .unrecognized(.time, text) }
                guard allowSeconds else {
                    throw .invalid(.time, text, reason: Translation.text("a clock time has hours and minutes only, as in 7:30"))
                }
                time.second = secondDigits.value(limit: 999) ?? 999
                time.secondDigitCount = secondDigits.count
                if scanner.consume(UInt8(ascii: ".")) {
                    guard let fractionDigits = scanner.digits() else { throw .unrecognized(.time, text) }
                    time.fraction = Double("0." + fractionDigits.text.prefix(9)) ?? 0
                }
            }
        }
        scanner.skipSpaces()
        if scanner.consume(word: "a.m.") || scanner.consume(word: "am") {
            time.meridiem = .am
        } else if scanner.consume(word: "p.m.") || scanner.consume(word: "pm") {
            time.meridiem = .pm
        }
        return time
    }

    /// Checks each part's range, hour first.
    func validate(text: String) throws(InputError) {
        // `730`, `0730pm`: a time written without its colon.
        if minute == nil, (3...4).contains(hourDigits.count), let whole = hourDigits.value(limit: 9_999) {
            let (hours, minutes) = (whole / 100, whole % 100)
            if minutes <= 59, meridiem == nil ? hours <= 23 : (1...12).contains(hours) {
                let written = hourDigits.text.dropLast(2) + ":" + hourDigits.text.suffix(2)
                let marker = meridiem.map { $0 == .am ? "am" : "pm" } ?? ""
                throw .invalid(.time, text, reason: Translation.format("write the time with a colon, as in %s", written + marker))
            }
        }
        if meridiem != nil {
            guard (1...12).contains(hour) else {
                throw .invalid(.time, text, reason: Translation.text("with am or pm the hour must be 1 to 12"))
            }
        } else {
            guard (0...23).contains(hour) else { throw .invalid(.time, text, reason: Translation.text("the hour must be 0 to 23")) }
            guard minute != nil else {
                throw .invalid(
                    .time, text,
                    reason: Translation.format("add the minutes, as in %s:00, or am or pm, as in %sam", String(hour), String(hour)))
            }
        }
        if let minute {
            guard minuteDigitCount == 2 else {
                throw .invalid(.time, text, reason: Translation.text("the minute must have two digits, as in 7:05"))
            }
            guard minute <= 59 else { throw .invalid(.time, text, reason: Translation.text("the minute must be 0 to 59")) }
        }
        guard secondDigitCount == 2 else {
            throw .invalid(.time, text, reason: Translation.text("the second must have two digits, as in 07:30:05"))
        }
        guard second <= 59 else { throw .invalid(.time, text, reason: Translation.text("the second must be 0 to 59")) }
    }
}
