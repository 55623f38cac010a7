import FoundationEssentials

/// Writes a length of time the way the CLI shows it: `1h 30m 5s` or `01:30:05`.
///
/// Lengths are shown in whole seconds, rounded up, the way a countdown shows its time: 4.2 seconds
/// left is `5s`, and `0s` appears only when nothing is left. Negative and zero lengths and NaN
/// show as zero; lengths beyond about 31 million years, infinity included, are shown as that much. Both forms read
/// back with ``DurationInput/parse(_:)``.
public enum DurationFormat {
    /// The largest number of seconds shown.
    static let maximumSeconds: Int64 = 1_000_000_000_000_000

    /// The length in whole seconds, rounded up, clamped to `0...maximumSeconds`.
    public static func wholeSeconds(_ seconds: TimeInterval) -> Int64 {
        guard !seconds.isNaN, seconds > 0 else { return 0 }
        guard seconds < TimeInterval(maximumSeconds) else { return maximumSeconds }
        return Int64(seconds.rounded(.up))
    }

    /// The length in days, hours, minutes and seconds, leaving out units that are zero:
    /// `1h 30m 5s`, `2d 5s`, `45s`, `0s`.
    ///
    /// With `maximumUnits`, only that many units are considered, from the largest that is not zero,
    /// and the rest is dropped (not rounded): with 2, `2h 5m 59s` is `2h 5m` and `2h 0m 30s` is `2h`.
    public static func units(_ seconds: TimeInterval, maximumUnits: Int = 4) -> String {
        units(wholeSeconds: wholeSeconds(seconds), maximumUnits: maximumUnits)
    }

    /// `units(_:maximumUnits:)` for a count of whole seconds.
    package static func units(wholeSeconds total: Int64, maximumUnits: Int) -> String {
        let parts: [(Int64, String)] = [
            (total / 86_400, "d"), (total % 86_400 / 3_600, "h"), (total % 3_600 / 60, "m"), (total % 60, "s"),
        ]
        guard let first = parts.firstIndex(where: { $0.0 != 0 }) else { return "0s" }
        let shown = parts[first..<min(parts.count, first + max(1, maximumUnits))].filter { $0.0 != 0 }
        return shown.map { "\($0.0)\($0.1)" }.joined(separator: " ")
    }

    /// The length as a short countdown clock, hours only when there are any: `4:59`, `0:01`,
    /// `1:02:03`, as a notification shows the time left.
    public static func countdown(_ seconds: TimeInterval) -> String {
        let total = wholeSeconds(seconds)
        let (hours, minutes, rest) = (total / 3_600, total / 60 % 60, total % 60)
        return hours > 0
            ? "\(hours):\(GregorianDate.padded(minutes, 2)):\(GregorianDate.padded(rest, 2))"
            : "\(minutes):\(GregorianDate.padded(rest, 2))"
    }

    /// The length as hours, minutes and seconds, each with at least two digits: `01:30:05`,
    /// `00:00:45`, `26:00:00`.
    public static func clock(_ seconds: TimeInterval) -> String {
        let total = wholeSeconds(seconds)
        return "\(GregorianDate.padded(total / 3_600, 2)):\(GregorianDate.padded(total % 3_600 / 60, 2))"
            + ":\(GregorianDate.padded(total % 60, 2))"
    }
}
