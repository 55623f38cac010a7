import CommandLineText
import AlarmModel
import AlarmRecords
import Foundation
import PropertyBased
import Testing
import TestRequirements
import TestSupport

// MARK: - Helpers

private let utc = Fixtures.zone("UTC")
private let newYork = Fixtures.zone("America/New_York")
private let berlin = Fixtures.zone("Europe/Berlin")

/// The error a parse throws, or `nil` when it succeeds. (The parsers throw only `InputError`, by
/// their types; anything else is recorded as an issue.)
private func failure<T>(
    _ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation
) -> InputError? {
    do {
        _ = try body()
        return nil
    } catch let error as InputError {
        return error
    } catch {
        Issue.record("not an InputError: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

private func clock(_ hour: Int, _ minute: Int) -> Alarm.Schedule {
    .relative(.init(time: .init(hour: hour, minute: minute), repeats: .never))
}

private func uuid(_ text: String) -> UUID {
    UUID(uuidString: text)!
}

/// Groups every suite here, so that `swift test --filter "Text input"` selects them: the filter
/// matches test identifiers (type and function names), not display names.
@Suite(.onItsOwnThread) enum `Text input` {}

// MARK: - TIME

extension `Text input` {
    @Suite("Text input: clock times")
    struct ClockTimeInputTests {
        @Test(
            "accepted clock times",
            arguments: [
                ("7:30", 7, 30), ("07:30", 7, 30), ("23:59", 23, 59), ("0:00", 0, 0), ("00:00", 0, 0),
                ("7:30pm", 19, 30), ("7:30 PM", 19, 30), ("7:30PM", 19, 30), ("7:30 p.m.", 19, 30), ("7:30AM", 7, 30),
                ("7:30 a.m.", 7, 30), ("12:00am", 0, 0), ("12:30pm", 12, 30), ("12:30am", 0, 30), ("12:00 PM", 12, 0),
                ("11:59pm", 23, 59), ("1:00am", 1, 0), ("7am", 7, 0), ("7 pm", 19, 0), ("12am", 0, 0),
                ("  7:30\n", 7, 30), ("7:30\t pm", 19, 30),
                // Written as much of Europe writes it, and in words.
                ("7.30", 7, 30), ("19h30", 19, 30), ("07.05", 7, 5), ("7.30pm", 19, 30), ("noon", 12, 0), ("Midnight", 0, 0),
            ])
        func accepted(text: String, hour: Int, minute: Int) throws {
            #expect(try ClockTimeInput.parse(text, timeZone: newYork) == clock(hour, minute))
        }

        @Test(
            "rejected clock times",
            arguments: [
                "24:00", "25:00", "99:00", "123:00", "7:60", "7:99", "13:00pm", "0:00am", "0am", "13pm", "7", "19",
                "7:5", "7:305", "7:30:15", "7:30 xm", "abc", "7.3", "7:30pmx", "7:30am am", "12:00 am pm", "-7:30",
                "7:-3", ":30", "7:", "7::30", "am", "7 30", "١٢:٣٠", "０７:３０", "7:3０", "७:३०", "7:30🙂", "\u{0}7:30",
            ])
        func rejected(text: String) {
            #expect(failure { try ClockTimeInput.parse(text, timeZone: newYork) } != nil)
        }

        @Test("error messages name the bad part")
        func messages() {
            let cases: [(String, String)] = [
                ("25:00", #"invalid time "25:00": the hour must be 0 to 23"#),
                ("24:00", #"invalid time "24:00": the hour must be 0 to 23"#),
                ("7:60", #"invalid time "7:60": the minute must be 0 to 59"#),
                ("13:00pm", #"invalid time "13:00pm": with am or pm the hour must be 1 to 12"#),
                ("0:00am", #"invalid time "0:00am": with am or pm the hour must be 1 to 12"#),
                ("7", #"invalid time "7": add the minutes, as in 7:00, or am or pm, as in 7am"#),
                ("7:5", #"invalid time "7:5": the minute must have two digits, as in 7:05"#),
                ("7:30:15", #"invalid time "7:30:15": a clock time has hours and minutes only, as in 7:30"#),
                (
                    "soon",
                    #"invalid time "soon": use a clock time such as 7:30, 7pm or noon, a day and time such as tomorrow 7:30 or mon,wed 6:45, a date and time such as 2026-12-01 07:30, or a moment from now such as in 20m"#
                ),
                (
                    "",
                    "no time given: use a clock time such as 7:30, 7pm or noon, a day and time such as tomorrow 7:30 or mon,wed 6:45, a date and time such as 2026-12-01 07:30, or a moment from now such as in 20m"
                ),
                (
                    " \n ",
                    "no time given: use a clock time such as 7:30, 7pm or noon, a day and time such as tomorrow 7:30 or mon,wed 6:45, a date and time such as 2026-12-01 07:30, or a moment from now such as in 20m"
                ),
            ]
            for (text, message) in cases {
                #expect(failure { try ClockTimeInput.parse(text, timeZone: utc) }?.description == message, "\(text)")
            }
            #expect(
                failure { try ClockTimeInput.parse("25:00", timeZone: utc) }
                    == .invalid(.time, "25:00", reason: "the hour must be 0 to 23"))
            #expect(failure { try ClockTimeInput.parse("", timeZone: utc) } == .empty(.time))
            #expect(failure { try ClockTimeInput.parse("soon", timeZone: utc) } == .unrecognized(.time, "soon"))
        }

        /// Wednesday 25 November 2026, 10:00 in New York (15:00 UTC).
        static let wednesdayMorning = Fixtures.instant("2026-11-25T15:00:00Z")

        @Test(
            "moments from now: in, +, a day word before or after a clock time (New York, Wednesday 10:00)",
            arguments: [
                ("in 20m", "2026-11-25T15:20:00Z"), ("+1h30m", "2026-11-25T16:30:00Z"), ("IN 90 seconds", "2026-11-25T15:01:30Z"),
                ("in 1d", "2026-11-26T15:00:00Z"), ("tomorrow 7:30", "2026-11-26T12:30:00Z"), ("7:30 tomorrow", "2026-11-26T12:30:00Z"),
                ("Tomorrow 6:45pm", "2026-11-26T23:45:00Z"), ("today 18:00", "2026-11-25T23:00:00Z"),
                ("today 9:00", "2026-11-25T14:00:00Z"), ("wed 11:00", "2026-11-25T16:00:00Z"),
                ("wed 9:00", "2026-12-02T14:00:00Z"), ("wednesday 10:00", "2026-12-02T15:00:00Z"),
                ("mon 7:30", "2026-11-30T12:30:00Z"), ("friday 6:45pm", "2026-11-27T23:45:00Z"),
                ("7:30am Sun", "2026-11-29T12:30:00Z"), ("  thurs   8:00 ", "2026-11-26T13:00:00Z"),
            ])
        func momentsFromNow(text: String, instant: String) throws {
            #expect(
                try ClockTimeInput.parse(text, timeZone: newYork, now: Self.wednesdayMorning) == .fixed(Fixtures.instant(instant)))
        }

        @Test("the forms without a day word read as they do without the present")
        func withoutDayWords() throws {
            let now = Self.wednesdayMorning
            #expect(try ClockTimeInput.parse("7:30", timeZone: newYork, now: now) == clock(7, 30))
            #expect(
                try ClockTimeInput.parse("2026-12-01 07:30", timeZone: newYork, now: now)
                    == ClockTimeInput.parse("2026-12-01 07:30", timeZone: newYork))
        }

        @Test("a day's clock time in the hour skipped when daylight saving time begins names the first instant after it")
        func dayWordInGap() throws {
            // Saturday 7 March 2026, noon in New York; on the 8th clocks go from 2:00 to 3:00.
            let saturday = Fixtures.instant("2026-03-07T17:00:00Z")
            #expect(
                try ClockTimeInput.parse("tomorrow 2:30", timeZone: newYork, now: saturday)
                    == .fixed(Fixtures.instant("2026-03-08T07:00:00Z")))
            #expect(
                try ClockTimeInput.parse("tomorrow 3:30", timeZone: newYork, now: saturday)
                    == .fixed(Fixtures.instant("2026-03-08T07:30:00Z")))
        }

        @Test("moments from now name their bad part")
        func momentMessages() {
            let now = Self.wednesdayMorning
            let cases: [(String, String)] = [
                ("in 20x", #"invalid time "in 20x": after “in” give how long from now, such as 20m or 1h30m (invalid duration "20x": "#),
                ("+20", #"invalid time "+20": after + give how long from now, such as 20m or 1h30m ("#),
                ("tomorrow 25:00", #"invalid time "tomorrow 25:00": the hour must be 0 to 23"#),
                ("mon 7:60", #"invalid time "mon 7:60": the minute must be 0 to 59"#),
                ("tomorrow soon", #"invalid time "tomorrow soon": give a clock time with the day, as in tomorrow 7:30"#),
                ("fri 2026-12-01 07:30", #"invalid time "fri 2026-12-01 07:30": give a clock time with the day, as in fri 7:30"#),
                ("tomorrow", #"invalid time "tomorrow": give a clock time with the day, as in tomorrow 7:30"#),
                ("weekdays", #"invalid time "weekdays": give a clock time with the day, as in weekdays 7:30"#),
            ]
            for (text, start) in cases {
                let message = failure { try ClockTimeInput.parse(text, timeZone: newYork, now: now) }?.description ?? "accepted"
                #expect(message.hasPrefix(start), "\(text): \(message)")
            }
            #expect(
                failure { try ClockTimeInput.parse("tomorrow 7:30", repeatingOn: [.monday], timeZone: newYork, now: now) }?.description
                    == #"invalid time "tomorrow 7:30": a date and time alerts once and cannot repeat; "#
                    + "give a clock time such as 7:30 to repeat on days")
        }

        @Test("a clock time repeats on the days given, in week order")
        func repeating() throws {
            let schedule = try ClockTimeInput.parse("6:45am", repeatingOn: [.sunday, .friday, .monday, .friday], timeZone: utc)
            #expect(schedule == .relative(.init(time: .init(hour: 6, minute: 45), repeats: .weekly([.monday, .friday, .sunday]))))
            #expect(try ClockTimeInput.parse("6:45", repeatingOn: nil, timeZone: utc) == clock(6, 45))
            #expect(failure { try ClockTimeInput.parse("6:45", repeatingOn: [], timeZone: utc) } == .empty(.days))
            #expect(
                failure { try ClockTimeInput.parse("2026-12-01 07:30", repeatingOn: [.monday], timeZone: utc) }?.description
                    == #"invalid time "2026-12-01 07:30": a date and time alerts once and cannot repeat; "#
                    + "give a clock time such as 7:30 to repeat on days")
        }
    }
}

extension `Text input` {
    @Suite("Text input: dates and times")
    struct DateTimeInputTests {
        @Test(
            "accepted dates and times",
            arguments: [
                ("2026-12-01 07:30", "2026-12-01T12:30:00Z"),
                ("2026-12-01T07:30", "2026-12-01T12:30:00Z"),
                ("2026-12-01t07:30", "2026-12-01T12:30:00Z"),
                ("2026-12-01   7:30", "2026-12-01T12:30:00Z"),
                ("2026-12-01 07:30:15", "2026-12-01T12:30:15Z"),
                ("2026-12-01 7:30pm", "2026-12-02T00:30:00Z"),
                ("2026-12-01 12:00 AM", "2026-12-01T05:00:00Z"),
                ("2026-07-01 07:30", "2026-07-01T11:30:00Z"),
                ("2026-12-01T07:30:00+01:00", "2026-12-01T06:30:00Z"),
                ("2026-12-01T07:30:00Z", "2026-12-01T07:30:00Z"),
                ("2026-12-01T07:30:00z", "2026-12-01T07:30:00Z"),
                ("2026-12-01T07:30:00-05:30", "2026-12-01T13:00:00Z"),
                ("2026-12-01T07:30:00+0100", "2026-12-01T06:30:00Z"),
                ("2026-12-01T07:30+01", "2026-12-01T06:30:00Z"),
                ("2026-12-01 07:30 +14:00", "2026-11-30T17:30:00Z"),
                ("2024-02-29 12:00", "2024-02-29T17:00:00Z"),
                ("2026-1-5 07:30", "2026-01-05T12:30:00Z"),
            ])
        func accepted(text: String, instant: String) throws {
            #expect(try ClockTimeInput.parse(text, timeZone: newYork) == .fixed(Fixtures.instant(instant)))
        }

        @Test("an instant with an offset does not depend on the time zone")
        func offsetIgnoresZone() throws {
            for zone in [utc, newYork, berlin, Fixtures.zone("Asia/Kathmandu")] {
                #expect(
                    try ClockTimeInput.parse("2026-12-01T07:30:00+01:00", timeZone: zone)
                        == .fixed(Fixtures.instant("2026-12-01T06:30:00Z")))
            }
            #expect(try ClockTimeInput.parse("2026-12-01 07:30", timeZone: berlin) == .fixed(Fixtures.instant("2026-12-01T06:30:00Z")))
        }

        @Test("fractions of a second are kept")
        func fraction() throws {
            let schedule = try ClockTimeInput.parse("2026-12-01T07:30:00.250Z", timeZone: utc)
            #expect(schedule == .fixed(Fixtures.instant("2026-12-01T07:30:00Z").addingTimeInterval(0.25)))
        }

        @Test("DST gap in New York: the first instant after the gap")
        func gap() throws {
            // 2026-03-08: clocks jump from 02:00 EST to 03:00 EDT, 07:00 UTC.
            for text in ["2026-03-08 02:00", "2026-03-08 02:30", "2026-03-08 02:59", "2026-03-08T02:30:45"] {
                #expect(try ClockTimeInput.parse(text, timeZone: newYork) == .fixed(Fixtures.instant("2026-03-08T07:00:00Z")), "\(text)")
            }
            #expect(try ClockTimeInput.parse("2026-03-08 01:59", timeZone: newYork) == .fixed(Fixtures.instant("2026-03-08T06:59:00Z")))
            #expect(try ClockTimeInput.parse("2026-03-08 03:00", timeZone: newYork) == .fixed(Fixtures.instant("2026-03-08T07:00:00Z")))
            #expect(try ClockTimeInput.parse("2026-03-08 03:30", timeZone: newYork) == .fixed(Fixtures.instant("2026-03-08T07:30:00Z")))
            // An explicit offset is never moved.
            #expect(
                try ClockTimeInput.parse("2026-03-08T02:30:00-05:00", timeZone: newYork)
                    == .fixed(Fixtures.instant("2026-03-08T07:30:00Z")))
        }

        @Test("the first and last years of four digits")
        func extremeYears() throws {
            #expect(
                try ClockTimeInput.parse("0001-01-01T00:00:00Z", timeZone: newYork)
                    == .fixed(Date(timeIntervalSince1970: -62_135_596_800)))
            #expect(
                try ClockTimeInput.parse("9999-12-31T23:59:59Z", timeZone: newYork)
                    == .fixed(Date(timeIntervalSince1970: 253_402_300_799)))
            #expect(try ClockTimeInput.parse("2000-02-29 00:00", timeZone: utc) == .fixed(Fixtures.instant("2000-02-29T00:00:00Z")))
            #expect(
                failure { try ClockTimeInput.parse("1900-02-29 00:00", timeZone: utc) }?.description
                    == #"invalid time "1900-02-29 00:00": the day must be 1 to 28 in 1900-02"#)
            for text in ["0000-01-01 00:00", "9999-12-31 23:59", "1883-11-18 12:00"] {
                guard case .fixed(let date) = try ClockTimeInput.parse(text, timeZone: newYork) else {
                    Issue.record("\(text) is not an instant")
                    continue
                }
                #expect(date.timeIntervalSince1970.isFinite)
            }
        }

        @Test("DST overlap in New York: the first occurrence")
        func overlap() throws {
            // 2026-11-01: 01:00 to 02:00 happens twice, first in EDT (UTC-4).
            #expect(try ClockTimeInput.parse("2026-11-01 01:30", timeZone: newYork) == .fixed(Fixtures.instant("2026-11-01T05:30:00Z")))
            #expect(try ClockTimeInput.parse("2026-11-01 02:30", timeZone: newYork) == .fixed(Fixtures.instant("2026-11-01T07:30:00Z")))
        }

        @Test(
            "rejected dates and times",
            arguments: [
                "2026-12-01", "2026-12-01 ", "2026-13-01 07:30", "2026-00-01 07:30", "2026-02-29 07:30", "2026-04-31 07:30",
                "2026-12-00 07:30", "2026-12-01 24:00", "2026-12-01 25:00", "2026-12-01T07:30:60", "2026-12-01T07:60",
                "2026-12-01T07:30:00+19:00", "2026-12-01T07:30:00+01:", "2026-12-01T07:30:00+1", "2026-12-01T07:30:00+01:7",
                "2026-12-01 07:30 nonsense", "2026-12-01x07:30", "2026-12-01T", "2026-12-01T07:30:00.", "2026-12-01T07:30:00Zx",
                "2026-12-01 13:00pm", "2026-12-01 7", "20261-12-01 07:30", "2026-123-01 07:30", "2026--01 07:30",
                "2026-12-01T07:30:5", "2026-12-01 07:30:15:00",
            ])
        func rejected(text: String) {
            #expect(failure { try ClockTimeInput.parse(text, timeZone: newYork) } != nil)
        }

        @Test("date error messages name the bad part")
        func messages() {
            let cases: [(String, String)] = [
                ("2026-13-01 07:30", #"invalid time "2026-13-01 07:30": the month must be 1 to 12"#),
                ("2026-02-29 07:30", #"invalid time "2026-02-29 07:30": the day must be 1 to 28 in 2026-02"#),
                ("2026-04-31 07:30", #"invalid time "2026-04-31 07:30": the day must be 1 to 30 in 2026-04"#),
                ("2026-12-01", #"invalid time "2026-12-01": a date needs a time too, as in 2026-12-01 07:30"#),
                ("2026-12-01T07:30:60Z", #"invalid time "2026-12-01T07:30:60Z": the second must be 0 to 59"#),
                ("2026-12-01 24:00", #"invalid time "2026-12-01 24:00": the hour must be 0 to 23"#),
                (
                    "2026-12-01T07:30+19:00",
                    #"invalid time "2026-12-01T07:30+19:00": the UTC offset must be at most 18 hours, with minutes 0 to 59"#
                ),
            ]
            for (text, message) in cases {
                #expect(failure { try ClockTimeInput.parse(text, timeZone: utc) }?.description == message, "\(text)")
            }
        }
    }
}

// MARK: - DAYS

extension `Text input` {
    @Suite("Text input: days")
    struct WeekdaysInputTests {
        @Test(
            "accepted lists of days",
            arguments: [
                ("mon", [Locale.Weekday.monday]),
                ("mon,tue", [.monday, .tuesday]),
                ("Mon, Wed ,FRI", [.monday, .wednesday, .friday]),
                ("monday,Tuesday,WEDNESDAY,thursday,friday,saturday,sunday", WeekdaysInput.mondayFirst),
                ("sun,sat,mon", [.monday, .saturday, .sunday]),
                ("weekdays", [.monday, .tuesday, .wednesday, .thursday, .friday]),
                ("WEEKDAYS", [.monday, .tuesday, .wednesday, .thursday, .friday]),
                ("weekends", [.saturday, .sunday]),
                ("daily", WeekdaysInput.mondayFirst),
                (" daily\n", WeekdaysInput.mondayFirst),
                ("weekends,mon", [.monday, .saturday, .sunday]),
                ("weekdays, weekends", WeekdaysInput.mondayFirst),
                ("mon,mon,monday", [.monday]),
                ("tues,thur,thurs", [.tuesday, .thursday]),
                ("fri , sat", [.friday, .saturday]),
                // Ranges as systemd writes them (wrapping round the weekend), plurals, every day.
                ("mon-fri", [.monday, .tuesday, .wednesday, .thursday, .friday]),
                ("Mon..Wed", [.monday, .tuesday, .wednesday]),
                ("fri-mon", [.monday, .friday, .saturday, .sunday]),
                ("sat-sat", [.saturday]),
                ("mondays", [.monday]), ("Mondays,fridays", [.monday, .friday]),
                ("every day", WeekdaysInput.mondayFirst), ("everyday", WeekdaysInput.mondayFirst),
            ])
        func accepted(text: String, days: [Locale.Weekday]) throws {
            #expect(try WeekdaysInput.parse(text) == days)
        }

        @Test(
            "rejected lists of days",
            arguments: [
                ("", InputError.empty(.days)), ("   ", .empty(.days)), (",", .missingDay(",")), ("mon,,tue", .missingDay("mon,,tue")),
                ("mon,", .missingDay("mon,")), (", mon", .missingDay(", mon")), ("mon, ,tue", .missingDay("mon, ,tue")),
                ("mnday", .unknownDay("mnday")), ("mon tue", .unknownDay("mon tue")), ("mon;tue", .unknownDay("mon;tue")),
                ("lundi", .unknownDay("lundi")), ("mo", .unknownDay("mo")), ("weekday", .unknownDay("weekday")),
                ("月", .unknownDay("月")), ("mon,Tsday,wed", .unknownDay("Tsday")), ("every dy", .unknownDay("every dy")),
                ("mon-", .unknownDay("mon-")), ("mon..", .unknownDay("mon..")), ("mon-fri-sat", .unknownDay("mon-fri-sat")),
                ("monday-s", .unknownDay("monday-s")), ("mondayss", .unknownDay("mondayss")), ("tuess", .unknownDay("tuess")),
            ])
        func rejected(text: String, error: InputError) {
            #expect(failure { try WeekdaysInput.parse(text) } == error)
        }

        @Test("error messages")
        func messages() {
            #expect(
                failure { try WeekdaysInput.parse("mon,mnday") }?.description
                    == #"unknown day "mnday": use mon, tue, wed, thu, fri, sat, sun or full day names separated by commas, "#
                    + "a range such as mon-fri, or weekdays, weekends or daily")
            #expect(
                failure { try WeekdaysInput.parse("mon,,tue") }?.description
                    == #"invalid days "mon,,tue": a day is missing between commas"#)
            #expect(
                failure { try WeekdaysInput.parse("") }?.description
                    == "no days given: use mon, tue, wed, thu, fri, sat, sun or full day names separated by commas, "
                    + "a range such as mon-fri, or weekdays, weekends or daily")
        }
    }
}

// MARK: - DUR

extension `Text input` {
    @Suite("Text input: durations")
    struct DurationInputTests {
        @Test(
            "accepted durations",
            arguments: [
                ("90s", 90.0), ("5m", 300), ("1h30m", 5_400), ("1h 30m", 5_400), ("2h", 7_200), ("1d", 86_400),
                ("1d 2h 3m 4s", 93_784), ("1d2h3m4s", 93_784), ("00:05:00", 300), ("05:00", 300), ("1:30:00", 5_400),
                ("90:00", 5_400), ("0:01", 1), ("1.5h", 5_400), ("0.5s", 0.5), ("2.25m", 135), ("00:00:05.5", 5.5),
                ("5 min", 300), ("10 minutes", 600), ("1 hour 30 minutes", 5_400), ("2 days", 172_800), ("45 secs", 45),
                ("1 hr", 3_600), ("3 hrs 1 sec", 10_801), ("5M", 300), ("1H30M", 5_400), ("366d", 31_622_400),
                ("8784:00:00", 31_622_400), ("  5m\n", 300), ("007s", 7), ("1h 0m", 3_600),
            ])
        func accepted(text: String, seconds: TimeInterval) throws {
            #expect(try DurationInput.parse(text) == seconds)
        }

        @Test(
            "rejected durations",
            arguments: [
                "", "90", "1.5", "1h30", "0s", "0:00", "0h 0m", "367d", "8784:00:01", "366d 1s", "5x", "30m1h", "1m30m",
                "-5m", "5m-", "1e3s", "m", "h5", "5.s", ".5s", "1:2:3:4", "1:60", "1:5", "00:60:00", "٥m", "５m", "5m٥s",
                "99999999999999999999h", "1,5h", "5 m s", "5ms", "1w", "1h:30", "1:30m", ":30", "30:", "1h30m 5",
                "\u{0}5m", "5m\u{0}", "in 5m",
            ])
        func rejected(text: String) {
            #expect(failure { try DurationInput.parse(text) } != nil)
        }

        @Test("where zero is allowed, 0, 0s, 0m and 00:00 are all zero; other lengths read as always")
        func zeroAllowed() throws {
            for text in ["0", "0s", "0m", "0h", "0h 0m", "00:00", "0:00:00", " 0 ", "0.0s"] {
                #expect(try DurationInput.parse(text, allowingZero: true) == 0, "\(text)")
                #expect(
                    failure { try DurationInput.parse(text) }
                        == .invalid(.duration, text.trimmingCharacters(in: .whitespaces), reason: "it must be longer than zero"), "\(text)")
            }
            #expect(try DurationInput.parse("90s", allowingZero: true) == 90)
            #expect(failure { try DurationInput.parse("-1s", allowingZero: true) } != nil)
            #expect(failure { try DurationInput.parse("5", allowingZero: true) } == .missingUnit("5", number: "5"))
        }

        @Test("error messages name the bad part")
        func messages() {
            let cases: [(String, String)] = [
                ("90", #"invalid duration "90": "90" needs a unit, as in 90s, 90m or 90h"#),
                ("1.5", #"invalid duration "1.5": "1.5" needs a unit, as in 1.5s, 1.5m or 1.5h"#),
                ("1h30", #"invalid duration "1h30": "30" needs a unit, as in 30s, 30m or 30h"#),
                // Zero needs no unit, and is refused in the same words whatever its unit.
                ("0", #"invalid duration "0": it must be longer than zero"#),
                ("0m", #"invalid duration "0m": it must be longer than zero"#),
                ("0s", #"invalid duration "0s": it must be longer than zero"#),
                ("367d", #"invalid duration "367d": it must be at most 366 days"#),
                ("99999999999999999999h", #"invalid duration "99999999999999999999h": it must be at most 366 days"#),
                ("5x", #"invalid duration "5x": "x" is not a unit: use d, h, m or s"#),
                ("30m1h", #"invalid duration "30m1h": give each unit once, largest first, as in 1h30m"#),
                ("1:60", #"invalid duration "1:60": the seconds must be 0 to 59"#),
                ("1:61:00", #"invalid duration "1:61:00": the minutes must be 0 to 59"#),
                ("1:5", #"invalid duration "1:5": the seconds must have two digits, as in 1:05:09"#),
                ("soon", #"invalid duration "soon": use a length such as 90s, 5m, 1h30m or 00:05:00"#),
                ("", "no duration given: use a length such as 90s, 5m, 1h30m or 00:05:00"),
            ]
            for (text, message) in cases {
                #expect(failure { try DurationInput.parse(text) }?.description == message, "\(text)")
            }
            #expect(failure { try DurationInput.parse("90") } == .missingUnit("90", number: "90"))
            // A long number is quoted (and cut), not repeated in the examples.
            #expect(
                failure { try DurationInput.parse("1234567890123") }?.description
                    == #"invalid duration "1234567890123": "1234567890123" needs a unit, as in s, m or h"#)
        }
    }
}

// MARK: - ID

extension `Text input` {
    @Suite("Text input: alarm ids")
    struct AlarmIDInputTests {
        let a = uuid("1A2B3C4D-0000-4000-8000-000000000001")
        let b = uuid("1A2B3C4D-0000-4000-8000-000000000002")
        let c = uuid("1A9F0000-0000-4000-8000-000000000003")
        let d = uuid("FFFF0000-0000-4000-8000-000000000004")
        var ids: [UUID] { [a, b, c, d] }

        @Test("a whole id is known without the alarms: dashed or 32 digits, either case; a prefix is not")
        func whole() {
            #expect(AlarmIDInput.whole("1a2b3c4d-0000-4000-8000-000000000001") == a)
            #expect(AlarmIDInput.whole(" 1A2B3C4D000040008000000000000001\n") == a)
            #expect(AlarmIDInput.whole("1a2b3c4d-0000-4000-8000-00000000000") == nil)
            #expect(AlarmIDInput.whole("1a2b3c4d") == nil)
            #expect(AlarmIDInput.whole("1a2b3c4d-0000-4000-8000000000000001") == nil)
            #expect(AlarmIDInput.whole("1a2b3c4d0000400080000000000000zz") == nil)
        }

        @Test("the full id in any case, with or without dashes, or a unique prefix")
        func accepted() throws {
            #expect(try AlarmIDInput.resolve("ff", among: ids) == d)
            #expect(try AlarmIDInput.resolve("F", among: ids) == d)
            #expect(try AlarmIDInput.resolve("1a9", among: ids) == c)
            #expect(try AlarmIDInput.resolve(" 1A9F \n", among: ids) == c)
            #expect(try AlarmIDInput.resolve("1a2b3c4d-0000-4000-8000-000000000001", among: ids) == a)
            #expect(try AlarmIDInput.resolve("1A2B3C4D-0000-4000-8000-000000000002", among: ids) == b)
            #expect(try AlarmIDInput.resolve("1a2b3c4d000040008000000000000001", among: ids) == a)
            #expect(try AlarmIDInput.resolve("1a2b3c4d-0000-4000-8000-000000000002", among: ids) == b)
            #expect(try AlarmIDInput.resolve("1a9f00000000", among: ids) == c)
            #expect(try AlarmIDInput.resolve("1a9f0000-0", among: ids) == c)
            #expect(try AlarmIDInput.resolve("1a9f", among: [c, c, c]) == c)
        }

        @Test("no match, ambiguity and bad characters")
        func rejected() {
            #expect(failure { try AlarmIDInput.resolve("", among: ids) } == .empty(.alarmID))
            #expect(failure { try AlarmIDInput.resolve("0", among: ids) } == .noMatchingAlarm("0"))
            #expect(failure { try AlarmIDInput.resolve("1a2b-", among: ids) } == .noMatchingAlarm("1a2b-"))
            #expect(failure { try AlarmIDInput.resolve("ff", among: []) } == .noMatchingAlarm("ff"))
            #expect(failure { try AlarmIDInput.resolve("1a", among: ids) } == .ambiguousID("1a", matches: [a, b, c]))
            #expect(
                failure { try AlarmIDInput.resolve("1a2b3c4d0000400080000000000000", among: ids) }
                    == .ambiguousID("1a2b3c4d0000400080000000000000", matches: [a, b]))
            for bad in ["xyz", "g", "1a2b!", "1a 2b", "１a", "{1a2b}", "1a2b3c4d-0000-4000-8000-0000000000011", "ü"] {
                #expect(failure { try AlarmIDInput.resolve(bad, among: ids) } == .unrecognized(.alarmID, bad), "\(bad)")
            }
        }

        @Test("error messages")
        func messages() {
            #expect(failure { try AlarmIDInput.resolve("ff1", among: ids) }?.description == #"no alarm matches the id "ff1""#)
            #expect(
                failure { try AlarmIDInput.resolve("xyz", among: ids) }?.description
                    == #"invalid alarm id "xyz": use the full id or its first few characters (0-9, a-f and dashes)"#)
            #expect(
                failure { try AlarmIDInput.resolve("", among: ids) }?.description
                    == "no alarm id given: use the full id or its first few characters (0-9, a-f and dashes)")
            // Ids that share their first 8 characters are shown long enough to tell apart.
            #expect(
                failure { try AlarmIDInput.resolve("1a", among: ids) }?.description
                    == #"the id "1a" is ambiguous: 3 alarms match (1a2b3c4d-0000-4000-8000-000000000001, "#
                    + "1a2b3c4d-0000-4000-8000-000000000002, 1a9f0000-0000-4000-8000-000000000003); type more of it")
            let many = (1...7).map { uuid("AB\($0)00000-0000-4000-8000-00000000000\($0)") }
            #expect(
                failure { try AlarmIDInput.resolve("a", among: many.reversed()) }?.description
                    == #"the id "a" is ambiguous: 7 alarms match (ab100000, ab200000, ab300000, ab400000, ab500000 and 2 more); "#
                    + "type more of it")
        }

        @Test("any prefix resolves to its id when unique, and counts its matches when not")
        func prefixes() async {
            let idGen = Gen.uint64().array(of: 2).map { words -> UUID in
                let hex = words.map { String(repeating: "0", count: 16 - String($0, radix: 16).count) + String($0, radix: 16) }
                    .joined()
                var text = hex
                for index in [8, 13, 18, 23] { text.insert("-", at: text.index(text.startIndex, offsetBy: index)) }
                return UUID(uuidString: text)!
            }
            await propertyCheck(count: 200, input: idGen.array(of: 1...40), Gen.int(in: 1...36)) { ids, length in
                let target = ids[0]
                let prefix = String(target.uuidString.prefix(length))
                let matches = Set(ids).filter { $0.uuidString.hasPrefix(prefix) }
                let result = Result { () throws(InputError) in try AlarmIDInput.resolve(prefix.uppercased(), among: ids) }
                switch result {
                case .success(let id):
                    #expect(matches.count == 1 && id == target)
                case .failure(.ambiguousID(_, let found)):
                    #expect(Set(found) == matches && matches.count > 1)
                case .failure(let error):
                    Issue.record("unexpected \(error)")
                }
            }
        }
    }
}

// MARK: - Errors

extension `Text input` {
    @Suite("Text input: error descriptions")
    struct InputErrorTests {
        @Test("quoted text is cut and control characters escaped")
        func quoting() {
            #expect(
                failure { try ClockTimeInput.parse("7:30\u{1B}[31m", timeZone: utc) }?.description
                    == #"invalid time "7:30\u{1B}[31m": use a clock time such as 7:30, 7pm or noon, a day and time such as tomorrow 7:30 or mon,wed 6:45, a date and time such as 2026-12-01 07:30, or a moment from now such as in 20m"#
            )
            #expect(
                failure { try DurationInput.parse("5\"m\\") }?.description
                    == #"invalid duration "5\"m\\": use a length such as 90s, 5m, 1h30m or 00:05:00"#)
            #expect(
                failure { try WeekdaysInput.parse("mon\u{2028}day") }?.description
                    == #"unknown day "mon\u{2028}day": use mon, tue, wed, thu, fri, sat, sun or full day names separated by commas, "#
                    + "a range such as mon-fri, or weekdays, weekends or daily")
            let long = String(repeating: "a", count: 10_000)
            #expect(
                failure { try DurationInput.parse(long) }?.description
                    == "invalid duration \"\(String(repeating: "a", count: 40))…\": use a length such as 90s, 5m, 1h30m or 00:05:00")
            #expect(
                failure { try WeekdaysInput.parse("日本語のとても長い曜日の名前です、本当にとても長い名前で四十文字を超えるのですよね") }?.description
                    == "unknown day \"日本語のとても長い曜日の名前です、本当にとても長い名前で四十文字を超えるのですよ…\": use mon, tue, wed, thu, fri, "
                    + "sat, sun or full day names separated by commas, a range such as mon-fri, or weekdays, weekends or daily")
        }

        @Test("each error knows its field")
        func fields() {
            #expect(InputError.unknownDay("x").field == .days)
            #expect(InputError.missingDay("x").field == .days)
            #expect(InputError.missingUnit("x", number: "1").field == .duration)
            #expect(InputError.noMatchingAlarm("x").field == .alarmID)
            #expect(InputError.ambiguousID("x", matches: []).field == .alarmID)
            #expect(InputError.invalid(.time, "x", reason: "r").field == .time)
            #expect(InputError.empty(.duration).field == .duration)
        }
    }
}

// MARK: - Formatting

extension `Text input` {
    @Suite("Text input: formatting durations and relative times")
    struct FormattingTests {
        @Test(
            "durations in units",
            arguments: [
                (5_405.0, "1h 30m 5s"), (0, "0s"), (45, "45s"), (60, "1m"), (3_600, "1h"), (90_061, "1d 1h 1m 1s"),
                (86_405, "1d 5s"), (4.2, "5s"), (0.001, "1s"), (-3, "0s"), (.nan, "0s"), (-.infinity, "0s"),
                (31_622_400, "366d"),
            ])
        func units(seconds: TimeInterval, text: String) {
            #expect(DurationFormat.units(seconds) == text)
        }

        @Test("durations limited to the two most significant units")
        func twoUnits() {
            #expect(DurationFormat.units(5_405, maximumUnits: 2) == "1h 30m")
            #expect(DurationFormat.units(7_230, maximumUnits: 2) == "2h")
            #expect(DurationFormat.units(90_061, maximumUnits: 1) == "1d")
            #expect(DurationFormat.units(250, maximumUnits: 2) == "4m 10s")
            #expect(DurationFormat.units(.infinity, maximumUnits: 2) == "11574074074d 1h")
        }

        @Test(
            "durations as a clock",
            arguments: [
                (5_405.0, "01:30:05"), (45, "00:00:45"), (0, "00:00:00"), (93_600, "26:00:00"), (59.5, "00:01:00"),
                (31_622_400, "8784:00:00"), (-1, "00:00:00"), (.nan, "00:00:00"),
            ])
        func clockForm(seconds: TimeInterval, text: String) {
            #expect(DurationFormat.clock(seconds) == text)
        }

        @Test(
            "relative times",
            arguments: [
                (7_500.0, "in 2h 5m"), (45, "in 45s"), (273_600, "in 3d 4h"), (0, "now"), (-300, "5m ago"),
                (7_230, "in 2h"), (7_559, "in 2h 5m"), (259_259, "in 3d"), (0.2, "in 1s"), (-0.5, "now"), (-1, "1s ago"),
                (-1.9, "1s ago"), (-90_000, "1d 1h ago"), (3_540.5, "in 59m 1s"), (.nan, "now"),
            ])
        func relative(interval: TimeInterval, text: String) {
            #expect(RelativeTimeFormat.string(forInterval: interval) == text)
            let now = Fixtures.instant("2026-12-05T09:00:00Z")
            if interval.isFinite {
                #expect(RelativeTimeFormat.string(for: now.addingTimeInterval(interval), relativeTo: now) == text)
            }
        }

        @Test("local times: weekday within six days, the date otherwise, in the reading's zone")
        func localTimes() {
            // Saturday 2026-12-05, 10:00 in Berlin.
            let reading = ClockReading(
                now: Fixtures.instant("2026-12-05T09:00:00Z"), uptime: .seconds(100), bootID: "b", timeZone: berlin)
            let cases: [(String, String)] = [
                ("2026-12-05T09:00:59Z", "Sat 10:00"), ("2026-12-05T22:59:00Z", "Sat 23:59"), ("2026-12-05T23:00:00Z", "Sun 00:00"),
                ("2026-12-11T22:59:00Z", "Fri 23:59"), ("2026-12-11T23:00:00Z", "2026-12-12 00:00"),
                ("2026-12-04T12:00:00Z", "2026-12-04 13:00"), ("2027-06-01T05:30:00Z", "2027-06-01 07:30"),
            ]
            for (instant, text) in cases {
                #expect(LocalTimeFormat.string(for: Fixtures.instant(instant), at: reading) == text, "\(instant)")
            }
            var tokyo = reading
            tokyo.timeZone = Fixtures.zone("Asia/Tokyo")
            #expect(LocalTimeFormat.string(for: Fixtures.instant("2026-12-05T22:30:00Z"), at: tokyo) == "Sun 07:30")
            #expect(LocalTimeFormat.string(for: Date(timeIntervalSince1970: .infinity), at: reading) == "-")
            #expect(LocalTimeFormat.string(for: .distantFuture, at: reading) == "4001-01-01 01:00")
        }

        @Test("display widths")
        func widths() {
            let cases: [(String, Int)] = [
                ("abc", 3), ("日本", 4), ("⏰", 2), ("e\u{0301}", 1), ("👨‍👩‍👧", 2), ("🇯🇵", 2), ("\u{200B}", 0), ("⏱️", 2),
                ("☺", 1), ("ｱ", 1), ("Ａ", 2), ("한국어", 6), ("", 0), ("起床 ⏰", 7), ("\u{0301}", 0),
            ]
            for (text, width) in cases {
                #expect(DisplayWidth.of(text) == width, "\(text)")
            }
            #expect(DisplayWidth.truncated("日本語のとても", toWidth: 6) == "日本…")
            #expect(DisplayWidth.truncated("日本語", toWidth: 6) == "日本語")
            #expect(DisplayWidth.truncated("abcdef", toWidth: 5) == "abcd…")
            #expect(DisplayWidth.truncated("abcdef", toWidth: 1) == "…")
            #expect(DisplayWidth.truncated("abcdef", toWidth: 0) == "")
        }
    }
}

// MARK: - The list table

extension `Text input` {
    @Suite("Text input: list table")
    struct ListTableTests {
        /// Saturday 2026-12-05, 10:00 in Berlin.
        static let reading = ClockReading(
            now: Fixtures.instant("2026-12-05T09:00:00Z"), uptime: .seconds(10_000), bootID: "boot-1", timeZone: berlin)

        static func record(_ id: String, _ definition: AlarmDefinition, _ phase: AlarmRecord.Phase) -> AlarmRecord {
            AlarmRecord(id: uuid(id), owner: "cli", definition: definition, phase: phase, anchor: reading.now)
        }

        static func scheduled(_ id: String, _ instant: String, title: String) -> AlarmRecord {
            record(id, Fixtures.definition(.fixed(Fixtures.instant(instant)), title: title), .scheduled(alertAt: Fixtures.instant(instant)))
        }

        static let records: [AlarmRecord] = [
            record(
                "51D0AA3E-0000-4000-8000-000000000004", Fixtures.timer(600, title: "Pa\u{0301}tes"),
                .paused(.init(kind: .preAlert, remaining: 250, duration: 600))),
            scheduled("C0FFEE00-0000-4000-8000-000000000005", "2026-12-24T17:00:00Z", title: "Réveillon de Noël 🎄"),
            record(
                "9A0C1E55-0000-4000-8000-000000000003", Fixtures.definition(Fixtures.clockTime(7, 30, on: [.monday]), title: "Work"),
                .scheduled(alertAt: Fixtures.instant("2026-12-07T06:30:00Z"))),
            record(
                "0B7E44D2-0000-4000-8000-000000000002", Fixtures.timer(900, title: "Tea 🍵"),
                .countdown(
                    .init(
                        kind: .preAlert,
                        endsAt: ElapsedDeadline(
                            bootID: "boot-1", uptime: .seconds(10_750), wallEstimate: reading.now.addingTimeInterval(750)),
                        duration: 900))),
            scheduled("7E57AB1E-0000-4000-8000-000000000006", "2026-12-11T05:00:00Z", title: "日本語のとても長いタイトルです"),
            record(
                "3F2A9C01-0000-4000-8000-000000000001", Fixtures.definition(Fixtures.clockTime(9, 58), title: "起床 ⏰"),
                .alerting(
                    .init(
                        scheduledAt: reading.now.addingTimeInterval(-120), startedAt: reading.now.addingTimeInterval(-120),
                        timesOutAt: nil))),
            scheduled("D15EA5E0-0000-4000-8000-000000000007", "2026-12-12T05:00:00Z", title: "Next Saturday"),
        ]

        @Test("the table, sorted, aligned, in local time")
        func table() {
            let expected = [
                "ID        KIND   STATE      NEXT              IN             TITLE",
                "3f2a9c01  alarm  alerting   RINGING           2m ago         起床 ⏰",
                "0b7e44d2  timer  countdown  Sat 10:12         in 12m 30s     Tea 🍵",
                "9a0c1e55  alarm  scheduled  Mon 07:30         in 1d 21h      Work",
                "7e57ab1e  alarm  scheduled  Fri 06:00         in 5d 20h      日本語のとても長いタイトルです",
                "d15ea5e0  alarm  scheduled  2026-12-12 06:00  in 6d 20h      Next Saturday",
                "c0ffee00  alarm  scheduled  2026-12-24 18:00  in 19d 8h      Réveillon de Noël 🎄",
                "51d0aa3e  timer  paused     -                 paused 4m 10s  Pa\u{0301}tes",
            ].joined(separator: "\n")
            #expect(AlarmListFormat.table(Self.records, at: Self.reading, width: nil) == expected)
            #expect(AlarmListFormat.table(Self.records.reversed(), at: Self.reading, width: nil) == expected)
            // A wide terminal changes nothing.
            #expect(AlarmListFormat.table(Self.records, at: Self.reading, width: 200) == expected)
        }

        @Test("titles are cut to the width with …, by display width")
        func truncation() {
            let table = AlarmListFormat.table(Self.records, at: Self.reading, width: 73)
            let titles = table.split(separator: "\n").map { String($0.dropFirst(61)) }
            #expect(titles == ["TITLE", "起床 ⏰", "Tea 🍵", "Work", "日本語のと…", "Next Saturd…", "Réveillon d…", "Pa\u{0301}tes"])
            for line in table.split(separator: "\n") {
                #expect(DisplayWidth.of(line) <= 73, "\(line)")
            }
            // Too narrow: titles keep 10 columns and overflow the width.
            let narrow = AlarmListFormat.table(Self.records, at: Self.reading, width: 20)
            #expect(
                narrow.split(separator: "\n").map { String($0.dropFirst(61)) }
                    == ["TITLE", "起床 ⏰", "Tea 🍵", "Work", "日本語の…", "Next Satu…", "Réveillon…", "Pa\u{0301}tes"])
        }

        @Test("columns line up: every line has the same display width before the title")
        func alignment() {
            for width in [nil, 73, 66, 20] as [Int?] {
                let lines = AlarmListFormat.table(Self.records, at: Self.reading, width: width).split(separator: "\n")
                #expect(lines.count == Self.records.count + 1)
                // The columns before TITLE are ASCII, so character offsets are display columns.
                let header = lines[0]
                let starts = ["KIND", "STATE", "NEXT", "IN ", "TITLE"].map { header.range(of: $0)!.lowerBound.utf16Offset(in: header) }
                #expect(starts == [10, 17, 28, 46, 61])
                for line in lines {
                    let prefix = line.prefix(61)
                    #expect(prefix.allSatisfy { $0.isASCII }, "\(line)")
                    for start in starts {
                        #expect(line[line.index(line.startIndex, offsetBy: start - 2)...].hasPrefix("  "), "\(line)")
                        #expect(line[line.index(line.startIndex, offsetBy: start)] != " ", "\(line)")
                    }
                }
            }
        }

        @Test("titles with line breaks and escapes stay on their row")
        func controlCharacters() {
            let record = Self.scheduled("AAAAAAAA-0000-4000-8000-000000000001", "2026-12-06T09:00:00Z", title: "Line1\nLine2\u{1B}[0m\tX")
            let empty = Self.scheduled("BBBBBBBB-0000-4000-8000-000000000001", "2026-12-06T10:00:00Z", title: "")
            let table = AlarmListFormat.table([record, empty], at: Self.reading, width: nil)
            #expect(
                table
                    == [
                        "ID        KIND   STATE      NEXT       IN        TITLE",
                        "aaaaaaaa  alarm  scheduled  Sun 10:00  in 1d     Line1 Line2\u{FFFD}[0m X",
                        "bbbbbbbb  alarm  scheduled  Sun 11:00  in 1d 1h  -",
                    ].joined(separator: "\n"))
        }

        @Test("a title that starts with a combining mark gets a dotted circle to sit on")
        func leadingMark() {
            let record = Self.scheduled("AAAAAAAA-0000-4000-8000-000000000001", "2026-12-06T09:00:00Z", title: "\u{0301}x")
            let joiner = Self.scheduled("BBBBBBBB-0000-4000-8000-000000000001", "2026-12-06T10:00:00Z", title: "\u{200D}🔔")
            let table = AlarmListFormat.table([record, joiner], at: Self.reading, width: nil)
            #expect(
                table
                    == [
                        "ID        KIND   STATE      NEXT       IN        TITLE",
                        "aaaaaaaa  alarm  scheduled  Sun 10:00  in 1d     \u{25CC}\u{0301}x",
                        "bbbbbbbb  alarm  scheduled  Sun 11:00  in 1d 1h  \u{25CC}\u{200D}🔔",
                    ].joined(separator: "\n"))
            for line in table.split(separator: "\n") {
                #expect(line.prefix(49).allSatisfy { $0.isASCII } && line.dropFirst(47).hasPrefix("  "))
            }
        }

        @Test("sorting: ringing first by start, then by next alert, then paused by time left; ties by id")
        func sorting() {
            let now = Self.reading.now
            func ringing(_ id: String, startedAgo: TimeInterval) -> AlarmRecord {
                Self.record(
                    id, Fixtures.definition(Fixtures.clockTime(9, 0)),
                    .alerting(.init(scheduledAt: now, startedAt: now.addingTimeInterval(-startedAgo), timesOutAt: nil)))
            }
            func paused(_ id: String, left: TimeInterval) -> AlarmRecord {
                Self.record(id, Fixtures.timer(900), .paused(.init(kind: .preAlert, remaining: left, duration: 900)))
            }
            let records = [
                paused("10000000-0000-4000-8000-000000000000", left: 30),
                Self.scheduled("20000000-0000-4000-8000-000000000000", "2026-12-06T09:00:00Z", title: "B"),
                ringing("30000000-0000-4000-8000-000000000000", startedAgo: 5),
                paused("40000000-0000-4000-8000-000000000000", left: 10),
                Self.scheduled("50000000-0000-4000-8000-000000000000", "2026-12-05T09:30:00Z", title: "A"),
                ringing("60000000-0000-4000-8000-000000000000", startedAgo: 65),
                Self.scheduled("05000000-0000-4000-8000-000000000000", "2026-12-06T09:00:00Z", title: "B, same instant"),
            ]
            let table = AlarmListFormat.table(records, at: Self.reading, width: nil)
            let rows = table.split(separator: "\n").dropFirst().map {
                ($0.prefix(8), $0.split(separator: "  ", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces) })
            }
            #expect(
                rows.map { String($0.0) } == [
                    "60000000", "30000000", "50000000", "05000000", "20000000", "40000000", "10000000",
                ])
            #expect(rows.map { $0.1[4] } == ["1m 5s ago", "5s ago", "in 30m", "in 1d", "in 1d", "paused 10s", "paused 30s"])
            #expect(rows.map { $0.1[3] } == ["RINGING", "RINGING", "Sat 10:30", "Sun 10:00", "Sun 10:00", "-", "-"])
        }

        @Test("an empty list")
        func empty() {
            #expect(AlarmListFormat.table([], at: Self.reading, width: nil) == "No alarms.")
            #expect(AlarmListFormat.table([], at: Self.reading, width: 80) == "No alarms.")
        }
    }
}

// MARK: - Properties

extension `Text input` {
    @Suite("Text input: properties")
    struct TextPropertyTests {
        static let anyScalar = Gen<UInt32>.value(in: 0...0x10FFFF).map { Character(Unicode.Scalar($0) ?? "\u{FFFD}") }
        static let tokens: [String] = [
            "0", "1", "7", "12", "30", "59", "60", "99", "2026", "-", ":", ".", " ", ",", "am", "pm", "P.M.", "T", "Z", "+",
            "h", "m", "s", "d", "min", "mon", "weekdays", "daily", "a", "f", "\u{0301}", "日", "٣", "５", "🙂", "\n", "\u{0}",
        ]
        static let soup = Gen<String?>.element(of: tokens).map { $0 ?? "" }.array(of: 0...14).map { $0.joined() }

        /// Runs every parser and checks what each says about the text.
        static func checkParsers(_ text: String) {
            let ids = [uuid("1A2B3C4D-0000-4000-8000-000000000001"), uuid("1A9F0000-0000-4000-8000-000000000003")]
            for zone in [utc, newYork] {
                do {
                    switch try ClockTimeInput.parse(text, timeZone: zone) {
                    case .relative(let relative):
                        #expect((0...23).contains(relative.time.hour) && (0...59).contains(relative.time.minute))
                    case .fixed(let date):
                        #expect(date.timeIntervalSince1970.isFinite)
                    }
                } catch {
                    #expect(!error.description.isEmpty && error.description.unicodeScalars.count < 1_500)
                }
            }
            do {
                let days = try WeekdaysInput.parse(text)
                #expect(!days.isEmpty && days == WeekdaysInput.weekOrdered(days))
            } catch {
                #expect(!error.description.isEmpty && error.description.unicodeScalars.count < 1_500)
            }
            do {
                let seconds = try DurationInput.parse(text)
                #expect(seconds > 0 && seconds <= AlarmDefinition.maximumDuration)
            } catch {
                #expect(!error.description.isEmpty && error.description.unicodeScalars.count < 1_500)
            }
            do {
                let id = try AlarmIDInput.resolve(text, among: ids)
                #expect(ids.contains(id))
            } catch {
                #expect(!error.description.isEmpty && error.description.unicodeScalars.count < 1_500)
            }
        }

        @Test("formatting a whole-second duration and reading it back gives it back")
        func roundTrip() async {
            await propertyCheck(count: 2_000, input: Gen.int(in: 1...31_622_400)) { seconds in
                let value = TimeInterval(seconds)
                let units = try DurationInput.parse(DurationFormat.units(value))
                let clock = try DurationInput.parse(DurationFormat.clock(value))
                let compact = try DurationInput.parse(DurationFormat.units(value).replacingOccurrences(of: " ", with: ""))
                #expect(units == value, "\(DurationFormat.units(value))")
                #expect(clock == value, "\(DurationFormat.clock(value))")
                #expect(compact == value)
            }
        }

        @Test("formatting a clock time and reading it back gives it back")
        func clockRoundTrip() async {
            await propertyCheck(count: 500, input: Gen.int(in: 0...23), Gen.int(in: 0...59)) { hour, minute in
                let padded = minute < 10 ? "0\(minute)" : "\(minute)"
                let twentyFour = try ClockTimeInput.parse("\(hour):\(padded)", timeZone: utc)
                let twelve = hour % 12 == 0 ? 12 : hour % 12
                let twelveHour = try ClockTimeInput.parse("\(twelve):\(padded)\(hour < 12 ? "am" : "PM")", timeZone: utc)
                #expect(twentyFour == clock(hour, minute))
                #expect(twelveHour == clock(hour, minute))
            }
        }

        @Test("the parsers never trap on random Unicode text")
        func randomUnicode() async {
            await propertyCheck(count: 300, input: Self.anyScalar.string(of: 0...60)) { text in
                Self.checkParsers(text)
            }
        }

        @Test("the parsers never trap on random ASCII text, up to 10,000 characters")
        func randomASCII() async {
            await propertyCheck(count: 100, input: Gen.ascii.string(of: 0...10_000)) { text in
                Self.checkParsers(text)
            }
            Self.checkParsers(String(repeating: "9", count: 10_000))
            Self.checkParsers(String(repeating: "9", count: 10_000) + "s")
            Self.checkParsers("1" + String(repeating: "0", count: 400) + "h")
            Self.checkParsers("0." + String(repeating: "9", count: 90) + "s")
            Self.checkParsers(String(repeating: "mon,", count: 2_500) + "mon")
            Self.checkParsers(String(repeating: "🙂", count: 10_000))
        }

        @Test("the parsers never trap on near-miss text built from their own tokens")
        func tokenSoup() async {
            await propertyCheck(count: 3_000, input: Self.soup) { text in
                Self.checkParsers(text)
            }
        }

        @Test("the table keeps one line per alarm and every title within the width, whatever the titles")
        func tableProperty() async {
            await propertyCheck(count: 200, input: Self.anyScalar.string(of: 0...40).array(of: 1...6), Gen.int(in: 0...120)) {
                titles, width in
                let records = titles.enumerated().map { index, title in
                    ListTableTests.scheduled(
                        "\(index)AAAAAAA-0000-4000-8000-000000000000", "2026-12-0\(index + 6)T09:00:00Z", title: title)
                }
                let table = AlarmListFormat.table(records, at: ListTableTests.reading, width: width)
                let lines = table.split(separator: "\n", omittingEmptySubsequences: false)
                #expect(lines.count == records.count + 1)
                let prefix = DisplayWidth.of(lines[0]) - DisplayWidth.of("TITLE")
                for line in lines {
                    #expect(line.prefix(prefix).allSatisfy { $0.isASCII })
                    #expect(DisplayWidth.of(line) <= max(width, prefix + AlarmListFormat.minimumTitleWidth))
                }
            }
        }

        @Test("the formatters never trap on any number")
        func formatters() async {
            let special: [TimeInterval] = [
                .nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e300, -1e-300,
            ]
            for value in special {
                _ = DurationFormat.units(value)
                _ = DurationFormat.clock(value)
                _ = RelativeTimeFormat.string(forInterval: value)
            }
            await propertyCheck(count: 500, input: Gen.double(in: -1e20...1e20)) { value in
                #expect(!DurationFormat.units(value).isEmpty)
                #expect(DurationFormat.clock(value).count >= 8)
                let relative = RelativeTimeFormat.string(forInterval: value)
                #expect(relative == "now" || relative.hasPrefix("in ") || relative.hasSuffix(" ago"))
            }
        }
    }
}
