import AlarmModel
/// A cursor over the UTF-8 bytes of typed text, for the ASCII grammars of times and durations.
///
/// Every method checks bounds and returns `nil` or `false` rather than trapping; a byte outside
/// ASCII (part of any non-ASCII character, such as a non-Latin digit) matches nothing.
struct ASCIIScanner {
    /// The text's UTF-8 bytes.
    let bytes: [UInt8]
    /// The index of the next byte to read.
    var position = 0

    /// Creates a scanner at the start of the text.
    init(_ text: Substring) {
        bytes = Array(text.utf8)
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { position >= bytes.count }

    /// The next byte, lowercased when it is an ASCII letter, or `nil` at the end.
    var peek: UInt8? {
        position < bytes.count ? Self.lowercased(bytes[position]) : nil
    }

    /// Reads a run of ASCII digits (at most `limit` of them) and returns them, or `nil` when the
    /// next byte is not a digit.
    mutating func digits(limit: Int = .max) -> Digits? {
        let start = position
        while position < bytes.count, position - start < limit, Self.isDigit(bytes[position]) {
            position += 1
        }
        guard position > start else { return nil }
        return Digits(bytes: bytes[start..<position])
    }

    /// Reads `byte` (compared case-insensitively for letters) if it comes next.
    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek == Self.lowercased(byte) else { return false }
        position += 1
        return true
    }

    /// Reads an `h` between an hour and its minutes (`19h30`): only when a digit follows it.
    mutating func consumeHourLetter() -> Bool {
        guard peek == UInt8(ascii: "h"), position + 1 < bytes.count, Self.isDigit(bytes[position + 1]) else { return false }
        position += 1
        return true
    }

    /// Reads the lowercase ASCII `word` if it comes next, in any case.
    mutating func consume(word: String) -> Bool {
        let word = Array(word.utf8)
        guard bytes.count - position >= word.count else { return false }
        for (offset, byte) in word.enumerated() where Self.lowercased(bytes[position + offset]) != byte {
            return false
        }
        position += word.count
        return true
    }

    /// Reads a run of ASCII letters and returns it lowercased; empty when none comes next.
    mutating func letters() -> String {
        let start = position
        while position < bytes.count, Self.isLetter(bytes[position]) { position += 1 }
        return String(decoding: bytes[start..<position].map(Self.lowercased), as: UTF8.self)
    }

    /// Skips ASCII spaces and tabs; returns whether there were any.
    @discardableResult
    mutating func skipSpaces() -> Bool {
        let start = position
        while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x09 { position += 1 }
        return position > start
    }

    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }

    static func lowercased(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }

    /// A run of ASCII digits.
    struct Digits {
        /// The digits' bytes.
        let bytes: ArraySlice<UInt8>

        /// How many digits there are.
        var count: Int { bytes.count }

        /// The digits as text.
        var text: String { String(decoding: bytes, as: UTF8.self) }

        /// The number they write, or `nil` when it is larger than `limit` (leading zeros allowed).
        func value(limit: Int) -> Int? {
            var value = 0
            for byte in bytes {
                value = value * 10 + Int(byte - 0x30)
                if value > limit { return nil }
            }
            return value
        }
    }
}
