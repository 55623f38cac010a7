import AlarmModel
import FoundationEssentials

/// Writes how far away an instant is: `in 2h 5m`, `in 45s`, `in 3d 4h`, `now`, `5m ago`.
///
/// The two most significant units are shown, leaving out a zero unit (`in 2h`, not `in 2h 0m`);
/// the rest is dropped. A future instant counts up to the next whole second, as a countdown does,
/// so anything still to come is at least `in 1s`; a past one counts whole seconds passed, so
/// `now` covers the second after the instant.
package enum RelativeTimeFormat {
    /// How far `date` is from `now`.
    package static func string(for date: Date, relativeTo now: Date) -> String {
        string(forInterval: date.timeIntervalSince(now))
    }

    /// How far an instant `interval` seconds from now is (negative in the past).
    package static func string(forInterval interval: TimeInterval) -> String {
        guard !interval.isNaN else { return "now" }
        if interval > 0 {
            return "in " + DurationFormat.units(interval, maximumUnits: 2)
        }
        let passed = DurationFormat.wholeSeconds((-interval).rounded(.down))
        if passed == 0 { return "now" }
        return DurationFormat.units(wholeSeconds: passed, maximumUnits: 2) + " ago"
    }
}
