import AlarmModel
/// Measures how many terminal columns text takes, to align columns of plain-text tables.
///
/// The approach approximates what `wcwidth` and modern terminals do, one grapheme cluster
/// (Swift `Character`) at a time:
///
/// - 0 columns for a cluster made only of combining marks, format characters (such as a zero-width
///   space or joiner) and control characters; a mark combined with a base takes the base's width,
///   so `e` with a combining acute accent is 1 column.
/// - 2 columns for a cluster whose base is East Asian Wide or Fullwidth (CJK ideographs, kana,
///   Hangul syllables, fullwidth forms, from Unicode's EastAsianWidth.txt in broad ranges), or that
///   shows as an emoji: a scalar with the Emoji_Presentation property (`⏰`, `🔔`, flags), or an
///   emoji followed by the emoji variation selector U+FE0F (`⏱️`). A whole ZWJ sequence such as a
///   family emoji is one cluster, so 2 columns, as terminals that support them draw it.
/// - 1 column otherwise.
///
/// It cannot know a particular terminal's font; ambiguous-width characters count as 1.
package enum DisplayWidth {
    /// The columns `text` takes.
    package static func of(_ text: some StringProtocol) -> Int {
        // Printable ASCII, the common case, is one column a byte.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return text.reduce(0) { $0 + of($1) }
    }

    /// The columns one grapheme cluster takes: 0, 1 or 2.
    package static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let base = scalars.first(where: { !isZeroWidth($0) }) else { return 0 }
        if isWide(base.value) { return 2 }
        let properties = base.properties
        if properties.isEmojiPresentation { return 2 }
        if properties.isEmoji && scalars.contains("\u{FE0F}") { return 2 }
        return 1
    }

    /// `text` cut to at most `width` columns, ending with `…` when it was cut.
    ///
    /// Text that fits is returned as is; a width below 1 gives an empty string.
    package static func truncated(_ text: String, toWidth width: Int) -> String {
        guard width > 0 else { return "" }
        guard of(text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let columns = of(character)
            if used + columns > width - 1 { break }
            result.append(character)
            used += columns
        }
        return result + "…"
    }

    /// Whether a scalar takes no column of its own: a combining mark, a format or control
    /// character, or a variation selector.
    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return true
        default: return (0xFE00...0xFE0F).contains(scalar.value) || (0xE0100...0xE01EF).contains(scalar.value)
        }
    }

    /// East Asian Wide and Fullwidth ranges, in broad blocks.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F,  // Hangul Jamo initial consonants
        0x2E80...0x303E,  // CJK radicals, Kangxi radicals, ideographic description, CJK symbols and punctuation
        0x3041...0x33FF,  // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK strokes, enclosed
        0x3400...0x4DBF,  // CJK unified ideographs extension A
        0x4E00...0x9FFF,  // CJK unified ideographs
        0xA000...0xA4CF,  // Yi syllables and radicals
        0xA960...0xA97F,  // Hangul Jamo extended A
        0xAC00...0xD7A3,  // Hangul syllables
        0xF900...0xFAFF,  // CJK compatibility ideographs
        0xFE10...0xFE19,  // vertical forms
        0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
        0xFF00...0xFF60,  // fullwidth forms
        0xFFE0...0xFFE6,  // fullwidth signs
        0x16FE0...0x16FE4, 0x17000...0x18CFF,  // Tangut, Khitan
        0x1AFF0...0x1B2FF,  // Kana supplement and extended, Nushu
        0x1F200...0x1F2FF,  // enclosed ideographic supplement
        0x20000...0x2FFFD,  // CJK extensions B to F, compatibility supplement
        0x30000...0x3FFFD,  // CJK extensions G and H
    ]

    private static func isWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        return wideRanges.contains { $0.contains(value) }
    }
}
