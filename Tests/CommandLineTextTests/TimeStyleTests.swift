import CommandLineText
import AlarmModel
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Times and dates in the person's style, from the C library's locales (made with `localedef`, as
/// on an installed system), checked against what `date` prints in the same locale.
///
/// The C library finds a made locale through `LOCPATH`, read from the process's environment, which a
/// test must not change under the other tests' threads: the tests that open a locale run in a
/// process of their own (an exit test) that sets it first.
@Suite("Time style: 12 or 24 hours, day names and dates")
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

    @Test("US English reads 7:30 AM and 12/01/2026; German 07:30, Sa and 01.12.2026; French sam.: what date prints")
    func locales() async throws {
        let locales = try TranslationCatalogs.localeFolder()
        await #expect(processExitsWith: .success) { [locales = locales as String] in
            setenv("LOCPATH", locales, 1)
            func date(_ format: String, _ name: String, _ instant: Date) -> String {
                (try? TranslationCatalogs.date(format, at: instant, locale: name, locales: locales)) ?? "(date failed)"
            }
            // Saturday 2026-11-28 07:30 UTC, and Tuesday 2026-12-01 at noon.
            let saturday = Date(timeIntervalSince1970: 1_795_851_000)
            let december = Date(timeIntervalSince1970: 1_796_126_400)
            let american = TimeStyle.resolve(environment: ["LANG": "en_US.UTF-8"], gnomeClockFormat: nil)
            #expect(american.twelveHour)
            #expect(american.clockText(hour: 7, minute: 30) == "7:30 AM")
            #expect(american.clockText(hour: 7, minute: 30) == (date("%-l:%M %p", "en_US.UTF-8", saturday)))
            #expect(american.clockText(hour: 12, minute: 0) == "12:00 PM")
            #expect(american.weekdayText(.monday) == "Mon")
            #expect(american.weekdayText(.saturday) == (date("%a", "en_US.UTF-8", saturday)))
            #expect(american.dateText(year: 2026, month: 12, day: 1) == "12/01/2026")
            #expect(american.dateText(year: 2026, month: 12, day: 1) == (date("%x", "en_US.UTF-8", december)))
            let german = TimeStyle.resolve(environment: ["LANG": "de_DE.UTF-8"], gnomeClockFormat: nil)
            #expect(!german.twelveHour)
            #expect(german.clockText(hour: 7, minute: 30) == "07:30")
            #expect(german.clockText(hour: 7, minute: 30) == (date("%R", "de_DE.UTF-8", saturday)))
            #expect(german.weekdayText(.saturday) == "Sa")
            #expect(german.weekdayText(.saturday) == (date("%a", "de_DE.UTF-8", saturday)))
            #expect(german.dateText(year: 2026, month: 12, day: 1) == "01.12.2026")
            #expect(german.dateText(year: 2026, month: 12, day: 1) == (date("%x", "de_DE.UTF-8", december)))
            let french = TimeStyle.resolve(environment: ["LC_TIME": "fr_FR.UTF-8", "LANG": "en_US.UTF-8"], gnomeClockFormat: nil)
            #expect(!french.twelveHour)
            #expect(french.clockText(hour: 7, minute: 30) == "07:30")
            #expect(french.weekdayText(.saturday) == "sam.")
            #expect(french.weekdayText(.saturday) == (date("%a", "fr_FR.UTF-8", saturday)))
        }
    }

    @Test("GNOME's clock-format decides 12 or 24 hours; the locale keeps the names")
    func gnomeClock() async throws {
        let locales = try TranslationCatalogs.localeFolder()
        await #expect(processExitsWith: .success) { [locales = locales as String] in
            setenv("LOCPATH", locales, 1)
            let german = TimeStyle.resolve(environment: ["LANG": "de_DE.UTF-8"], gnomeClockFormat: "12h")
            #expect(german.twelveHour)
            // German has no words for AM and PM (`date +%p` prints nothing): the C locale's say which half.
            #expect((try? TranslationCatalogs.date("%p", at: Date(), locale: "de_DE.UTF-8", locales: locales)) == "")
            #expect(german.clockText(hour: 19, minute: 30) == "7:30 PM")
            #expect(german.weekdayText(.saturday) == "Sa")
            let american = TimeStyle.resolve(environment: ["LANG": "en_US.UTF-8"], gnomeClockFormat: "24h")
            #expect(american.clockText(hour: 7, minute: 30) == "07:30")
            // Something GNOME does not write is left to the locale.
            #expect(TimeStyle.resolve(environment: ["LANG": "en_US.UTF-8"], gnomeClockFormat: "bogus").twelveHour)
        }
        #expect(TimeStyle.resolve(environment: [:], gnomeClockFormat: "12h").clockText(hour: 7, minute: 30) == "7:30 AM")
    }

    @Test("LC_ALL, then LC_TIME, then LANG; C, POSIX, C.UTF-8 and a locale the system has not made are the C locale")
    func environment() async throws {
        #expect(TimeStyle.timeLocaleName(in: ["LC_ALL": "de_DE.UTF-8", "LC_TIME": "en_US.UTF-8"]) == "de_DE.UTF-8")
        #expect(TimeStyle.timeLocaleName(in: ["LC_ALL": "", "LC_TIME": "en_US.UTF-8", "LANG": "fr_FR"]) == "en_US.UTF-8")
        #expect(TimeStyle.timeLocaleName(in: ["LANG": "fr_FR"]) == "fr_FR")
        #expect(TimeStyle.timeLocaleName(in: [:]) == nil)
        for name in ["C", "POSIX", "C.UTF-8", "C.utf8", ""] {
            #expect(TimeLocale(named: name) == nil, "\(name)")
            #expect(TimeStyle.resolve(environment: ["LANG": name], gnomeClockFormat: nil) == .standard, "\(name)")
        }
        let locales = try TranslationCatalogs.localeFolder()
        await #expect(processExitsWith: .success) { [locales = locales as String] in
            setenv("LOCPATH", locales, 1)
            // A locale the C library cannot load is the C locale for every program: `date` writes `Sat`.
            #expect(TimeLocale(named: "pt_BR.utf8@x") == nil)
            #expect(TimeStyle.resolve(environment: ["LANG": "pt_BR.utf8@x"], gnomeClockFormat: nil) == .standard)
            let saturday = Date(timeIntervalSince1970: 1_795_851_000)
            #expect(
                (try? TranslationCatalogs.date("%a", at: saturday, locale: "pt_BR.utf8@x", locales: locales))
                    == TimeStyle.standard.weekdayText(.saturday))
            #expect(TimeLocale(named: "de_DE.UTF-8")?.name == "de_DE.UTF-8")
            let styles = ["LC_ALL": "de_DE.UTF-8", "LC_TIME": "en_US.UTF-8", "LANG": "fr_FR.UTF-8"]
            #expect(TimeStyle.resolve(environment: styles, gnomeClockFormat: nil).locale?.name == "de_DE.UTF-8")
        }
    }

    @Test("The list's times in a person's style: weekday within the week, a date beyond it")
    func listTimes() async throws {
        let zone = Fixtures.zone("Europe/Berlin")
        // Saturday 2026-11-28 06:30 UTC is 07:30 in Berlin.
        let now = Date(timeIntervalSince1970: 1_795_847_400)
        let reading = ClockReading(now: now, uptime: .seconds(1_000), bootID: "boot", timeZone: zone)
        #expect(LocalTimeFormat.string(for: now, at: reading) == "Sat 07:30")
        #expect(LocalTimeFormat.string(for: now.addingTimeInterval(10 * 86_400), at: reading) == "2026-12-08 07:30")
        let locales = try TranslationCatalogs.localeFolder()
        await #expect(processExitsWith: .success) { [locales = locales as String] in
            setenv("LOCPATH", locales, 1)
            let zone = Fixtures.zone("Europe/Berlin")
            let now = Date(timeIntervalSince1970: 1_795_847_400)
            let reading = ClockReading(now: now, uptime: .seconds(1_000), bootID: "boot", timeZone: zone)
            let german = TimeStyle.resolve(environment: ["LANG": "de_DE.UTF-8"], gnomeClockFormat: nil)
            let american = TimeStyle.resolve(environment: ["LANG": "en_US.UTF-8"], gnomeClockFormat: nil)
            #expect(LocalTimeFormat.string(for: now, at: reading, style: german) == "Sa 07:30")
            #expect(LocalTimeFormat.string(for: now, at: reading, style: american) == "Sat 7:30 AM")
            let later = now.addingTimeInterval(3 * 86_400 + 12 * 3_600)
            #expect(LocalTimeFormat.string(for: later, at: reading, style: american) == "Tue 7:30 PM")
            let farther = now.addingTimeInterval(10 * 86_400)
            #expect(LocalTimeFormat.string(for: farther, at: reading, style: german) == "08.12.2026 07:30")
            let reference = try? TranslationCatalogs.date(
                "%x %R", at: farther, locale: "de_DE.UTF-8", zone: "Europe/Berlin", locales: locales)
            #expect(LocalTimeFormat.string(for: farther, at: reading, style: german) == reference)
            #expect(LocalTimeFormat.string(for: farther, at: reading, style: american) == "12/08/2026 7:30 AM")
        }
    }

    @Test("Japanese, Korean and Finnish write the hour and minute with their own words and separators, AM/PM first where theirs is")
    func otherPatterns() async throws {
        // Made here, beside the others: the C library's own data for these languages.
        let locales = try TranslationCatalogs.localeFolder()
        try TranslationCatalogs.makeLocales(["ja_JP.UTF-8", "ko_KR.UTF-8", "fi_FI.UTF-8"], in: URL(fileURLWithPath: locales))
        await #expect(processExitsWith: .success) { [locales = locales as String] in
            setenv("LOCPATH", locales, 1)
            guard let japanese = TimeLocale(named: "ja_JP.UTF-8"), let korean = TimeLocale(named: "ko_KR.UTF-8"),
                let finnish = TimeLocale(named: "fi_FI.UTF-8")
            else {
                Issue.record("the made locales did not open")
                return
            }
            #expect(japanese.timeFormat == "%H時%M分%S秒")
            #expect(TimeStyle(twelveHour: false, locale: japanese).clockText(hour: 19, minute: 30) == "19時30分")
            #expect(TimeStyle(twelveHour: true, locale: japanese).clockText(hour: 19, minute: 30) == "午後7時30分")
            #expect(TimeStyle(twelveHour: true, locale: korean).clockText(hour: 7, minute: 5) == "오전 7시 05분")
            #expect(TimeStyle(twelveHour: false, locale: finnish).clockText(hour: 7, minute: 30) == "07.30")
        }
    }
}
