import FoundationEssentials
import Localization
import AlarmModel

/// The snooze lengths a person chose for a ringing alarm's notification
/// (`reveilled --snooze-choices 5m,10m,15m`): each becomes one more action, `snooze-<seconds>`
/// ("Snooze 5 min"), after Stop and Snooze, on servers that show that many actions.
///
/// Lengths are whole seconds, more than zero and at most `longest` (12 hours), at most
/// `maximumCount` of them, in the order given, each once. An action key names its length, but a
/// key is only ever read back against these choices (`seconds(forActionKey:)`): a key for any
/// other length is no answer, so a notification can never snooze an alarm for a length nobody chose.
package struct SnoozeChoices: Hashable, Sendable {
    /// The most choices: with Stop and Snooze, seven actions, which still fit a context menu or a
    /// row of buttons.
    package static let maximumCount = 5
    /// The longest choice, in seconds: 12 hours.
    package static let longest = 12 * 3_600
    /// What an action key starts with; the length in seconds follows (`snooze-300`).
    package static let actionKeyPrefix = "snooze-"

    /// No choices: the alert offers Stop and Snooze only.
    package static let none = SnoozeChoices(checked: [])

    /// The lengths in seconds, in the order given, each once.
    package let seconds: [Int]

    /// Whether there are none.
    package var isEmpty: Bool { seconds.isEmpty }

    private init(checked: [Int]) { seconds = checked }

    /// Lengths in seconds; duplicates are dropped (the first kept). Throws for a length that is not
    /// more than zero or is over 12 hours, and for more than five different lengths.
    package init(seconds: [Int]) throws(SnoozeChoiceError) {
        var kept: [Int] = []
        for length in seconds {
            let item = "\(length)"
            guard length > 0 else { throw SnoozeChoiceError(item: item, reason: "it must be longer than zero") }
            guard length <= Self.longest else { throw SnoozeChoiceError(item: item, reason: "it must be at most 12 hours") }
            if !kept.contains(length) { kept.append(length) }
        }
        guard kept.count <= Self.maximumCount else {
            throw SnoozeChoiceError(
                item: nil, reason: "give at most \(Self.maximumCount) different lengths (there are \(kept.count))")
        }
        self.init(checked: kept)
    }

    /// Reads a comma-separated list such as `5m,10m,15m` or `300, 90s, 1h30m`.
    ///
    /// Each item is a number of seconds (`300`) or whole numbers with the units `h`, `m` and `s`,
    /// largest first, each at most once (`90s`, `5m`, `1h`, `1h30m`); spaces around an item are
    /// left out. Text that is only spaces is no choices. A bad item is named in the error.
    package init(parsing text: String) throws(SnoozeChoiceError) {
        guard !text.allSatisfy(\.isWhitespace) else {
            self = .none
            return
        }
        var lengths: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            lengths.append(try Self.length(String(part)))
        }
        try self.init(seconds: lengths)
    }

    /// One item of the list, in seconds.
    static func length(_ part: String) throws(SnoozeChoiceError) -> Int {
        let item = part.trimmingWhitespace(newlines: false)
        guard !item.isEmpty else {
            throw SnoozeChoiceError(item: item, reason: "an item is empty (two commas in a row, or one at an end)")
        }
        let bad = SnoozeChoiceError(item: item, reason: "give seconds (300) or a length such as 90s, 5m, 1h or 1h30m")
        var total = 0
        var number = ""
        var lastUnitRank = Int.max
        for character in item {
            if character.isASCII, character.isNumber {
                number.append(character)
                // Past any limit already: stop counting before the number overflows.
                guard number.count <= 9 else {
                    throw SnoozeChoiceError(item: item, reason: "it must be at most 12 hours")
                }
                continue
            }
            let unit: (rank: Int, seconds: Int)
            switch character {
            case "h", "H": unit = (2, 3_600)
            case "m", "M": unit = (1, 60)
            case "s", "S": unit = (0, 1)
            default: throw bad
            }
            guard let value = Int(number), unit.rank < lastUnitRank else { throw bad }
            total += value * unit.seconds
            lastUnitRank = unit.rank
            number = ""
        }
        if !number.isEmpty {
            // Only a whole item may be a bare number of seconds (`300`, not `1m30`).
            guard lastUnitRank == Int.max, let value = Int(number) else { throw bad }
            total = value
        }
        guard total > 0 else { throw SnoozeChoiceError(item: item, reason: "it must be longer than zero") }
        guard total <= longest else { throw SnoozeChoiceError(item: item, reason: "it must be at most 12 hours") }
        return total
    }

    /// The action key of a length: `snooze-300`.
    package static func actionKey(seconds: Int) -> String { actionKeyPrefix + String(seconds) }

    /// The length an action key names, when it is exactly the key of one of these choices
    /// (`snooze-300` with 5 minutes among them); `nil` for any other key, including `snooze-0300`
    /// and the key of a length not chosen.
    package func seconds(forActionKey key: String) -> Int? {
        seconds.first { Self.actionKey(seconds: $0) == key }
    }

    /// The actions, in order: `snooze-<seconds>` labelled "Snooze 5 min" in the person's language.
    package var actions: [NotificationContent.Action] {
        seconds.map { NotificationContent.Action(key: Self.actionKey(seconds: $0), label: Self.label(seconds: $0)) }
    }

    /// "Snooze 5 min", "Snooze 1 h 30 min", "Snooze 1 min 30 s" in the person's language.
    package static func label(seconds: Int) -> String { label(seconds: seconds, translate: Translation.text) }

    /// A length as a short label reads it, largest unit first, zero units left out: "5 min",
    /// "1 h 30 min", "1 min 30 s", in the person's language.
    package static func lengthText(seconds: Int) -> String { lengthText(seconds: seconds, translate: Translation.text) }

    /// `label(seconds:)` with the messages looked up by `translate` (the person's catalog, or
    /// another language's in tests).
    static func label(seconds: Int, translate: (String) -> String) -> String {
        MessageFormat.fill(translate(Translation.marked("Snooze %s")), [lengthText(seconds: seconds, translate: translate)])
    }

    /// `lengthText(seconds:)` with the messages looked up by `translate`.
    static func lengthText(seconds: Int, translate: (String) -> String) -> String {
        LengthText.text(seconds: Int64(seconds), translate: translate)
    }
}

/// A snooze choice that cannot be used: the item, and why.
package struct SnoozeChoiceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bad item as written, or `nil` when the list as a whole is wrong (too many).
    package var item: String?
    /// Why, as a person reads it.
    package var reason: String

    /// An error for `item`.
    package init(item: String?, reason: String) {
        self.item = item
        self.reason = reason
    }

    /// "“5x”: give seconds (300) or …"; the reason alone when there is no item to name.
    package var description: String {
        guard let item, !item.isEmpty else { return reason }
        return "“\(item)”: \(reason)"
    }
}
