import AlarmModel
import FoundationEssentials

/// Why a piece of text a person typed (a time, days, a duration, an alarm id) was not accepted.
///
/// Each case keeps the text as it was given (trimmed of surrounding white space); `description`
/// is a sentence for a person that names the bad part, such as
/// `invalid time "25:00": the hour must be 0 to 23`. In descriptions the quoted text is cut to
/// ``quotedLengthLimit`` characters (and twice as many Unicode scalars, as one character can hold
/// any number of combining marks), and control, separator and unassigned scalars are escaped
/// (`\n`, `\u{1B}`), so a message stays short and can never steer a terminal.
package enum InputError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nothing was given where a value was needed.
    case empty(InputField)
    /// The text is in none of the field's accepted forms.
    case unrecognized(InputField, String)
    /// The text has an accepted form, but a part of it is wrong; `reason` names the part, as in
    /// "the hour must be 0 to 23".
    case invalid(InputField, String, reason: String)
    /// An entry of a list of days is not a day: the entry as typed.
    case unknownDay(String)
    /// A list of days has an empty entry, as in `mon,,tue`: the whole list.
    case missingDay(String)
    /// A number in a duration has no unit: the whole duration and the number.
    case missingUnit(String, number: String)
    /// No alarm's id matches the text.
    case noMatchingAlarm(String)
    /// The text is a prefix of more than one alarm's id: the text and every matching id.
    case ambiguousID(String, matches: [UUID])

    /// The longest stretch of typed text a description quotes, in characters.
    package static let quotedLengthLimit = 40

    /// The field the error is about.
    package var field: InputField {
        switch self {
        case .empty(let field), .unrecognized(let field, _), .invalid(let field, _, _): field
        case .unknownDay, .missingDay: .days
        case .missingUnit: .duration
        case .noMatchingAlarm, .ambiguousID: .alarmID
        }
    }

    /// A sentence for a person, naming the bad part.
    package var description: String {
        switch self {
        case .empty(let field):
            "no \(field.noun) given: \(field.hint)"
        case .unrecognized(let field, let text):
            "invalid \(field.noun) \(Self.quoted(text)): \(field.hint)"
        case .invalid(let field, let text, let reason):
            "invalid \(field.noun) \(Self.quoted(text)): \(reason)"
        case .unknownDay(let text):
            "unknown day \(Self.quoted(text)): \(InputField.days.hint)"
        case .missingDay(let text):
            "invalid days \(Self.quoted(text)): a day is missing between commas"
        case .missingUnit(let text, let number):
            if text == number {
                "\(Self.quoted(number)) needs a unit: \(Self.unitExamples(number))"
            } else {
                "invalid duration \(Self.quoted(text)): \(Self.quoted(number)) needs a unit: \(Self.unitExamples(number))"
            }
        case .noMatchingAlarm(let text):
            "no alarm matches the id \(Self.quoted(text))"
        case .ambiguousID(let text, let matches):
            "the id \(Self.quoted(text)) is ambiguous: \(matches.count) alarms match "
                + "(\(Self.shortList(matches))); type more of it"
        }
    }

    /// `90s, 90m or 90h` for a short number, `s, m or h` for a long one.
    private static func unitExamples(_ number: String) -> String {
        number.count <= 12 ? "\(number)s, \(number)m or \(number)h" : "s, m or h"
    }

    /// Up to five matching ids, as short as keeps them apart but at least 8 characters.
    private static func shortList(_ ids: [UUID]) -> String {
        let full = ids.map { $0.lowercasedText() }.sorted()
        let shown = Array(full.prefix(5))
        var length = 8
        while length < 36, Set(shown.map { $0.prefix(length) }).count < shown.count { length += 1 }
        var list = shown.map { String($0.prefix(length)) }.joined(separator: ", ")
        if full.count > shown.count { list += " and \(full.count - shown.count) more" }
        return list
    }

    /// The text in double quotes, cut to ``quotedLengthLimit`` characters and twice as many scalars,
    /// with `"`, `\` and control characters escaped (see ``QuotedText``).
    static func quoted(_ text: String) -> String {
        QuotedText.quote(text, limit: quotedLengthLimit)
    }
}
