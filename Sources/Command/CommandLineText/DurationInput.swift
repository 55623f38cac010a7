import AlarmModel
import FoundationEssentials
import Localization

/// Reads DUR as a person types it (`90s`, `5m`, `1h30m`, `00:05:00`).
///
/// Accepted forms, after surrounding white space is removed:
///
/// - Numbers with units, largest unit first, each unit at most once: `90s`, `5m`, `2h`, `1d`,
///   `1h30m`, `1d 2h 3m 4s`. Spaces may separate the parts and a number from its unit
///   (`1h 30m`, `5 min`). Units, in any case: `d` `day` `days`; `h` `hr` `hrs` `hour` `hours`;
///   `m` `min` `mins` `minute` `minutes`; `s` `sec` `secs` `second` `seconds`.
/// - A clock-style length: `MM:SS` (`05:00` is five minutes) or `HH:MM:SS` (`00:05:00`, `1:30:00`);
///   the first field may be any size (`90:00`), the others have two digits and are at most 59.
///
/// Any number may have a decimal fraction with a dot (`1.5h`, `0.5s`, `00:00:05.5`); the result is
/// not rounded. A number without a unit (`90`) is refused with a hint, so that `90` is never
/// silently read as seconds or minutes; only zero needs none (`0` is `0s`). The result is more
/// than zero (or zero, where the caller allows it: `0`, `0s`, `0m` and `00:00` alike) and at most
/// 366 days (a countdown's limit, ``AlarmDefinition/maximumDuration``). Only ASCII digits are read.
package enum DurationInput {
    /// The longest text considered, in UTF-8 bytes; anything longer is no duration.
    static let maximumLength = 100

    /// A unit's rank (larger units rank higher) and its length in seconds.
    private static let units: [String: (rank: Int, seconds: TimeInterval)] = {
        var table: [String: (rank: Int, seconds: TimeInterval)] = [:]
        for name in ["d", "day", "days"] { table[name] = (3, 86_400) }
        for name in ["h", "hr", "hrs", "hour", "hours"] { table[name] = (2, 3_600) }
        for name in ["m", "min", "mins", "minute", "minutes"] { table[name] = (1, 60) }
        for name in ["s", "sec", "secs", "second", "seconds"] { table[name] = (0, 1) }
        return table
    }()

    /// Reads a duration, in seconds; zero is refused unless `allowingZero`.
    package static func parse(_ text: String, allowingZero: Bool = false) throws(InputError) -> TimeInterval {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw .empty(.duration) }
        guard trimmed.utf8.count <= maximumLength else { throw .unrecognized(.duration, trimmed) }
        var scanner = ASCIIScanner(Substring(trimmed))
        let seconds: TimeInterval
        if scanner.bytes.contains(UInt8(ascii: ":")) {
            seconds = try clockLength(&scanner, text: trimmed)
        } else {
            seconds = try unitLength(&scanner, text: trimmed)
        }
        guard seconds > 0 || (allowingZero && seconds == 0) else {
            throw .invalid(.duration, trimmed, reason: Translation.text("it must be longer than zero"))
        }
        guard seconds <= AlarmDefinition.maximumDuration else {
            throw .invalid(.duration, trimmed, reason: Translation.text("it must be at most 366 days"))
        }
        return seconds
    }

    /// Reads a number with an optional fraction; its value in units, or infinity when it has more
    /// than 12 whole digits (past any limit, and kept away from floating-point surprises).
    private static func number(_ scanner: inout ASCIIScanner, text: String) throws(InputError) -> (String, Double)? {
        guard let whole = scanner.digits() else { return nil }
        var written = whole.text
        if scanner.consume(UInt8(ascii: ".")) {
            guard let fraction = scanner.digits() else { throw .unrecognized(.duration, text) }
            written += "." + fraction.text
        }
        let significant = whole.bytes.drop { $0 == UInt8(ascii: "0") }.count
        guard significant <= 12 else { return (written, .infinity) }
        return (written, Double(written) ?? .infinity)
    }

    /// Reads `1h30m`-style lengths.
    private static func unitLength(_ scanner: inout ASCIIScanner, text: String) throws(InputError) -> TimeInterval {
        var total: TimeInterval = 0
        var previousRank = Int.max
        while true {
            scanner.skipSpaces()
            if scanner.isAtEnd { break }
            guard let (written, value) = try number(&scanner, text: text) else {
                throw .unrecognized(.duration, text)
            }
            scanner.skipSpaces()
            let unitName = scanner.letters()
            if unitName.isEmpty {
                guard scanner.isAtEnd else { throw .unrecognized(.duration, text) }
                // Zero is zero in any unit: `0` alone needs none.
                if value == 0, total == 0, previousRank == .max { break }
                throw .missingUnit(text, number: written)
            }
            guard let unit = units[unitName] else {
                throw .invalid(.duration, text, reason: Translation.format("%s is not a unit: use d, h, m or s", "\"" + unitName + "\""))
            }
            guard unit.rank < previousRank else {
                throw .invalid(.duration, text, reason: Translation.text("give each unit once, largest first, as in 1h30m"))
            }
            previousRank = unit.rank
            total += value * unit.seconds
        }
        return total
    }

    /// Reads `MM:SS` and `HH:MM:SS` lengths.
    private static func clockLength(_ scanner: inout ASCIIScanner, text: String) throws(InputError) -> TimeInterval {
        guard let first = scanner.digits() else { throw .unrecognized(.duration, text) }
        var fields: [ASCIIScanner.Digits] = [first]
        while scanner.consume(UInt8(ascii: ":")) {
            guard let field = scanner.digits() else { throw .unrecognized(.duration, text) }
            fields.append(field)
        }
        var fraction: TimeInterval = 0
        if scanner.consume(UInt8(ascii: ".")) {
            guard let digits = scanner.digits() else { throw .unrecognized(.duration, text) }
            fraction = Double("0." + digits.text.prefix(18)) ?? 0
        }
        guard scanner.isAtEnd, fields.count == 2 || fields.count == 3 else { throw .unrecognized(.duration, text) }
        // The fields after the first: it may be any size.
        let names: [ClockField] = fields.count == 3 ? [.minutes, .seconds] : [.seconds]
        for (field, name) in zip(fields.dropFirst(), names) {
            guard field.count == 2 else {
                throw .invalid(.duration, text, reason: name.twoDigits)
            }
            guard field.value(limit: 59) != nil else {
                throw .invalid(.duration, text, reason: name.range)
            }
        }
        guard first.bytes.drop(while: { $0 == UInt8(ascii: "0") }).count <= 12 else { return .infinity }
        var total: TimeInterval = 0
        for field in fields {
            total = total * 60 + TimeInterval(field.value(limit: 999_999_999_999) ?? 0)
        }
        return total + fraction
    }

    /// A field of a clock-style length, for its messages.
    private enum ClockField {
        case minutes, seconds

        /// "the minutes must have two digits, as in 1:05:09".
        var twoDigits: String {
            switch self {
            case .minutes: Translation.text("the minutes must have two digits, as in 1:05:09")
            case .seconds: Translation.text("the seconds must have two digits, as in 1:05:09")
            }
        }

        /// "the minutes must be 0 to 59".
        var range: String {
            switch self {
            case .minutes: Translation.text("the minutes must be 0 to 59")
            case .seconds: Translation.text("the seconds must be 0 to 59")
            }
        }
    }
}
