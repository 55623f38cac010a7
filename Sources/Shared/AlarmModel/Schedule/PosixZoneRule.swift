/// A time zone rule in the POSIX `TZ` form that ends a TZif file (RFC 8536, section 3.3), such as
/// `CET-1CEST,M3.5.0,M10.5.0/3`: standard time, and optionally daylight saving time with the
/// rules for when it starts and ends each year. It gives the offsets after the file's last
/// listed transition.
struct PosixZoneRule: Hashable, Sendable {
    /// Seconds east of UTC in standard time.
    let standardOffset: Int64
    /// Daylight saving time, when the zone has it.
    let daylight: Daylight?

    /// Daylight saving time: its offset and the yearly rules for its start and end.
    struct Daylight: Hashable, Sendable {
        /// Seconds east of UTC in daylight saving time.
        let offset: Int64
        /// When it starts, in local standard time.
        let start: YearlyMoment
        /// When it ends, in local daylight saving time.
        let end: YearlyMoment
    }

    /// A day of the year and a time on it (`M3.5.0/2`, `J60`, `59/-1`).
    struct YearlyMoment: Hashable, Sendable {
        /// How the day is named.
        enum Day: Hashable, Sendable {
            /// `Jn`: day 1...365, February 29 never counted.
            case julianSkippingLeapDay(Int64)
            /// `n`: day 0...365, February 29 counted in leap years.
            case zeroBased(Int64)
            /// `Mm.w.d`: weekday `d` (0 is Sunday) of week `w` (1...5, 5 the last) of month `m`.
            case monthWeekDay(month: Int64, week: Int64, weekday: Int64)
        }
        let day: Day
        /// Seconds after local midnight (may be negative, or past 24 hours: RFC 8536's extension).
        let time: Int64

        /// Days since 1970-01-01 of this day in `year`.
        func daysSinceEpoch(in year: Int64) -> Int64 {
            switch day {
            case .julianSkippingLeapDay(let n):
                let shift: Int64 = (GregorianDate.daysIn(month: 2, of: year) == 29 && n >= 60) ? 1 : 0
                return GregorianDate(year: year, month: 1, day: 1).daysSinceEpoch + n - 1 + shift
            case .zeroBased(let n):
                return GregorianDate(year: year, month: 1, day: 1).daysSinceEpoch + n
            case .monthWeekDay(let month, let week, let weekday):
                let first = GregorianDate(year: year, month: month, day: 1).daysSinceEpoch
                let firstWeekday = (first + 4).floorModulo(7)  // 1970-01-01 was a Thursday (4)
                var day = first + (weekday - firstWeekday).floorModulo(7) + 7 * (week - 1)
                let length = GregorianDate.daysIn(month: month, of: year)
                while day >= first + length { day -= 7 }
                return day
            }
        }
    }

    /// Parses the rule; `nil` when the text is not a rule this type understands.
    init?(_ text: String) {
        var scanner = RuleScanner(Array(text.utf8))
        guard scanner.skipName(), let standard = scanner.offset() else { return nil }
        standardOffset = -standard
        if scanner.atEnd {
            daylight = nil
            return
        }
        guard scanner.skipName() else { return nil }
        var daylightOffset = standardOffset + 3_600
        if !scanner.peek(","), let given = scanner.offset() { daylightOffset = -given }
        guard scanner.take(","), let start = scanner.moment(), scanner.take(","), let end = scanner.moment(), scanner.atEnd
        else { return nil }
        daylight = Daylight(offset: daylightOffset, start: start, end: end)
    }

    /// The offset (seconds east of UTC) in force at an instant (seconds since 1970 UTC).
    func offset(at instant: Int64) -> Int64 {
        guard daylight != nil else { return standardOffset }
        let year = GregorianDate(daysSinceEpoch: instant.floorDivided(by: 86_400)).year
        var current = standardOffset
        for change in changes(in: (year - 1)...(year + 1)) where change.instant <= instant {
            current = change.offset
        }
        return current
    }

    /// The first change of offset strictly after `instant`, if the zone has daylight saving time.
    func nextChange(after instant: Int64) -> Int64? {
        guard daylight != nil else { return nil }
        let year = GregorianDate(daysSinceEpoch: instant.floorDivided(by: 86_400)).year
        let current = offset(at: instant)
        // A start and an end at one instant change nothing; two years hold the next real change.
        for change in changes(in: year...(year + 2)) where change.instant > instant && offset(at: change.instant) != current {
            return change.instant
        }
        return nil
    }

    /// Each start and end of daylight saving time in `years`, in order, with the offset after it.
    private func changes(in years: ClosedRange<Int64>) -> [(instant: Int64, offset: Int64)] {
        guard let daylight else { return [] }
        var changes: [(instant: Int64, offset: Int64)] = []
        for year in years {
            let start = daylight.start.daysSinceEpoch(in: year) * 86_400 + daylight.start.time - standardOffset
            let end = daylight.end.daysSinceEpoch(in: year) * 86_400 + daylight.end.time - daylight.offset
            changes.append((start, daylight.offset))
            changes.append((end, standardOffset))
        }
        // A year's end at the next year's start (`J365/25` with `0/0`: daylight saving time all
        // year) comes first, so daylight saving time goes on.
        return changes.sorted { ($0.instant, $0.offset == daylight.offset ? 1 : 0) < ($1.instant, $1.offset == daylight.offset ? 1 : 0) }
    }
}

/// Reads the parts of a POSIX `TZ` rule.
private struct RuleScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    func peek(_ character: Character) -> Bool {
        index < bytes.count && bytes[index] == character.asciiValue
    }

    mutating func take(_ character: Character) -> Bool {
        guard peek(character) else { return false }
        index += 1
        return true
    }

    /// A zone abbreviation: three or more letters, or `<...>` (which may hold digits and signs).
    mutating func skipName() -> Bool {
        if take("<") {
            while index < bytes.count, bytes[index] != UInt8(ascii: ">") { index += 1 }
            return take(">")
        }
        let start = index
        while index < bytes.count, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[index] & 0xDF) { index += 1 }
        return index - start >= 3
    }

    /// `[+-]hh[:mm[:ss]]` in seconds; the hours may run to 167 (RFC 8536's extension).
    mutating func offset() -> Int64? {
        var sign: Int64 = 1
        if take("-") { sign = -1 } else { _ = take("+") }
        guard let hours = number(), hours <= 167 else { return nil }
        var seconds = hours * 3_600
        if take(":") {
            guard let minutes = number(), minutes < 60 else { return nil }
            seconds += minutes * 60
            if take(":") {
                guard let more = number(), more < 60 else { return nil }
                seconds += more
            }
        }
        return sign * seconds
    }

    /// `Jn`, `n` or `Mm.w.d`, with an optional `/time` (02:00 when absent).
    mutating func moment() -> PosixZoneRule.YearlyMoment? {
        let day: PosixZoneRule.YearlyMoment.Day
        if take("J") {
            guard let n = number(), (1...365).contains(n) else { return nil }
            day = .julianSkippingLeapDay(n)
        } else if take("M") {
            guard let month = number(), (1...12).contains(month), take("."), let week = number(), (1...5).contains(week),
                take("."), let weekday = number(), (0...6).contains(weekday)
            else { return nil }
            day = .monthWeekDay(month: month, week: week, weekday: weekday)
        } else {
            guard let n = number(), (0...365).contains(n) else { return nil }
            day = .zeroBased(n)
        }
        var time: Int64 = 7_200
        if take("/") {
            guard let given = offset() else { return nil }
            time = given
        }
        return PosixZoneRule.YearlyMoment(day: day, time: time)
    }

    private mutating func number() -> Int64? {
        let start = index
        var value: Int64 = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]), index - start < 4 {
            value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        return index > start ? value : nil
    }
}
