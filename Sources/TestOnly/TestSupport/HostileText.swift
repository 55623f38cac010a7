import Foundation

/// Text that breaks naive code: control characters, combining marks, fullwidth digits, bidi
/// overrides, emoji sequences, number-like words, huge strings, and (as bytes) invalid UTF-8.
///
/// Every string is valid Swift text without NUL, so it can travel as a D-Bus string; `bytes`
/// also makes byte sequences that are not UTF-8, for command lines.
package enum HostileText {
    /// Strings that look like numbers, times, durations, ids or markup, and fool lenient parsers.
    package static let tricky: [String] = [
        "", " ", "0", "-0", "1e309", "-1e309", "NaN", "nan", "inf", "-inf", "infinity", "0x1p-1074", "9223372036854775808",
        "-9223372036854775809", "18446744073709551616", "1.7976931348623157e308", "4.9e-324", "00", "٣", "５", "６０",
        "０１:３０", "7:30", "07:30", "24:00", "23:60", "7:30pm", "12am", "0am", "13pm", "2026-02-30 07:30",
        "9999-12-31T23:59:59Z", "0000-01-01 00:00", "2026-12-01T07:30:00+99:99", "90s", "5m", "1h30m", "0s",
        "-5m", "1e3s", "366d", "367d", "1d24h", "00:05:00", "00:60:00", "1:2:3:4", ".5s", "5.s", "mon,,tue",
        "weekdays,", "MONDAY", "sunday", "sun day", "#ffffff", "#FFFFFFFF", "#fff", "#ggghhh", "#００００００",
        "#ａｂｃｄｅｆ", "#0000001", "#\u{0661}\u{0662}\u{0663}\u{0664}\u{0665}\u{0666}", "default", "alarm-clock-elapsed",
        "/dev/zero", "/proc/self/mem", "../../../../etc/passwd", "~", "~root/x", "%s%s%n%n", "${HOME}", "$(reboot)",
        "`id`", "'; DROP TABLE alarms; --", "<b>bold</b>", "<img src=x>", "&amp;", "\"quoted\"", "\\", "\\u0000",
        "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "{00000000-0000-4000-8000-000000000000}", "00000000000040008000000000000000", "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz",
        "io.github.reveille.Reveille", "org.example.App", "a..b", ".a", "a.", "activate", "stop-it", "x y",
        "\u{202E}evil\u{202C}", "\u{200B}", "\u{FEFF}", "\u{FFFD}", "\u{1B}[2J\u{1B}[H", "\u{1B}]0;title\u{07}", "\r\n",
        "\t", "\u{7F}", "\u{85}", "\u{2028}", "e\u{301}\u{301}\u{301}", "👩‍👩‍👧‍👦", "🇺🇳", "\u{10FFFF}", "日本語",
    ]

    /// A hostile string: a tricky word, random scalars, a long or (rarely) a huge string.
    package static func string(using rng: inout some RandomNumberGenerator, allowHuge: Bool = true) -> String {
        switch rng.weighted([(30, 0), (20, 1), (15, 2), (10, 3), (8, 4), (allowHuge ? 2 : 0, 5)]) {
        case 0: return rng.pick(tricky)
        case 1: return scalars(count: Int.random(in: 0...40, using: &rng), using: &rng)
        case 2: return mixed(using: &rng)
        case 3: return asciiWord(using: &rng)
        case 4:
            let unit = rng.pick(["a", "9", "é", "🙂", "\u{301}", "\u{1B}", " "])
            return repeated(unit, count: Int.random(in: 100...5_000, using: &rng))
        default: return huge(using: &rng)
        }
    }

    /// A string of about a mebibyte.
    package static func huge(using rng: inout some RandomNumberGenerator) -> String {
        let unit = rng.pick(["a", "é", "日", "🙂", "0", "\u{1B}", "mon,"])
        let bytes = 1_048_576 + Int.random(in: -16...16, using: &rng)
        return repeated(unit, count: max(1, bytes / unit.utf8.count))
    }

    /// `unit` written `count` times, built by doubling (a handful of copies, not `count` appends).
    package static func repeated(_ unit: String, count: Int) -> String {
        guard count > 0 else { return "" }
        var text = unit
        var made = 1
        while made * 2 <= count {
            text += text
            made *= 2
        }
        if made < count { text += repeated(unit, count: count - made) }
        return text
    }

    /// Random Unicode scalars from every plane (no NUL, no surrogates).
    package static func scalars(count: Int, using rng: inout some RandomNumberGenerator) -> String {
        var text = String.UnicodeScalarView()
        for _ in 0..<count {
            let value: UInt32 = rng.weighted([
                (4, UInt32.random(in: 1...0x7F, using: &rng)),
                (2, UInt32.random(in: 0x80...0x7FF, using: &rng)),
                (2, UInt32.random(in: 0x800...0xFFFF, using: &rng)),
                (1, UInt32.random(in: 0x10000...0x10FFFF, using: &rng)),
            ])
            text.append(Unicode.Scalar(value) ?? "\u{FFFD}")
        }
        return String(text)
    }

    /// Tricky words joined with random scalars and separators.
    package static func mixed(using rng: inout some RandomNumberGenerator) -> String {
        (0..<Int.random(in: 1...5, using: &rng)).map { _ in
            rng.chance(0.6) ? rng.pick(tricky) : scalars(count: Int.random(in: 1...4, using: &rng), using: &rng)
        }.joined(separator: rng.pick(["", " ", ",", ":", "-", "\n"]))
    }

    /// A short word of ASCII letters, digits and punctuation.
    package static func asciiWord(using rng: inout some RandomNumberGenerator) -> String {
        let characters = Array("abcdefxyzABCXYZ0123456789_-.:/ #,+")
        return String((0..<Int.random(in: 1...16, using: &rng)).map { _ in rng.pick(characters) })
    }

    /// Bytes for a command-line argument: a hostile string's UTF-8, or bytes that are not UTF-8
    /// (lone continuation bytes, overlong forms, surrogates, truncated sequences). Never NUL.
    package static func bytes(using rng: inout some RandomNumberGenerator) -> [UInt8] {
        if rng.chance(0.6) { return Array(string(using: &rng, allowHuge: false).utf8) }
        let invalid: [[UInt8]] = [
            [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80],
            [0xF4, 0x90, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xFE], [0xFF], [0xE2, 0x82], [0xF0, 0x9F, 0x99],
        ]
        var result: [UInt8] = []
        for _ in 0..<Int.random(in: 1...6, using: &rng) {
            if rng.chance(0.5) {
                result += rng.pick(invalid)
            } else {
                result += Array(rng.pick(tricky).utf8)
            }
        }
        return result.filter { $0 != 0 }
    }
}
