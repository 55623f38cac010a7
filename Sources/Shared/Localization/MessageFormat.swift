/// Fills a translated message's placeholders: `%s` and `%d` take the arguments in order,
/// `%1$s` (or `%1$d`) names one, so a translation may put them in its own order; `%%` is `%`.
///
/// The placeholders are gettext's `c-format` ones (`msgfmt --check` holds translations to them),
/// but every argument arrives as text: the caller formats numbers first.
package enum MessageFormat {
    /// `template` with its placeholders replaced by `arguments`; a placeholder without an argument
    /// is left as it is written.
    package static func fill(_ template: String, _ arguments: [String]) -> String {
        var result = ""
        var next = 0
        var scalars = template.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            guard scalar == "%" else {
                result.unicodeScalars.append(scalar)
                continue
            }
            if scalars.first == "%" {
                scalars.removeFirst()
                result += "%"
                continue
            }
            // %N$s: the digits and the dollar sign, then the conversion.
            var lookahead = scalars
            var digits = ""
            while let digit = lookahead.first, ("0"..."9").contains(digit) {
                digits.unicodeScalars.append(digit)
                lookahead.removeFirst()
            }
            var index: Int?
            if !digits.isEmpty, lookahead.first == "$", let position = Int(digits), position >= 1 {
                lookahead.removeFirst()
                index = position - 1
            } else {
                lookahead = scalars
            }
            guard let conversion = lookahead.first, conversion == "s" || conversion == "d" else {
                result += "%"
                continue
            }
            lookahead.removeFirst()
            let argument = index ?? next
            if index == nil { next += 1 }
            guard arguments.indices.contains(argument) else {
                result += "%"
                continue
            }
            result += arguments[argument]
            scalars = lookahead
        }
        return result
    }
}
