import Foundation

/// How the person reads clock times and dates: a 12- or 24-hour clock, and the language of day
/// and month names.
///
/// `standard` is the text that depends on no locale (the C locale's): `07:30`, English weekday
/// abbreviations, ISO dates. A person's style comes from `resolve(environment:gnomeClockFormat:)`:
/// the names from `LC_TIME` (through `LC_ALL`, `LC_TIME`, `LANG`), the clock from GNOME's
/// `clock-format` where it speaks for the person, otherwise from that locale's own convention.
public struct TimeStyle: Hashable, Sendable {
    /// Whether times are written on a 12-hour clock with AM and PM.
    public let twelveHour: Bool
    /// The locale whose names and patterns are used; `nil`: the C locale.
    public let locale: Locale?
    /// How the locale writes a time of day on the chosen clock (worked out once).
    private let clock: ClockPattern
    /// The weekdays' short names, Sunday first (worked out once).
    private let weekdayNames: [String]

    /// The C locale's style: 24-hour `07:30`, `Sat`, `2026-12-01`.
    public static let standard = TimeStyle(twelveHour: false, locale: nil)

    /// Creates a style, reading the locale's patterns and names once.
    public init(twelveHour: Bool, locale: Locale?) {
        self.twelveHour = twelveHour
        self.locale = locale
        clock = ClockPattern(twelveHour: twelveHour, locale: locale)
        if let locale {
            var calendar = Calendar(identifier: .gregorian)
            calendar.locale = locale
            weekdayNames = calendar.shortWeekdaySymbols.map(Self.plainSpaces)
        } else {
            weekdayNames = Locale.Weekday.sundayFirst.map { day in
                let name = day.englishName
                return name.prefix(1).uppercased() + name.dropFirst().prefix(2)
            }
        }
    }

    // MARK: Where it comes from

    /// The locale a POSIX locale name stands for (`de_DE.UTF-8`, `pt_BR.utf8@x`, `fr`), or `nil`
    /// for the C locale (`C`, `POSIX`, `C.UTF-8`) and an empty or missing name.
    public static func locale(posixName name: String?) -> Locale? {
        guard let name, !name.isEmpty else { return nil }
        let base = name.split(separator: "@", maxSplits: 1).first.map(String.init) ?? name
        let language = base.split(separator: ".", maxSplits: 1).first.map(String.init) ?? base
        guard !language.isEmpty, language != "C", language != "POSIX" else { return nil }
        return Locale(identifier: language)
    }

    /// The `LC_TIME` locale name in `environment`: `LC_ALL`, else `LC_TIME`, else `LANG`, as
    /// `setlocale` reads them.
    public static func timeLocaleName(in environment: [String: String]) -> String? {
        for variable in ["LC_ALL", "LC_TIME", "LANG"] {
            if let value = environment[variable], !value.isEmpty { return value }
        }
        return nil
    }

    /// The person's style: names from the `LC_TIME` locale; the clock from `gnomeClockFormat`
    /// (`12h` or `24h`, GNOME's `org.gnome.desktop.interface clock-format`, passed only where it
    /// speaks for the person), otherwise from the locale's own convention (the C locale: 24-hour).
    public static func resolve(environment: [String: String], gnomeClockFormat: String?) -> TimeStyle {
        let locale = locale(posixName: timeLocaleName(in: environment))
        let twelveHour: Bool
        switch gnomeClockFormat {
        case "12h": twelveHour = true
        case "24h": twelveHour = false
        default: twelveHour = locale.map(usesTwelveHourClock) ?? false
        }
        return TimeStyle(twelveHour: twelveHour, locale: locale)
    }

    /// Whether `locale` writes times on a 12-hour clock (its hour cycle is 1–12 or 0–11).
    public static func usesTwelveHourClock(_ locale: Locale) -> Bool {
        switch locale.hourCycle {
        case .oneToTwelve, .zeroToEleven: true
        case .zeroToTwentyThree, .oneToTwentyFour: false
        @unknown default: false
        }
    }

    // MARK: Text

    /// A time of day: `07:30` or `7:30 AM` (C locale), `07:30` (German), `7:30 AM` (US English),
    /// by the locale's own pattern for the chosen clock.
    public func clockText(hour: Int, minute: Int) -> String {
        let pattern = clock
        let hourValue = twelveHour ? (hour % 12 == 0 ? 12 : hour % 12) : hour
        let hourText = pattern.paddedHour ? GregorianDate.padded(Int64(hourValue), 2) : String(hourValue)
        let time = hourText + pattern.separator + GregorianDate.padded(Int64(minute), 2)
        guard twelveHour else { return time }
        let marker = hour < 12 ? pattern.am : pattern.pm
        return pattern.markerFirst ? marker + " " + time : time + " " + marker
    }

    /// A weekday's short name: `Sat` (C locale), `Sa.` (German).
    public func weekdayText(_ weekday: Locale.Weekday) -> String {
        let index = weekday.gregorianNumber - 1
        return weekdayNames.indices.contains(index) ? weekdayNames[index] : weekday.englishName
    }

    /// A date: `2026-12-01` (C locale), `1. Dez. 2026` (German), `Dec 1, 2026` (US English).
    public func dateText(year: Int64, month: Int64, day: Int64) -> String {
        let date = GregorianDate(year: year, month: month, day: day)
        guard let locale, (1...9_999).contains(year) else { return date.iso }
        let instant = Date(timeIntervalSince1970: TimeInterval(date.daysSinceEpoch) * 86_400 + 43_200)
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = DateFormatter.dateFormat(fromTemplate: "yMMMd", options: 0, locale: locale) ?? "yyyy-MM-dd"
        return Self.plainSpaces(formatter.string(from: instant))
    }

    /// Text with the narrow and ordinary no-break spaces ICU puts in patterns (`7:30\u{202F}AM`)
    /// made plain spaces, which every terminal font and notification server draws alike.
    static func plainSpaces(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\u{202F}" || $0 == "\u{00A0}" ? " " : $0 }))
    }

    /// The parts of the locale's time pattern a time of day is written with.
    private struct ClockPattern: Hashable, Sendable {
        var paddedHour: Bool
        var separator: String
        var am: String
        var pm: String
        var markerFirst: Bool

        init(twelveHour: Bool, locale: Locale?) {
            guard let locale else {
                (paddedHour, separator, am, pm, markerFirst) = (!twelveHour, ":", "AM", "PM", false)
                return
            }
            let template = twelveHour ? "hmma" : "HHmm"
            let pattern = DateFormatter.dateFormat(fromTemplate: template, options: 0, locale: locale) ?? (twelveHour ? "h:mm a" : "HH:mm")
            // The pattern's fields and literals ('h' in quotes is text, as in French "HH 'h' mm").
            var fields: [(symbol: Character?, text: String)] = []
            var quoted = false
            var characters = Array(pattern)[...]
            while let character = characters.popFirst() {
                if character == "'" {
                    if characters.first == "'" {
                        characters.removeFirst()
                        fields.append((nil, "'"))
                    } else {
                        quoted.toggle()
                    }
                } else if !quoted, character.isLetter {
                    if let last = fields.last, last.symbol == character {
                        fields[fields.count - 1].text.append(character)
                    } else {
                        fields.append((character, String(character)))
                    }
                } else {
                    fields.append((nil, String(character)))
                }
            }
            let hourIndex = fields.firstIndex { "hHkK".contains($0.symbol ?? " ") }
            let minuteIndex = fields.firstIndex { $0.symbol == "m" }
            let markerIndex = fields.firstIndex { "abB".contains($0.symbol ?? " ") }
            paddedHour = hourIndex.map { fields[$0].text.count >= 2 } ?? !twelveHour
            if let hourIndex, let minuteIndex, hourIndex < minuteIndex {
                let between = fields[(hourIndex + 1)..<minuteIndex].map(\.text).joined()
                separator = between.isEmpty ? ":" : between
            } else {
                separator = ":"
            }
            markerFirst = markerIndex.map { marker in hourIndex.map { marker < $0 } ?? false } ?? false
            var calendar = Calendar(identifier: .gregorian)
            calendar.locale = locale
            am = TimeStyle.plainSpaces(calendar.amSymbol)
            pm = TimeStyle.plainSpaces(calendar.pmSymbol)
        }
    }
}
