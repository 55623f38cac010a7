import CommandLineText
import AlarmModel
import Foundation
import Testing

/// Times and dates in the person's style.
@Suite("Time style: 12 or 24 hours, day and month names")
struct TimeStyleTests {
    @Test("The C locale's style is the text that depends on no locale")
    func standard() {
        let style = TimeStyle.standard
        #expect(style.clockText(hour: 7, minute: 30) == "07:30")
        #expect(style.clockText(hour: 19, minute: 5) == "19:05")
        #expect(style.weekdayText(.saturday) == "Sat")
        #expect(style.dateText(year: 2026, month: 12, day: 1) == "2026-12-01")
        #expect(TimeStyle(twelveHour: true, locale: nil).clockText(hour: 0, minute: 5) == "12:05 AM")
        #expect(TimeStyle(twelveHour: true, locale: nil).clockText(hour: 19, minute: 30) == "7:30 PM")
    }

    @Test("US English reads 7:30 AM; German 07:30, Sa., 1. Dez. 2026; French sam.")
    func locales() {
        let american = TimeStyle.resolve(environment: ["LANG": "en_US.UTF-8"], gnomeClockFormat: nil)
        #expect(american.twelveHour)
        #expect(american.clockText(hour: 7, minute: 30) == "7:30 AM")
        #expect(american.clockText(hour: 12, minute: 0) == "12:00 PM")
        #expect(american.weekdayText(.monday) == "Mon")
        #expect(american.dateText(year: 2026, month: 12, day: 1) == "Dec 1, 2026")
        let german = TimeStyle.resolve(environment: ["LANG": "de_DE.UTF-8"], gnomeClockFormat: nil)
        #expect(!german.twelveHour)
        #expect(german.clockText(hour: 7, minute: 30) == "07:30")
        #expect(german.weekdayText(.saturday) == "Sa.")
        #expect(german.dateText(year: 2026, month: 12, day: 1) == "1. Dez. 2026")
        let french = TimeStyle.resolve(environment: ["LC_TIME": "fr_FR.UTF-8", "LANG": "en_US.UTF-8"], gnomeClockFormat: nil)
        #expect(french.clockText(hour: 7, minute: 30) == "07:30")
        #expect(french.weekdayText(.saturday) == "sam.")
    }

    @Test("GNOME's clock-format decides 12 or 24 hours; the locale keeps the names")
    func gnomeClock() {
        let german = TimeStyle.resolve(environment: ["LANG": "de_DE.UTF-8"], gnomeClockFormat: "12h")
        #expect(german.twelveHour)
        #expect(german.clockText(hour: 19, minute: 30).hasPrefix("7:30 "))
        let american = TimeStyle.resolve(environment: ["LANG": "en_US.UTF-8"], gnomeClockFormat: "24h")
        #expect(american.clockText(hour: 7, minute: 30) == "07:30")
        #expect(TimeStyle.resolve(environment: [:], gnomeClockFormat: "12h").clockText(hour: 7, minute: 30) == "7:30 AM")
        // Something GNOME does not write is left to the locale.
        #expect(TimeStyle.resolve(environment: ["LANG": "en_US.UTF-8"], gnomeClockFormat: "bogus").twelveHour)
    }

    @Test("LC_ALL, then LC_TIME, then LANG; C, POSIX and C.UTF-8 are the C locale")
    func environment() {
        #expect(TimeStyle.timeLocaleName(in: ["LC_ALL": "de_DE.UTF-8", "LC_TIME": "en_US.UTF-8"]) == "de_DE.UTF-8")
        #expect(TimeStyle.timeLocaleName(in: ["LC_ALL": "", "LC_TIME": "en_US.UTF-8", "LANG": "fr_FR"]) == "en_US.UTF-8")
        #expect(TimeStyle.timeLocaleName(in: ["LANG": "fr_FR"]) == "fr_FR")
        #expect(TimeStyle.timeLocaleName(in: [:]) == nil)
        for name in ["C", "POSIX", "C.UTF-8", "C.utf8", ""] {
            #expect(TimeStyle.locale(posixName: name) == nil, "\(name)")
            #expect(TimeStyle.resolve(environment: ["LANG": name], gnomeClockFormat: nil) == .standard, "\(name)")
        }
        #expect(TimeStyle.locale(posixName: "pt_BR.utf8@x")?.identifier == "pt_BR")
    }

    @Test("The list's times in a person's style: weekday within the week, a date beyond it")
    func listTimes() throws {
        let zone = try #require(TimeZone(identifier: "Europe/Berlin"))
        // Saturday 2026-11-28 06:30 UTC is 07:30 in Berlin.
        let now = Date(timeIntervalSince1970: 1_795_847_400)
        let reading = ClockReading(now: now, uptime: .seconds(1_000), bootID: "boot", timeZone: zone)
        let german = TimeStyle.resolve(environment: ["LANG": "de_DE.UTF-8"], gnomeClockFormat: nil)
        let american = TimeStyle.resolve(environment: ["LANG": "en_US.UTF-8"], gnomeClockFormat: nil)
        #expect(LocalTimeFormat.string(for: now, at: reading) == "Sat 07:30")
        #expect(LocalTimeFormat.string(for: now, at: reading, style: german) == "Sa. 07:30")
        #expect(LocalTimeFormat.string(for: now, at: reading, style: american) == "Sat 7:30 AM")
        let later = now.addingTimeInterval(3 * 86_400 + 12 * 3_600)
        #expect(LocalTimeFormat.string(for: later, at: reading, style: american) == "Tue 7:30 PM")
        let farther = now.addingTimeInterval(10 * 86_400)
        #expect(LocalTimeFormat.string(for: farther, at: reading) == "2026-12-08 07:30")
        #expect(LocalTimeFormat.string(for: farther, at: reading, style: german) == "8. Dez. 2026 07:30")
        #expect(LocalTimeFormat.string(for: farther, at: reading, style: american) == "Dec 8, 2026 7:30 AM")
    }
}
