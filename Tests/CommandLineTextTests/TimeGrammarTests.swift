import AlarmModel
import CommandLineText
import Foundation
import Testing
import TestRequirements
import TestSupport

/// TIME as people write it (``TimeGrammar``), each form with the instant it next rings at, read
/// on the eve of a change of the clocks: the day before daylight saving time begins in Berlin,
/// and the day before it ends in New York. The expected instants are worked out by hand from the
/// zones' rules (Berlin: Sunday 29 March 2026, 02:00 CET becomes 03:00 CEST, at 01:00 UTC; New
/// York: Sunday 1 November 2026, 02:00 EDT becomes 01:00 EST, at 06:00 UTC).
@Suite("Text input: the grammar of TIME", .onItsOwnThread)
struct TimeGrammarTests {
    /// The zone's rules, from the system's database.
    static func zone(_ identifier: String) -> ZoneRules { Fixtures.zone(identifier) }

    /// The first instant a schedule rings at after `now`, as the agent computes it.
    static func nextFire(_ schedule: Alarm.Schedule, after now: Date, in identifier: String) -> Date? {
        AlertCalendar(timeZone: Fixtures.zone(identifier)).nextAlert(of: schedule, after: now)
    }

    /// Saturday 28 March 2026, 13:00 in Berlin (12:00 UTC), the eve of summer time.
    static let berlinEve = Fixtures.instant("2026-03-28T12:00:00Z")
    /// Saturday 31 October 2026, 12:00 in New York (16:00 UTC), the eve of winter time.
    static let newYorkEve = Fixtures.instant("2026-10-31T16:00:00Z")

    @Test(
        "each form rings when a person would expect, across the start of summer time in Berlin",
        arguments: [
            ("mon,wed 6:45", "2026-03-30T04:45:00Z"), ("mon, wed 6:45", "2026-03-30T04:45:00Z"),
            ("6:45 mon,wed", "2026-03-30T04:45:00Z"), ("weekdays 7:00", "2026-03-30T05:00:00Z"),
            ("mon-fri 7:00", "2026-03-30T05:00:00Z"), ("weekends 9:00", "2026-03-29T07:00:00Z"),
            ("daily 6:30", "2026-03-29T04:30:00Z"), ("every day 6:30", "2026-03-29T04:30:00Z"),
            // In the hour skipped: the first instant after it.
            ("daily 2:30", "2026-03-29T01:00:00Z"), ("tomorrow 2:30", "2026-03-29T01:00:00Z"),
            ("every sun 8am", "2026-03-29T06:00:00Z"), ("sundays 8am", "2026-03-29T06:00:00Z"),
            ("noon", "2026-03-29T10:00:00Z"), ("midnight", "2026-03-28T23:00:00Z"), ("7.30", "2026-03-29T05:30:00Z"),
            ("19h30", "2026-03-28T18:30:00Z"), ("next friday 9am", "2026-04-03T07:00:00Z"),
            ("9am next friday", "2026-04-03T07:00:00Z"), ("next sat 9:00", "2026-04-04T07:00:00Z"),
            ("sat 15:00", "2026-03-28T14:00:00Z"), ("sat 9:00", "2026-04-04T07:00:00Z"),
            ("tomorrow at noon", "2026-03-29T10:00:00Z"), ("at 19h30", "2026-03-28T18:30:00Z"),
            // A length counts real time: an hour and a half, whatever the clock says then.
            ("in 1h30m", "2026-03-28T13:30:00Z"), ("+1h30m", "2026-03-28T13:30:00Z"),
            ("2026-03-29 02:30", "2026-03-29T01:00:00Z"),
            // Days written apart, with "and", after "on", and "every weekday".
            ("mon wed 6:45", "2026-03-30T04:45:00Z"), ("monday and wednesday 6:45", "2026-03-30T04:45:00Z"),
            ("6:45 sat sun", "2026-03-29T04:45:00Z"), ("7:30 on mondays", "2026-03-30T05:30:00Z"),
            ("on weekends at 9:00", "2026-03-29T07:00:00Z"), ("every weekday 7:00", "2026-03-30T05:00:00Z"),
            ("every weekend 9:00", "2026-03-29T07:00:00Z"),
        ])
    func berlin(text: String, expected: String) throws {
        let reading = try TimeGrammar.read(text, now: Self.berlinEve, zone: Self.zone("Europe/Berlin"))
        let schedule = reading.schedule(from: Self.berlinEve)
        #expect(Self.nextFire(schedule, after: Self.berlinEve, in: "Europe/Berlin") == Fixtures.instant(expected), "\(text): \(reading)")
    }

    @Test(
        "each form rings when a person would expect, across the end of summer time in New York",
        arguments: [
            ("mon,wed 6:45", "2026-11-02T11:45:00Z"), ("weekdays 7:00", "2026-11-02T12:00:00Z"),
            ("weekends 9:00", "2026-11-01T14:00:00Z"),
            // In the hour that comes twice: its first occurrence.
            ("daily 1:30", "2026-11-01T05:30:00Z"), ("weekends 1:30", "2026-11-01T05:30:00Z"), ("tomorrow 1:30", "2026-11-01T05:30:00Z"),
            ("noon", "2026-11-01T17:00:00Z"), ("midnight", "2026-11-01T04:00:00Z"), ("7.30", "2026-11-01T12:30:00Z"),
            ("19h30", "2026-10-31T23:30:00Z"), ("next friday 9am", "2026-11-06T14:00:00Z"), ("in 1h30m", "2026-10-31T17:30:00Z"),
        ])
    func newYork(text: String, expected: String) throws {
        let reading = try TimeGrammar.read(text, now: Self.newYorkEve, zone: Self.zone("America/New_York"))
        let schedule = reading.schedule(from: Self.newYorkEve)
        #expect(
            Self.nextFire(schedule, after: Self.newYorkEve, in: "America/New_York") == Fixtures.instant(expected), "\(text): \(reading)")
    }

    @Test("a length from now counts real time through the hour that comes twice")
    func lengthThroughTheOverlap() throws {
        // 01:00 EDT on the night the clocks go back: 90 minutes later the wall clock shows 01:30 EST.
        let now = Fixtures.instant("2026-11-01T05:00:00Z")
        #expect(try TimeGrammar.read("in 1h30m", now: now, zone: Self.zone("America/New_York")) == .fromNow(5_400))
        #expect(
            try TimeGrammar.read("in 1h30m", now: now, zone: Self.zone("America/New_York")).schedule(from: now)
                == .fixed(Fixtures.instant("2026-11-01T06:30:00Z")))
    }

    @Test("days make a clock time repeat; one day, today, tomorrow and next make it ring once")
    func kinds() throws {
        let zone = Self.zone("Europe/Berlin")
        let now = Self.berlinEve
        #expect(
            try TimeGrammar.read("mon,wed 6:45", now: now, zone: zone)
                == .clockTime(.init(time: .init(hour: 6, minute: 45), repeats: .weekly([.monday, .wednesday]))))
        #expect(try TimeGrammar.read("daily 6:30", now: now, zone: zone).repeatingDays == WeekdaysInput.mondayFirst)
        #expect(try TimeGrammar.read("weekends 9:00", now: now, zone: zone).repeatingDays == [.saturday, .sunday])
        #expect(try TimeGrammar.read("noon", now: now, zone: zone) == .clockTime(.init(time: .init(hour: 12, minute: 0), repeats: .never)))
        for once in ["mon 7:30", "tomorrow 7:30", "next friday 9am", "today 18:00"] {
            guard case .instant = try TimeGrammar.read(once, now: now, zone: zone) else {
                Issue.record("\(once) is not an instant")
                continue
            }
        }
        // Days written apart, joined by "and" or after "on", repeat on each of them.
        for (text, days) in [
            ("mon wed 6:45", [Locale.Weekday.monday, .wednesday]), ("monday and wednesday 6:45", [.monday, .wednesday]),
            ("7:30 on mondays", [.monday]), ("every weekday 7:00", [.monday, .tuesday, .wednesday, .thursday, .friday]),
            ("on sat sun at 9:00", [.saturday, .sunday]),
        ] {
            #expect(try TimeGrammar.read(text, now: now, zone: zone).repeatingDays == days, "\(text)")
        }
        #expect(
            try TimeGrammar.read("mo mi 6:45", now: now, zone: zone, dayNames: ["mo": .monday, "mi": .wednesday]).repeatingDays
                == [.monday, .wednesday])
        // The person's own short day names, besides the English ones.
        #expect(
            try TimeGrammar.read("mo 7:30", now: now, zone: zone, dayNames: ["mo": .monday])
                == TimeGrammar.read("mon 7:30", now: now, zone: zone))
    }

    @Test(
        "a form that is refused names one that works",
        arguments: [
            ("19h", "19:00 or 19h00", "in 19h"), ("7h", "7:00 or 7h00", "in 7h"), ("730", "7:30", nil), ("0730pm", "07:30pm", nil),
            ("20m", "in 20m", nil), ("1h30m", "in 1h 30m", nil), ("tomorrow", "tomorrow 7:30", nil), ("weekdays", "weekdays 7:30", nil),
            ("next week", "next fri 9:00", nil), ("every 7:00", "every mon 7:00", nil), ("soon", "tomorrow 7:30", "in 20m"),
            ("tonight 9pm", "tomorrow 7:30", nil), ("half past seven", "7:30", nil), ("7", "7:00", "7am"),
            ("in 20", "20m", nil), ("mon,wed", "mon,wed 7:30", nil),
        ])
    func refused(text: String, names: String, alsoNames: String?) {
        do {
            let reading = try TimeGrammar.read(text, now: Self.berlinEve, zone: Self.zone("Europe/Berlin"))
            Issue.record("\(text) is read as \(reading)")
        } catch {
            #expect(error.description.contains(names), "\(text): \(error)")
            if let alsoNames { #expect(error.description.contains(alsoNames), "\(text): \(error)") }
        }
    }

    @Test("days given both in TIME and with --repeat are refused; a clock time takes the days given apart")
    func daysTwice() throws {
        let zone = Fixtures.zone("Europe/Berlin")
        #expect(
            throws: InputError.invalid(
                .time, "weekdays 7:00",
                reason: "it names its days already; give the days once, in the time (mon,wed 6:45) or with --repeat")
        ) { try ClockTimeInput.parse("weekdays 7:00", repeatingOn: [.saturday], timeZone: zone, now: Self.berlinEve) }
        #expect(
            try ClockTimeInput.parse("7:00", repeatingOn: [.saturday], timeZone: zone, now: Self.berlinEve)
                == .relative(.init(time: .init(hour: 7, minute: 0), repeats: .weekly([.saturday]))))
    }
}
