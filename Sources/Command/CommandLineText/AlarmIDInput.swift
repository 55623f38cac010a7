import AlarmModel
import FoundationEssentials

/// Finds the alarm an ID argument names: its full UUID or any prefix of it that only one alarm has.
///
/// Case does not matter. Written with dashes, the text is compared with the start of the lowercase
/// dashed form (`1a2b3c4d-5e`); written without any dash, with the start of the same form with
/// its dashes removed, so the 32-digit form and prefixes that run past the first dash without
/// typing it (`1a2b3c4d5e`) work too. Every id matches the empty prefix, so an empty text is
/// refused rather than matched.
package enum AlarmIDInput {
    /// Resolves `text` to the one id among `ids` it names.
    ///
    /// Throws `.empty` for an empty text, `.unrecognized` for characters no id has (anything but
    /// `0-9`, `a-f`, `A-F` and `-`, or more characters than an id), `.noMatchingAlarm` when no id
    /// matches, and `.ambiguousID` (with every matching id) when more than one does.
    package static func resolve(_ text: String, among ids: [UUID]) throws(InputError) -> UUID {
        let trimmed = try checkSyntax(text)
        let prefix = trimmed.lowercased()
        let dashed = prefix.contains("-")
        var matches: [UUID] = []
        for id in Set(ids) {
            var form = id.lowercasedText()
            if !dashed { form.removeAll { $0 == "-" } }
            if form.hasPrefix(prefix) { matches.append(id) }
        }
        guard let match = matches.first else { throw .noMatchingAlarm(trimmed) }
        guard matches.count == 1 else {
            throw .ambiguousID(trimmed, matches: matches.sorted { $0.uuidString < $1.uuidString })
        }
        return match
    }

    /// The id `text` names in whole, known without asking for the alarms: the 36-character dashed
    /// form or the 32 digits without dashes, in either case, around white space; `nil` for
    /// anything shorter (a prefix) or not an id.
    package static func whole(_ text: String) -> UUID? {
        let trimmed = text.trimmingWhitespace()
        switch trimmed.utf8.count {
        case 36:
            return UUID(text: trimmed)
        case 32 where !trimmed.contains("-"):
            var dashed = trimmed
            for offset in [8, 13, 18, 23] { dashed.insert("-", at: dashed.index(dashed.startIndex, offsetBy: offset)) }
            return UUID(text: dashed)
        default:
            return nil
        }
    }

    /// Checks that `text` could name an alarm, without knowing the alarms: not empty, and at most
    /// 36 characters from `0-9`, `a-f`, `A-F` and `-`. Returns the text trimmed of white space.
    ///
    /// Throws `.empty` or `.unrecognized`, as `resolve` does for such text; the command checks
    /// this before it asks the agent for the alarms, so that bad input is a usage error.
    @discardableResult
    package static func checkSyntax(_ text: String) throws(InputError) -> String {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw .empty(.alarmID) }
        let isIDCharacter: (UInt8) -> Bool = { byte in
            ASCIIScanner.isDigit(byte) || (0x61...0x66).contains(ASCIIScanner.lowercased(byte))
                || byte == UInt8(ascii: "-")
        }
        guard trimmed.utf8.count <= 36, trimmed.utf8.allSatisfy(isIDCharacter) else {
            throw .unrecognized(.alarmID, trimmed)
        }
        return trimmed
    }
}
