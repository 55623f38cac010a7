import FoundationEssentials

/// How the person reads clock times and dates: a 12- or 24-hour clock, and the language of day
/// names and dates.
///
/// `standard` is the text that depends on no locale (the C locale's): `07:30`, English weekday
/// abbreviations, ISO dates. A person's style comes from `resolve(environment:gnomeClockFormat:)`:
/// the names and patterns from the C library's `LC_TIME` locale (through `LC_ALL`, `LC_TIME`,
/// `LANG`), as `date` and the desktop read them; the clock from GNOME's `clock-format` where it
/// speaks for the person, otherwise from that locale's own time pattern.
public struct TimeStyle: Hashable, Sendable {
    /// Whether times are written on a 12-hour clock with AM and PM.
    public let twelveHour: Bool
    /// The locale whose names and patterns are used; `nil`: the C locale.
    public let locale: TimeLocale?
    /// How the locale writes a time of day on the chosen clock (worked out once).
    private let clock: ClockPattern

    /// The C locale's style: 24-hour `07:30`, `Sat`, `2026-12-01`.
    public static let standard = TimeStyle(twelveHour: false, locale: nil)

    /// Creates a style, reading the locale's patterns once.
    public init(twelveHour: Bool, locale: TimeLocale?) {
        self.twelveHour = twelveHour
        self.locale = locale
        clock = ClockPattern(twelveHour: twelveHour, locale: locale)
    }

    /// Styles are the same when their clocks and locale names are.
    public static func == (left: TimeStyle, right: TimeStyle) -> Bool {
        left.twelveHour == right.twelveHour && left.locale?.name == right.locale?.name
    }

    /// Hashes the clock and the locale's name.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(twelveHour)
        hasher.combine(locale?.name)
    }

    // MARK: Where it comes from

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
    /// speaks for the person), otherwise from the locale's own time pattern (the C locale: 24-hour).
    public static func resolve(environment: [String: String], gnomeClockFormat: String?) -> TimeStyle {
        let locale = TimeLocale(named: timeLocaleName(in: environment))
        let twelveHour: Bool
        switch gnomeClockFormat {
        case "12h": twelveHour = true
        case "24h": twelveHour = false
        default: twelveHour = locale?.usesTwelveHourClock ?? false
        }
        return TimeStyle(twelveHour: twelveHour, locale: locale)
    }

    // MARK: Text

    /// A time of day: `07:30` or `7:30 AM` (C locale), `07:30` (German), `7:30 AM` (US English),
    /// `19時30分` (Japanese), by the locale's own pattern for the chosen clock.
    public func clockText(hour: Int, minute: Int) -> String {
        let pattern = clock
        let hourValue = twelveHour ? (hour % 12 == 0 ? 12 : hour % 12) : hour
        let hourText = pattern.paddedHour ? GregorianDate.padded(Int64(hourValue), 2) : String(hourValue)
        let time = hourText + pattern.separator + GregorianDate.padded(Int64(minute), 2) + pattern.minuteSuffix
        guard twelveHour else { return time }
        let marker = hour < 12 ? pattern.am : pattern.pm
        return pattern.markerFirst ? marker + pattern.markerSpace + time : time + pattern.markerSpace + marker
    }

    /// A weekday's short name: `Sat` (C locale), `Sa` (German), `sam.` (French).
    public func weekdayText(_ weekday: Locale.Weekday) -> String {
        let index = weekday.gregorianNumber - 1
        guard let names = locale?.weekdayAbbreviations, names.indices.contains(index), !names[index].isEmpty else {
            let name = weekday.englishName
            return name.prefix(1).uppercased() + name.dropFirst().prefix(2)
        }
        return names[index]
    }

    /// A date: `2026-12-01` (C locale); in a locale, its own date pattern (`%x`): `01.12.2026`
    /// (German), `12/01/2026` (US English).
    public func dateText(year: Int64, month: Int64, day: Int64) -> String {
        let date = GregorianDate(year: year, month: month, day: day)
        guard let locale, (1...9_999).contains(year), let text = locale.dateText(year: year, month: month, day: day) else {
            return date.iso
        }
        return text
    }

    /// The parts of the locale's time pattern a time of day is written with.
    private struct ClockPattern: Hashable, Sendable {
        var paddedHour: Bool
        var separator: String
        var minuteSuffix: String
        var am: String
        var pm: String
        var markerFirst: Bool
        var markerSpace: String

        init(twelveHour: Bool, locale: TimeLocale?) {
            // The C locale's, and the fallback: `%H:%M`, and `%l:%M %p` (GNOME's 12-hour clock).
            (paddedHour, separator, minuteSuffix, markerFirst, markerSpace) = (!twelveHour, ":", "", false, " ")
            (am, pm) = ("AM", "PM")
            guard let locale else { return }
            // A locale with no words for AM and PM (German) keeps the C locale's: a 12-hour time
            // without them would not say which half of the day it is.
            if !locale.am.isEmpty && !locale.pm.isEmpty { (am, pm) = (locale.am, locale.pm) }
            // The pattern for the chosen clock; one with the other clock's hour (US English's `%r`
            // when 24 hours were chosen) leaves the fallback.
            let fields = Self.fields(of: twelveHour ? locale.twelveHourTimeFormat : locale.timeFormat)
            let hours: String = twelveHour ? "Il" : "Hk"
            guard let hourIndex = fields.firstIndex(where: { hours.contains($0.conversion ?? " ") }),
                let minuteIndex = fields.firstIndex(where: { $0.conversion == "M" }), hourIndex < minuteIndex
            else { return }
            // 24-hour: padded as the pattern pads (`%H`); 12-hour: never, as the desktop's clocks show it.
            paddedHour = !twelveHour && fields[hourIndex].conversion == "H"
            let between = fields[(hourIndex + 1)..<minuteIndex].map(\.text).joined()
            separator = between.isEmpty ? ":" : between
            // Text after the minutes that is not the separator again (`分` in `%H時%M分%S秒`).
            let after = fields[(minuteIndex + 1)...].prefix { $0.conversion == nil }.map(\.text).joined()
            minuteSuffix = after.trimmingWhitespace() == separator.trimmingWhitespace() ? "" : after.trimmingWhitespace()
            guard twelveHour, let markerIndex = fields.firstIndex(where: { $0.conversion == "p" || $0.conversion == "P" }) else { return }
            markerFirst = markerIndex < hourIndex
            // The space the pattern puts between the marker and the time (none in Japanese).
            let beside = markerFirst ? fields[markerIndex + 1] : fields[markerIndex - 1]
            markerSpace = beside.conversion == nil && beside.text.allSatisfy(\.isWhitespace) ? beside.text : markerFirst ? "" : " "
        }

        /// A `strftime` pattern as conversions (`%H`; flags and `E`/`O` modifiers dropped; `%T`
        /// and `%R` spelled out) and the literal text between them.
        static func fields(of format: String) -> [(conversion: Character?, text: String)] {
            var fields: [(conversion: Character?, text: String)] = []
            var characters = Array(format)[...]
            while let character = characters.popFirst() {
                guard character == "%", var conversion = characters.popFirst() else {
                    if let last = fields.last, last.conversion == nil {
                        fields[fields.count - 1].text.append(character)
                    } else {
                        fields.append((nil, String(character)))
                    }
                    continue
                }
                while "_-0^#EO".contains(conversion) || conversion.isNumber, let next = characters.popFirst() { conversion = next }
                switch conversion {
                case "T": fields += [("H", "%H"), (nil, ":"), ("M", "%M"), (nil, ":"), ("S", "%S")]
                case "R": fields += [("H", "%H"), (nil, ":"), ("M", "%M")]
                case "%": fields.append((nil, "%"))
                default: fields.append((conversion, "%" + String(conversion)))
                }
            }
            return fields
        }
    }
}
