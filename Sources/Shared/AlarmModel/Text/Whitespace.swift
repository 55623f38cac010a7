extension StringProtocol {
    /// The text without white space at either end: Unicode's White_Space characters (spaces, tabs,
    /// no-break spaces), and line breaks too unless `newlines` is false.
    package func trimmingWhitespace(newlines: Bool = true) -> String {
        let scalars = unicodeScalars
        func isTrimmed(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isWhitespace && (newlines || !Self.isLineBreak(scalar))
        }
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isTrimmed($0) })!
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    /// Whether a character ends a line: LF, VT, FF, CR, NEL, LINE and PARAGRAPH SEPARATOR.
    private static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        (0x0A...0x0D).contains(scalar.value) || scalar.value == 0x85 || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}
