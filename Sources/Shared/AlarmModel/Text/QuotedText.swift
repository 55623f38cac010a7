/// Text from outside (typed, or sent by an app) quoted in a message: in double quotes, cut to
/// `limit` characters and twice as many Unicode scalars (one character can hold any number of
/// combining marks), with `"`, `\` and control, separator and unassigned scalars escaped (`\n`,
/// `\u{1B}`). A message that quotes it stays short, and can never steer a terminal.
public enum QuotedText {
    /// The text quoted, cut and escaped.
    public static func quote(_ text: String, limit: Int = 40) -> String {
        var result = "\""
        var scalarCount = 0
        for (index, character) in text.enumerated() {
            scalarCount += character.unicodeScalars.count
            if index == limit || scalarCount > 2 * limit {
                result += "…"
                break
            }
            for scalar in character.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                case "\t": result += "\\t"
                case "\r": result += "\\r"
                default:
                    switch scalar.properties.generalCategory {
                    case .control, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned:
                        result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                    default:
                        result.unicodeScalars.append(scalar)
                    }
                }
            }
        }
        return result + "\""
    }
}
