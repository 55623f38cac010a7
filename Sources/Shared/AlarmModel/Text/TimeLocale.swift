import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A person's `LC_TIME` locale as the C library has it (`newlocale(3)`): its day names, its
/// AM and PM, and its time and date patterns (`nl_langinfo(3)`), which `date`, GLib and the
/// desktop's clocks read too.
///
/// Only a locale the system has made (`locale -a`, or under `LOCPATH`) can be opened; a name it
/// cannot load is the C locale, as for every other program.
public final class TimeLocale: Sendable {
    /// The locale's name, as given (`de_DE.UTF-8`).
    public let name: String
    /// The weekdays' abbreviations, Sunday first (`ABDAY_1`…`ABDAY_7`: `So`…`Sa`).
    public let weekdayAbbreviations: [String]
    /// The words for before and after noon (`AM_STR`, `PM_STR`; empty in many locales).
    public let am: String
    public let pm: String
    /// The time pattern (`T_FMT`, `%T` for German), `%r` replaced by the 12-hour pattern.
    public let timeFormat: String
    /// The 12-hour time pattern (`T_FMT_AMPM`, `%I:%M:%S %p` for US English; empty in many locales).
    public let twelveHourTimeFormat: String
    /// The date pattern (`D_FMT`: `%d.%m.%Y` for German, `%m/%d/%Y` for US English).
    public let dateFormat: String
    /// The C library's locale object, for `strftime_l`; freed with this object. Never changed
    /// after `newlocale` made it, and `strftime_l` only reads it, so it may be used from any thread.
    private nonisolated(unsafe) let handle: locale_t

    /// Opens the `LC_TIME` locale named `name` (`de_DE.UTF-8`, `pt_BR.utf8@x`, a path); `nil` for
    /// the C locale (`C`, `POSIX`, `C.UTF-8`, an empty or missing name) and for a locale the system
    /// cannot load.
    public init?(named name: String?) {
        guard let name, !name.isEmpty, !Self.isCLocale(name), let handle = newlocale(LC_TIME_MASK, name, nil) else { return nil }
        self.name = name
        self.handle = handle
        func info(_ item: nl_item) -> String {
            nl_langinfo_l(item, handle).map { String(cString: $0) } ?? ""
        }
        weekdayAbbreviations = (0..<7).map { info(nl_item(ABDAY_1 + $0)) }
        am = info(nl_item(AM_STR))
        pm = info(nl_item(PM_STR))
        twelveHourTimeFormat = info(nl_item(T_FMT_AMPM))
        timeFormat = info(nl_item(T_FMT)).replacing("%r", with: twelveHourTimeFormat)
        dateFormat = info(nl_item(D_FMT))
    }

    deinit {
        freelocale(handle)
    }

    /// Whether `name` is the C locale: `C`, `POSIX`, or `C` with a codeset or modifier (`C.UTF-8`).
    static func isCLocale(_ name: String) -> Bool {
        let language = name.prefix { $0 != "." && $0 != "@" }
        return language == "C" || language == "POSIX"
    }

    /// Whether the locale writes times on a 12-hour clock: its time pattern has a 12-hour hour
    /// (`%I`, `%l`) or an AM/PM (`%p`, `%P`), as US English's `%r` does.
    public var usesTwelveHourClock: Bool {
        ["%I", "%l", "%p", "%P"].contains { timeFormat.contains($0) }
    }

    /// A date written by the locale's date pattern (`strftime(3)`'s `%x`): `08.12.2026` (German),
    /// `12/08/2026` (US English). `nil` when the pattern gives nothing.
    public func dateText(year: Int64, month: Int64, day: Int64) -> String? {
        guard let year = Int32(exactly: year - 1_900), let month = Int32(exactly: month - 1), let day = Int32(exactly: day) else {
            return nil
        }
        var parts = tm()
        parts.tm_year = year
        parts.tm_mon = month
        parts.tm_mday = day
        parts.tm_hour = 12
        // The weekday and day of the year, for patterns that name them (`%a`, `%j`).
        let days = GregorianDate(year: Int64(year) + 1_900, month: Int64(month) + 1, day: Int64(day)).daysSinceEpoch
        parts.tm_wday = Int32((days + 4).floorModulo(7))
        parts.tm_yday = Int32(days - GregorianDate(year: Int64(year) + 1_900, month: 1, day: 1).daysSinceEpoch)
        var buffer = [CChar](repeating: 0, count: 256)
        let count = strftime_l(&buffer, buffer.count, "%x", &parts, handle)
        guard count > 0 else { return nil }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
