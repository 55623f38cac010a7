/// A length of time as a sentence or a label says it, in the person's language: `5 min`,
/// `1 h 30 min`, `2 d 14 h`, `45 s` (`5 Min.`, `1 Std. 30 Min.` in German).
///
/// The largest units first, units that are zero left out; `maximumUnits` keeps only that many
/// from the largest (the rest is dropped, not rounded).
package enum LengthText {
    /// `seconds` in the person's language.
    package static func text(seconds: Int64, maximumUnits: Int = 4) -> String {
        text(seconds: seconds, maximumUnits: maximumUnits, translate: Translation.text)
    }

    /// `text(seconds:maximumUnits:)` with the messages looked up by `translate` (the person's
    /// catalog, or another language's in tests).
    package static func text(seconds: Int64, maximumUnits: Int = 4, translate: (String) -> String) -> String {
        let total = max(0, seconds)
        let parts: [(Int64, String)] = [
            (total / 86_400, Translation.marked("%s d")), (total % 86_400 / 3_600, Translation.marked("%s h")),
            (total % 3_600 / 60, Translation.marked("%s min")), (total % 60, Translation.marked("%s s")),
        ]
        guard let first = parts.firstIndex(where: { $0.0 != 0 }) else {
            return MessageFormat.fill(translate(Translation.marked("%s s")), ["0"])
        }
        return parts[first..<min(parts.count, first + max(1, maximumUnits))].filter { $0.0 != 0 }
            .map { MessageFormat.fill(translate($0.1), [String($0.0)]) }.joined(separator: " ")
    }

    /// How far away an instant `interval` seconds ahead is, as a sentence says it: `in 14 h 50 min`,
    /// `in 45 s`; to the nearest minute from a minute on, and in at most two units.
    package static func fromNow(_ interval: Double) -> String {
        let seconds = interval.isFinite ? max(0, interval) : 0
        let whole = seconds < 60 ? Int64(seconds.rounded(.up)) : Int64((seconds / 60).rounded()) * 60
        return Translation.format("in %s", text(seconds: whole, maximumUnits: 2))
    }
}
