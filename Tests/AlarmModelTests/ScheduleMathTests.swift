import AlarmModel
import Foundation
import PropertyBased
import Testing
import TestRequirements

// MARK: - Reference arithmetic
//
// Nothing here uses AlarmCore's schedule code: offsets come from `TimeZone.secondsFromGMT(for:)`
// alone, and days, weekdays and wall times from integer arithmetic.

private let secondsPerDay: Int64 = 86_400

/// The remainder of division rounding down; `divisor` is positive.
private func floorMod(_ value: Int64, _ divisor: Int64) -> Int64 {
    let remainder = value % divisor
    return remainder < 0 ? remainder + divisor : remainder
}

/// Division rounding down; `divisor` is positive.
private func floorDiv(_ value: Int64, _ divisor: Int64) -> Int64 {
    (value - floorMod(value, divisor)) / divisor
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
private func daysSinceEpoch(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = floorDiv(y, 400)
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
}

/// Seconds since 1970-01-01 00:00 of a date and time: an instant read as UTC, a wall time read as local.
private func seconds(_ year: Int64, _ month: Int64, _ day: Int64, _ hour: Int64 = 0, _ minute: Int64 = 0) -> Int64 {
    daysSinceEpoch(year, month, day) * secondsPerDay + hour * 3_600 + minute * 60
}

private func instant(_ seconds: Int64) -> Date {
    Date(timeIntervalSince1970: TimeInterval(seconds))
}

private func utc(_ year: Int64, _ month: Int64, _ day: Int64, _ hour: Int64 = 0, _ minute: Int64 = 0) -> Date {
    instant(seconds(year, month, day, hour, minute))
}

/// Sunday first: the index `weekdayIndex(ofDay:)` gives.
private let weekdayNames: [Locale.Weekday] = [.sunday, .monday, .tuesday, .wednesday, .thursday, .friday, .saturday]

/// 1970-01-01 was a Thursday.
private func weekdayIndex(ofDay day: Int64) -> Int {
    Int(floorMod(day + 4, 7))
}

private func clockTime(
    _ hour: Int, _ minute: Int, _ repeats: Alarm.Schedule.Relative.Recurrence = .never
)
    -> Alarm.Schedule.Relative
{
    Alarm.Schedule.Relative(time: .init(hour: hour, minute: minute), repeats: repeats)
}

/// The alarm rule restated over a scan of whole minutes.
///
/// An alarm rings at the first instant the wall clock reaches its time on a day it alerts, by
/// showing it or by jumping over it (a gap). A time the clock shows again after going back was
/// reached already, so it rings once. The offsets of these zones since 1990 are multiples of
/// 15 minutes and change on whole minutes, so the wall clock at whole minutes tells it all.
private struct MinuteScan {
    let zone: TimeZone
    /// The alarm's time, in seconds after local midnight.
    let target: Int64
    /// Sunday = 0; `nil` for every day.
    let weekdays: Set<Int>?

    init(zone: TimeZone, relative: Alarm.Schedule.Relative) {
        self.zone = zone
        target = Int64(relative.time.hour) * 3_600 + Int64(relative.time.minute) * 60
        switch relative.repeats {
        case .never: weekdays = nil
        case .weekly(let days): weekdays = Set(days.map { weekdayNames.firstIndex(of: $0)! })
        }
    }

    func offset(at seconds: Int64) -> Int64 {
        Int64(zone.secondsFromGMT(for: instant(seconds)))
    }

    func wallClock(at seconds: Int64) -> Int64 {
        seconds + offset(at: seconds)
    }

    func alerts(onDay day: Int64) -> Bool {
        weekdays?.contains(weekdayIndex(ofDay: day)) ?? true
    }

    /// The days the alarm alerts on whose time, as a wall time, lies in `walls`.
    func alertingDays(withTimeIn walls: ClosedRange<Int64>) -> [Int64] {
        var days: [Int64] = []
        var day = floorDiv(walls.lowerBound - target + secondsPerDay - 1, secondsPerDay)
        while day * secondsPerDay + target <= walls.upperBound {
            if alerts(onDay: day) { days.append(day) }
            day += 1
        }
        return days
    }

    /// The whole-minute instants in (`start`, `end`] at which the alarm rings, at most `limit`.
    func rings(after start: Int64, through end: Int64, limit: Int) -> [Int64] {
        var minute = floorDiv(start, 60) * 60 + 60
        // The highest wall time shown before `minute`. Clocks never go back by more than a day.
        var highWater = Int64.min
        for earlier in stride(from: minute - secondsPerDay - 3_600, to: minute, by: 60) {
            highWater = max(highWater, wallClock(at: earlier))
        }
        var found: [Int64] = []
        while minute <= end, found.count < limit {
            let wall = wallClock(at: minute)
            if wall > highWater {
                if !alertingDays(withTimeIn: (highWater + 1)...wall).isEmpty { found.append(minute) }
                highWater = wall
            }
            minute += 60
        }
        return found
    }

    /// The first whole-minute instant the wall clock reaches `wall`, and whether it shows it
    /// (rather than jumping over it). Offsets lie within UTC-12...UTC+14.
    func firstReaching(wall: Int64) -> (instant: Int64, exact: Bool) {
        var minute = wall - 15 * 3_600
        while true {
            let shown = wallClock(at: minute)
            if shown >= wall { return (minute, shown == wall) }
            minute += 60
        }
    }
}

// MARK: - Inputs

private enum Inputs {
    static let zoneIDs = [
        "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Pacific/Apia", "Asia/Kathmandu", "UTC",
    ]

    static let earliest = seconds(1990, 1, 1)
    static let latest = seconds(2040, 1, 1)
    /// Apia skipped 2011-12-30; starts land anywhere from 2011-12-28 to 2011-12-31 UTC.
    static let apiaWeek = seconds(2011, 12, 28)
    static let spread = 4 * secondsPerDay

    /// An offset change: its instant, and the wall time it happens at as the old offset reads it.
    struct Change: Sendable {
        let instant: Int64
        let wallBefore: Int64
    }

    /// The zone's offset changes from 1990 to 2040, to aim inputs at. Foundation's transition
    /// API only chooses inputs here; the expected answers come from `MinuteScan`.
    static func changes(in zone: TimeZone) -> [Change] {
        var found: [Change] = []
        var cursor = instant(earliest + spread)
        while let next = zone.nextDaylightSavingTimeTransition(after: cursor), next < instant(latest - spread) {
            let seconds = Int64(next.timeIntervalSince1970)
            found.append(Change(instant: seconds, wallBefore: seconds + Int64(zone.secondsFromGMT(for: instant(seconds - 1)))))
            cursor = next
        }
        return found
    }

    /// Start instants from 1990 to 2040 with clock times: anywhere; from a day and a half before
    /// an offset change to six hours after, with a time within an hour of the change's wall time
    /// (twice as often) or any time; or in Apia's week.
    static func moments(
        around changes: [Change]
    )
        -> Generator<(start: Int64, time: Alarm.Schedule.Relative.Time), some Sequence & SendableMetatype>
    {
        zip(
            Gen.int(in: 0...4), Gen.int64(in: earliest...latest), Gen.int(in: 0...Int(Int32.max)),
            Gen.int64(in: -36 * 3_600...6 * 3_600), Gen.int64(in: -60...60), times
        )
        .map { kind, anywhere, pick, fromChange, minutes, time in
            switch kind {
            case 1...3 where !changes.isEmpty:
                let change = changes[pick % changes.count]
                guard kind < 3 else { return (change.instant + fromChange, time) }
                let wall = floorMod(change.wallBefore + minutes * 60, secondsPerDay)
                return (change.instant + fromChange, .init(hour: Int(wall / 3_600), minute: Int(wall % 3_600 / 60)))
            case 4: return (apiaWeek + floorMod(anywhere, spread), time)
            default: return (anywhere, time)
            }
        }
    }

    /// Wall times (local seconds, whole minutes) from 1990 to 2040: anywhere, within three hours
    /// of an offset change's wall time, or in Apia's week.
    static func walls(around changes: [Change]) -> Generator<Int64, some Sequence & SendableMetatype> {
        zip(Gen.int(in: 0...3), Gen.int64(in: earliest...latest), Gen.int(in: 0...Int(Int32.max)), Gen.int64(in: -180...180))
            .map { kind, anywhere, pick, minutes in
                switch kind {
                case 1...2 where !changes.isEmpty: changes[pick % changes.count].wallBefore + minutes * 60
                case 3: apiaWeek + floorMod(anywhere, spread / 60) * 60
                default: floorDiv(anywhere, 60) * 60
                }
            }
    }

    /// Clock times, half of them early in the morning, where the offset changes are, and on
    /// minutes where those changes begin and end.
    static let times = zip(Gen.bool, Gen.int(in: 0...23), Gen.int(in: 0...4), Gen.bool, Gen.int(in: 0...59), Gen.int(in: 0...7))
        .map { early, anyHour, earlyHour, edge, anyMinute, edgeMinute in
            Alarm.Schedule.Relative.Time(
                hour: early ? earlyHour : anyHour,
                minute: edge ? [0, 1, 15, 29, 30, 31, 45, 59][edgeMinute] : anyMinute)
        }

    /// `.never`, or any non-empty set of weekdays, named in any order, possibly twice.
    static let recurrences = zip(Gen.bool(0.25), Gen.int(in: 0...6).array(of: 1...9))
        .map { once, days -> Alarm.Schedule.Relative.Recurrence in
            once ? .never : .weekly(days.map { weekdayNames[$0] })
        }
}

// MARK: - Tests

@Suite("Schedule math", .onItsOwnThread)
struct ScheduleMathTests {
    /// Foundation's zone (ICU's copy of tzdata): the reference the schedule math is checked against.
    func zone(_ id: String) throws -> TimeZone {
        try #require(TimeZone(identifier: id))
    }

    /// The zone from the system's database, which the schedule math reads.
    func rules(_ id: String) throws -> ZoneRules {
        try #require(ZoneRules(named: id))
    }

    func calendar(_ id: String) throws -> AlertCalendar {
        AlertCalendar(timeZone: try rules(id))
    }

    func resolve(_ id: String, _ wall: Int64) throws -> LocalTimeResolver.Resolution {
        LocalTimeResolver(timeZone: try rules(id)).resolve(localSeconds: wall)
    }

    // MARK: LocalTimeResolver

    @Test("A time that exists once resolves exactly")
    func resolvesExistingTimes() throws {
        #expect(try resolve("America/New_York", seconds(2026, 7, 1, 7, 30)) == .exact(utc(2026, 7, 1, 11, 30)))
        #expect(try resolve("America/New_York", seconds(2026, 1, 15, 7, 30)) == .exact(utc(2026, 1, 15, 12, 30)))
        #expect(try resolve("Asia/Kathmandu", seconds(2026, 1, 15, 7, 30)) == .exact(utc(2026, 1, 15, 1, 45)))
        #expect(try resolve("Australia/Lord_Howe", seconds(2026, 1, 15, 7, 30)) == .exact(utc(2026, 1, 14, 20, 30)))
        #expect(try resolve("UTC", seconds(1969, 12, 31, 23, 59)) == .exact(utc(1969, 12, 31, 23, 59)))
    }

    @Test("A time in a gap resolves to the first instant after it")
    func resolvesGapsAfterTheGap() throws {
        let newYorkSpring = utc(2026, 3, 8, 7)
        #expect(try resolve("America/New_York", seconds(2026, 3, 8, 1, 59)) == .exact(utc(2026, 3, 8, 6, 59)))
        #expect(try resolve("America/New_York", seconds(2026, 3, 8, 2, 0)) == .afterGap(newYorkSpring))
        #expect(try resolve("America/New_York", seconds(2026, 3, 8, 2, 30)) == .afterGap(newYorkSpring))
        #expect(try resolve("America/New_York", seconds(2026, 3, 8, 2, 59)) == .afterGap(newYorkSpring))
        #expect(try resolve("America/New_York", seconds(2026, 3, 8, 3, 0)) == .exact(newYorkSpring))

        // Lord Howe goes from +10:30 to +11 at 02:00 local.
        let lordHoweSpring = utc(2026, 10, 3, 15, 30)
        #expect(try resolve("Australia/Lord_Howe", seconds(2026, 10, 4, 2, 0)) == .afterGap(lordHoweSpring))
        #expect(try resolve("Australia/Lord_Howe", seconds(2026, 10, 4, 2, 29)) == .afterGap(lordHoweSpring))
        #expect(try resolve("Australia/Lord_Howe", seconds(2026, 10, 4, 2, 30)) == .exact(lordHoweSpring))

        // Apia went from -10 to +14: Thursday 2011-12-29 24:00 was followed by Saturday 2011-12-31 00:00.
        let apiaJump = utc(2011, 12, 30, 10)
        #expect(try resolve("Pacific/Apia", seconds(2011, 12, 29, 23, 59)) == .exact(utc(2011, 12, 30, 9, 59)))
        #expect(try resolve("Pacific/Apia", seconds(2011, 12, 30, 0, 0)) == .afterGap(apiaJump))
        #expect(try resolve("Pacific/Apia", seconds(2011, 12, 30, 7, 30)) == .afterGap(apiaJump))
        #expect(try resolve("Pacific/Apia", seconds(2011, 12, 30, 23, 59)) == .afterGap(apiaJump))
        #expect(try resolve("Pacific/Apia", seconds(2011, 12, 31, 0, 0)) == .exact(apiaJump))
        #expect(try resolve("Pacific/Apia", seconds(2011, 12, 31, 7, 30)) == .exact(utc(2011, 12, 30, 17, 30)))
    }

    @Test("A time in an overlap resolves to its first occurrence")
    func resolvesOverlapsToTheFirstOccurrence() throws {
        #expect(try resolve("America/New_York", seconds(2026, 11, 1, 0, 59)) == .exact(utc(2026, 11, 1, 4, 59)))
        #expect(try resolve("America/New_York", seconds(2026, 11, 1, 1, 0)) == .exact(utc(2026, 11, 1, 5, 0)))
        #expect(try resolve("America/New_York", seconds(2026, 11, 1, 1, 30)) == .exact(utc(2026, 11, 1, 5, 30)))
        #expect(try resolve("America/New_York", seconds(2026, 11, 1, 1, 59)) == .exact(utc(2026, 11, 1, 5, 59)))
        #expect(try resolve("America/New_York", seconds(2026, 11, 1, 2, 0)) == .exact(utc(2026, 11, 1, 7, 0)))
        #expect(try resolve("Europe/Berlin", seconds(2026, 10, 25, 2, 30)) == .exact(utc(2026, 10, 25, 0, 30)))
        // Lord Howe goes from +11 back to +10:30 at 02:00 local: 01:30 to 01:59 happen twice.
        #expect(try resolve("Australia/Lord_Howe", seconds(2026, 4, 5, 1, 45)) == .exact(utc(2026, 4, 4, 14, 45)))
        #expect(try resolve("Australia/Lord_Howe", seconds(2026, 4, 5, 2, 0)) == .exact(utc(2026, 4, 4, 15, 30)))
    }

    @Test("The resolver agrees with a minute scan of the zone", arguments: Inputs.zoneIDs)
    func resolverAgreesWithMinuteScan(zoneID: String) async throws {
        let zone = try zone(zoneID)
        let resolver = LocalTimeResolver(timeZone: try rules(zone.identifier))
        let scan = MinuteScan(zone: zone, relative: clockTime(0, 0))
        let walls = Inputs.walls(around: Inputs.changes(in: zone))
        await propertyCheck(count: 500, input: walls) { wall in
            let reached = scan.firstReaching(wall: wall)
            let expected: LocalTimeResolver.Resolution =
                reached.exact ? .exact(instant(reached.instant)) : .afterGap(instant(reached.instant))
            #expect(resolver.resolve(localSeconds: wall) == expected, "wall time \(wall) in \(zone.identifier)")
        }
    }

    // MARK: CivilDate

    @Test("Weekdays, before and after 1970")
    func civilDateWeekdays() {
        let known: [(Int64, Int64, Int64, Locale.Weekday)] = [
            (1970, 1, 1, .thursday), (1969, 12, 31, .wednesday), (1969, 12, 28, .sunday), (1900, 1, 1, .monday),
            (1601, 1, 1, .monday), (2000, 2, 29, .tuesday), (2011, 12, 30, .friday), (2026, 3, 8, .sunday),
            (2026, 3, 29, .sunday), (2040, 1, 1, .sunday),
        ]
        for (year, month, day, weekday) in known {
            #expect(CivilDate(daysSinceEpoch: daysSinceEpoch(year, month, day)).weekday == weekday, "\(year)-\(month)-\(day)")
        }
    }

    @Test("Weekdays agree with Foundation's Gregorian calendar")
    func civilDateWeekdaysAgreeWithCalendar() async throws {
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = try zone("UTC")
        await propertyCheck(count: 300, input: Gen.int64(in: -1_000_000...1_000_000)) { day in
            let number = gregorian.component(.weekday, from: instant(day * secondsPerDay))
            #expect(weekdayNames[number - 1] == CivilDate(daysSinceEpoch: day).weekday, "day \(day)")
        }
    }

    @Test("The local day of an instant rounds down, before 1970 too")
    func civilDateContainingRoundsDown() throws {
        let utcZone = try rules("UTC")
        let cases: [(TimeInterval, Int64)] = [
            (0, 0), (86_399.5, 0), (86_400, 1), (-0.5, -1), (-1, -1), (-86_400, -1), (-86_400.5, -2), (-86_401, -2),
        ]
        for (interval, day) in cases {
            #expect(CivilDate(containing: Date(timeIntervalSince1970: interval), rules: utcZone).daysSinceEpoch == day, "\(interval)")
        }
        // 1969-12-31 20:00 UTC is already 1970-01-01 in Kathmandu (+5:30 then), still the 31st in New York.
        let evening = utc(1969, 12, 31, 20)
        #expect(CivilDate(containing: evening, rules: try rules("Asia/Kathmandu")).daysSinceEpoch == 0)
        #expect(CivilDate(containing: evening, rules: try rules("America/New_York")).daysSinceEpoch == -1)
    }

    @Test("The local day of an instant matches the zone's offset", arguments: Inputs.zoneIDs)
    func civilDateContainingAgreesWithOffset(zoneID: String) async throws {
        let zone = try zone(zoneID)
        let zoneRules = try rules(zoneID)
        let instants = zip(Gen.int64(in: -3_000_000_000...3_000_000_000), Gen.int(in: 0...3))
            .map { seconds, quarter in TimeInterval(seconds) + TimeInterval(quarter) / 4 }
        await propertyCheck(count: 100, input: instants) { interval in
            let date = Date(timeIntervalSince1970: interval)
            let local = Int64(interval.rounded(.down)) + Int64(zone.secondsFromGMT(for: date))
            #expect(CivilDate(containing: date, rules: zoneRules).daysSinceEpoch == floorDiv(local, secondsPerDay))
        }
    }

    @Test("Day arithmetic, ordering and wall times")
    func civilDateArithmetic() {
        let leapDay = CivilDate(daysSinceEpoch: daysSinceEpoch(2024, 2, 29))
        #expect(leapDay.adding(days: 1).daysSinceEpoch == daysSinceEpoch(2024, 3, 1))
        #expect(leapDay.adding(days: -366).daysSinceEpoch == daysSinceEpoch(2023, 2, 28))
        #expect(CivilDate(daysSinceEpoch: 0).adding(days: -1) < CivilDate(daysSinceEpoch: 0))
        #expect(leapDay.localSeconds(hour: 7, minute: 30) == seconds(2024, 2, 29, 7, 30))
        #expect(CivilDate(daysSinceEpoch: -1).localSeconds(hour: 23, minute: 59) == -60)
        #expect(CivilDate(daysSinceEpoch: daysSinceEpoch(1900, 1, 1)).localSeconds(hour: 0, minute: 0) == -2_208_988_800)
    }

    // MARK: AlertCalendar, fixed cases

    @Test("A fixed alarm alerts at its instant in every zone, only if still ahead")
    func fixedAlarms() async throws {
        let calendars = try Inputs.zoneIDs.map { AlertCalendar(timeZone: try rules($0)) }
        let alerts = Gen.int64(in: Inputs.earliest...Inputs.latest)
        // A quarter of the starts are the alert instant itself.
        let distances = zip(Gen.bool(0.25), Gen.int64(in: -2 * secondsPerDay...2 * secondsPerDay))
            .map { same, distance in same ? 0 : distance }
        await propertyCheck(count: 200, input: alerts, distances) { alert, distance in
            let start = instant(alert + distance)
            for calendar in calendars {
                let next = calendar.nextAlert(of: .fixed(instant(alert)), after: start)
                #expect(next == (distance < 0 ? instant(alert) : nil), "\(calendar.timeZone.identifier)")
            }
        }
    }

    @Test("New York: 02:30 on the spring-forward day alerts at 03:00 EDT")
    func newYorkGap() throws {
        let calendar = try calendar("America/New_York")
        let resolution = calendar.nextAlert(of: clockTime(2, 30), after: utc(2026, 3, 8, 5))
        #expect(resolution == .afterGap(utc(2026, 3, 8, 7)))
        #expect(calendar.nextAlert(of: .relative(clockTime(2, 30)), after: utc(2026, 3, 8, 5)) == utc(2026, 3, 8, 7))
        // The day after, 02:30 exists again.
        #expect(calendar.nextAlert(of: .relative(clockTime(2, 30)), after: utc(2026, 3, 8, 7)) == utc(2026, 3, 9, 6, 30))
    }

    @Test("New York: 01:30 on the fall-back day alerts once, at its first occurrence")
    func newYorkOverlap() throws {
        let calendar = try calendar("America/New_York")
        let daily = Alarm.Schedule.relative(clockTime(1, 30, .weekly(weekdayNames)))
        #expect(calendar.nextAlert(of: clockTime(1, 30), after: utc(2026, 11, 1, 4)) == .exact(utc(2026, 11, 1, 5, 30)))
        #expect(calendar.nextAlert(of: daily, after: utc(2026, 11, 1, 4)) == utc(2026, 11, 1, 5, 30))
        #expect(calendar.nextAlert(of: daily, after: utc(2026, 11, 1, 5, 30)) == utc(2026, 11, 2, 6, 30))
        #expect(calendar.nextAlert(of: daily, after: utc(2026, 11, 1, 6)) == utc(2026, 11, 2, 6, 30))
        let around = calendar.alerts(of: daily, after: utc(2026, 10, 31), through: utc(2026, 11, 3, 12), limit: 10)
        #expect(around == [utc(2026, 10, 31, 5, 30), utc(2026, 11, 1, 5, 30), utc(2026, 11, 2, 6, 30), utc(2026, 11, 3, 6, 30)])
    }

    @Test("Apia: a Friday alarm in the week Friday was skipped alerts when Saturday begins")
    func apiaSkippedFriday() throws {
        let calendar = try calendar("Pacific/Apia")
        let friday = clockTime(7, 30, .weekly([.friday]))
        let jump = utc(2011, 12, 30, 10)
        #expect(calendar.nextAlert(of: friday, after: utc(2011, 12, 26)) == .afterGap(jump))
        #expect(calendar.nextAlert(of: friday, after: utc(2011, 12, 30, 9, 59)) == .afterGap(jump))
        // The next Friday, 2012-01-06 07:30 at +14.
        #expect(calendar.nextAlert(of: .relative(friday), after: jump) == utc(2012, 1, 5, 17, 30))

        let daily = Alarm.Schedule.relative(clockTime(7, 30, .weekly(weekdayNames)))
        let week = calendar.alerts(of: daily, after: utc(2011, 12, 29), through: utc(2011, 12, 31, 18), limit: 10)
        #expect(week == [utc(2011, 12, 29, 17, 30), jump, utc(2011, 12, 30, 17, 30), utc(2011, 12, 31, 17, 30)])
    }

    @Test("Lord Howe's half-hour shifts and Kathmandu's quarter-hour offset")
    func halfAndQuarterHourZones() throws {
        let lordHowe = try calendar("Australia/Lord_Howe")
        #expect(lordHowe.nextAlert(of: clockTime(2, 15), after: utc(2026, 10, 3)) == .afterGap(utc(2026, 10, 3, 15, 30)))
        #expect(lordHowe.nextAlert(of: clockTime(1, 45), after: utc(2026, 4, 4)) == .exact(utc(2026, 4, 4, 14, 45)))
        // The repeat of 01:45 at +10:30 (15:15 UTC) is not an alert; the next day's 01:45 is.
        #expect(lordHowe.nextAlert(of: .relative(clockTime(1, 45)), after: utc(2026, 4, 4, 14, 45)) == utc(2026, 4, 5, 15, 15))

        let kathmandu = try calendar("Asia/Kathmandu")
        #expect(kathmandu.nextAlert(of: .relative(clockTime(7, 30)), after: utc(2026, 1, 14, 20)) == utc(2026, 1, 15, 1, 45))
        #expect(kathmandu.nextAlert(of: .relative(clockTime(7, 30)), after: utc(2026, 1, 15, 1, 45)) == utc(2026, 1, 16, 1, 45))
    }

    @Test("An empty weekly alarm never alerts")
    func emptyWeekly() throws {
        #expect(try calendar("UTC").nextAlert(of: .relative(clockTime(7, 30, .weekly([]))), after: utc(2026, 1, 1)) == nil)
    }

    @Test("Berlin: a daily 07:30 alarm alerts once a day, at 07:30, through the week DST starts")
    func berlinDailyAcrossSpringForward() throws {
        let berlin = try zone("Europe/Berlin")
        let calendar = AlertCalendar(timeZone: try rules(berlin.identifier))
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = berlin
        let daily = Alarm.Schedule.relative(clockTime(7, 30, .weekly(weekdayNames)))

        var alerts: [Date] = []
        var cursor = utc(2026, 3, 25, 12)
        while alerts.count < 8, let next = calendar.nextAlert(of: daily, after: cursor) {
            alerts.append(next)
            cursor = next
        }
        let local = alerts.map { gregorian.dateComponents([.month, .day, .hour, .minute], from: $0) }
        #expect(local.map { [$0.month, $0.day] } == [[3, 26], [3, 27], [3, 28], [3, 29], [3, 30], [3, 31], [4, 1], [4, 2]])
        #expect(local.allSatisfy { $0.hour == 7 && $0.minute == 30 })
        #expect(alerts[2] == utc(2026, 3, 28, 6, 30))
        #expect(alerts[3] == utc(2026, 3, 29, 5, 30))
    }

    @Test("alerts(of:after:through:limit:) counts occurrences, and at most one of a one-shot alarm")
    func alertCounts() throws {
        let calendar = try calendar("Europe/Berlin")
        let from = utc(2026, 3, 1)
        let to = utc(2026, 3, 31, 23, 59)
        let daily = Alarm.Schedule.relative(clockTime(7, 30, .weekly(weekdayNames)))
        #expect(calendar.alerts(of: daily, after: from, through: to, limit: 100).count == 31)
        #expect(calendar.alerts(of: daily, after: from, through: to, limit: 10).count == 10)
        #expect(calendar.alerts(of: daily, after: from, through: to, limit: 0).isEmpty)
        #expect(calendar.alerts(of: daily, after: to, through: from, limit: 10).isEmpty)
        let mondayWednesday = Alarm.Schedule.relative(clockTime(7, 30, .weekly([.wednesday, .monday, .monday])))
        #expect(calendar.alerts(of: mondayWednesday, after: from, through: to, limit: 100).count == 9)
        #expect(calendar.alerts(of: .relative(clockTime(7, 30)), after: from, through: to, limit: 100) == [utc(2026, 3, 1, 6, 30)])
        #expect(calendar.alerts(of: .fixed(utc(2026, 3, 10)), after: from, through: to, limit: 100) == [utc(2026, 3, 10)])
        #expect(calendar.alerts(of: .fixed(utc(2026, 4, 10)), after: from, through: to, limit: 100).isEmpty)
        #expect(calendar.alerts(of: .fixed(from), after: from, through: to, limit: 100).isEmpty)
        #expect(calendar.alerts(of: .fixed(to), after: from, through: to, limit: 100) == [to])
    }

    // MARK: AlertCalendar, properties

    @Test("nextAlert is the first instant the wall clock reaches the alarm's time on an alerting day", arguments: Inputs.zoneIDs)
    func nextAlertAgreesWithMinuteScan(zoneID: String) async throws {
        let zone = try zone(zoneID)
        let calendar = AlertCalendar(timeZone: try rules(zone.identifier))
        let moments = Inputs.moments(around: Inputs.changes(in: zone))
        // Starts are whole seconds, or a fraction past one.
        await propertyCheck(count: 1_000, input: moments, Gen.int(in: 0...3), Inputs.recurrences) { moment, quarters, repeats in
            let (start, time) = moment
            let startDate = instant(start).addingTimeInterval(TimeInterval(quarters) / 4)
            let relative = Alarm.Schedule.Relative(time: time, repeats: repeats)
            let scan = MinuteScan(zone: zone, relative: relative)
            let resolution = try #require(calendar.nextAlert(of: relative, after: startDate))
            #expect(calendar.nextAlert(of: .relative(relative), after: startDate) == resolution.instant)
            let interval = resolution.instant.timeIntervalSince1970
            let result = Int64(interval)
            try #require(TimeInterval(result) == interval, "alerts fall on whole seconds")

            // (1) Strictly after the start.
            #expect(resolution.instant > startDate)

            // (2) No alert between the start and the result, and the result is one. Alerts fall on
            // whole minutes, so those after `start` are those after `startDate`.
            let first = scan.rings(after: start, through: start + 9 * secondsPerDay, limit: 1).first
            #expect(first.map { $0 >= result } ?? true, "an earlier alert exists at \(first.map(instant) as Any)")
            #expect(first == result)

            // (3) The alarm's local time, unless that fell in a gap; (4) on an alerting day.
            let newOffset = scan.offset(at: result)
            let oldOffset = scan.offset(at: result - 1)
            let wall = result + newOffset
            switch resolution {
            case .exact:
                #expect(floorMod(wall, secondsPerDay) == scan.target)
                #expect(scan.alerts(onDay: floorDiv(wall, secondsPerDay)), "local weekday not in the set")
            case .afterGap:
                // The clock jumps here, from before the alarm's time (as the old offset reads it) past it.
                #expect(newOffset > oldOffset, "not a transition to a later wall time")
                let skipped = oldOffset < newOffset ? scan.alertingDays(withTimeIn: (result + oldOffset)...(wall - 1)) : []
                #expect(!skipped.isEmpty, "no alerting day's time in the gap")
            }
        }
    }

    @Test("alerts(of:after:through:limit:) lists exactly the alerts a minute scan finds", arguments: Inputs.zoneIDs)
    func alertsAgreeWithMinuteScan(zoneID: String) async throws {
        let zone = try zone(zoneID)
        let calendar = AlertCalendar(timeZone: try rules(zone.identifier))
        let moments = Inputs.moments(around: Inputs.changes(in: zone))
        let spans = Gen.int64(in: 0...(10 * secondsPerDay))
        await propertyCheck(count: 150, input: moments, spans, Inputs.recurrences, Gen.int(in: 0...12)) {
            moment, span, repeats, limit in
            let (start, time) = moment
            let relative = Alarm.Schedule.Relative(time: time, repeats: repeats)
            let scan = MinuteScan(zone: zone, relative: relative)
            let once: Bool
            if case .never = repeats { once = true } else { once = false }
            let expected = scan.rings(after: start, through: start + span, limit: once ? min(limit, 1) : limit)
            let alerts = calendar.alerts(of: .relative(relative), after: instant(start), through: instant(start + span), limit: limit)
            #expect(alerts == expected.map(instant))
        }
    }
}
