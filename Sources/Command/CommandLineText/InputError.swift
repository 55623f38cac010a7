import AlarmModel
import FoundationEssentials
import Localization

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

    /// A sentence for a person, naming the bad part, in the person's language: `invalid time
    /// "25:00": the hour must be 0 to 23`.
    package var description: String {
        switch self {
        case .empty(let field):
            field.nothingGiven + ": " + reason
        case .unrecognized(let field, let text), .invalid(let field, let text, _):
            field.invalid(Self.quoted(text)) + ": " + reason
        case .unknownDay(let text):
            Translation.format("unknown day %s", Self.quoted(text)) + ": " + InputField.days.hint
        case .missingDay(let text):
            InputField.days.invalid(Self.quoted(text)) + ": " + reason
        case .missingUnit(let text, _):
            InputField.duration.invalid(Self.quoted(text)) + ": " + reason
        case .noMatchingAlarm(let text):
            Translation.format("no alarm matches the id %s", Self.quoted(text))
        case .ambiguousID(let text, let matches):
            Translation.plural(
                "the id %s is ambiguous: %s alarm matches (%s); type more of it",
                "the id %s is ambiguous: %s alarms match (%s); type more of it", count: matches.count,
                Self.quoted(text), String(matches.count), Self.shortList(matches))
        }
    }

    /// The sentence for a value given to an option, which it names: `invalid --snooze "5x": use a
    /// length such as 90s, 5m, 1h30m or 00:05:00`, so that every number and length the command
    /// reads is refused in the same words.
    package func description(naming option: String) -> String {
        switch self {
        case .empty, .unrecognized, .invalid, .missingDay, .missingUnit, .unknownDay:
            Self.invalid(option, text: text, reason: reason)
        case .noMatchingAlarm, .ambiguousID:
            description
        }
    }

    /// `invalid --volume "loud": <reason>`, in the person's language: the one shape of every
    /// message about a value an option was given.
    package static func invalid(_ option: String, text: String, reason: String) -> String {
        Translation.format("invalid %s %s: %s", option, quoted(text), reason)
    }

    /// The text as given (trimmed); empty for `.empty`.
    package var text: String {
        switch self {
        case .empty: ""
        case .unrecognized(_, let text), .invalid(_, let text, _), .missingDay(let text), .missingUnit(let text, _),
            .unknownDay(let text), .noMatchingAlarm(let text), .ambiguousID(let text, _):
            text
        }
    }

    /// What is wrong, as the clause after the colon, in the person's language.
    package var reason: String {
        switch self {
        case .empty(let field), .unrecognized(let field, _): field.hint
        case .invalid(_, _, let reason): reason
        case .unknownDay(let text): Translation.format("%s is not a day", Self.quoted(text)) + "; " + InputField.days.hint
        case .missingDay: Translation.text("a day is missing between commas")
        case .missingUnit(_, let number): Translation.format("%s needs a unit, as in %s", Self.quoted(number), Self.unitExamples(number))
        case .noMatchingAlarm, .ambiguousID: description
        }
    }

    /// `90s, 90m or 90h` for a short number, `s, m or h` for a long one.
    private static func unitExamples(_ number: String) -> String {
        number.count <= 12 ? Translation.format("%ss, %sm or %sh", number, number, number) : Translation.text("s, m or h")
    }

    /// Up to five matching ids, as short as keeps them apart but at least 8 characters.
    private static func shortList(_ ids: [UUID]) -> String {
        let full = ids.map { $0.lowercasedText() }.sorted()
        let shown = Array(full.prefix(5))
        var length = 8
        while length < 36, Set(shown.map { $0.prefix(length) }).count < shown.count { length += 1 }
        var list = shown.map { String($0.prefix(length)) }.joined(separator: ", ")
        if full.count > shown.count { list += " " + Translation.format("and %s more", String(full.count - shown.count)) }
        return list
    }

    /// The text in double quotes, cut to ``quotedLengthLimit`` characters and twice as many scalars,
    /// with `"`, `\` and control characters escaped (see ``QuotedText``).
    static func quoted(_ text: String) -> String {
        QuotedText.quote(text, limit: quotedLengthLimit)
    }
}
