import CommandLineText
import AlarmModel
import AlarmRecords
import Foundation
import Testing
import TestSupport

/// Each alarm's tint in `reveille list` (and `watch`): when a terminal gets colour, as which escape
/// sequence, and a table whose columns stay aligned.
@Suite("Tint colour in the terminal")
struct TintColorTests {
    static let escape = "\u{1B}"

    // MARK: Whether and how

    @Test("Colour only on a terminal, without NO_COLOR, with a TERM that is not dumb; 24-bit where COLORTERM says so")
    func detection() {
        let term = ["TERM": "xterm-256color"]
        #expect(TerminalColor.detect(isTerminal: true, environment: term) == .palette256)
        #expect(TerminalColor.detect(isTerminal: false, environment: term) == nil, "a pipe or a file stays plain")
        #expect(TerminalColor.detect(isTerminal: true, environment: term.merging(["NO_COLOR": "1"]) { $1 }) == nil)
        // no-color.org: set and not empty.
        #expect(TerminalColor.detect(isTerminal: true, environment: term.merging(["NO_COLOR": ""]) { $1 }) == .palette256)
        #expect(TerminalColor.detect(isTerminal: true, environment: ["TERM": "dumb"]) == nil)
        #expect(TerminalColor.detect(isTerminal: true, environment: ["TERM": ""]) == nil)
        #expect(TerminalColor.detect(isTerminal: true, environment: [:]) == nil)
        for value in ["truecolor", "24bit", "TrueColor", "24BIT"] {
            #expect(
                TerminalColor.detect(isTerminal: true, environment: term.merging(["COLORTERM": value]) { $1 }) == .trueColor, "\(value)")
        }
        for value in ["", "yes", "256"] {
            #expect(
                TerminalColor.detect(isTerminal: true, environment: term.merging(["COLORTERM": value]) { $1 }) == .palette256, "\(value)")
        }
        #expect(
            TerminalColor.detect(
                isTerminal: true, environment: ["TERM": "xterm", "COLORTERM": "truecolor", "NO_COLOR": "x"]) == nil)
    }

    @Test("24-bit colour is ESC[38;2;R;G;Bm, ended by ESC[39m")
    func trueColorSequences() {
        #expect(TerminalColor.trueColor.foreground(.orange) == "\(Self.escape)[38;2;255;149;0m")
        #expect(TerminalColor.trueColor.foreground(.blue) == "\(Self.escape)[38;2;0;122;255m")
        #expect(TerminalColor.trueColor.foreground(Color(hex: "#0A0B0C")!) == "\(Self.escape)[38;2;10;11;12m")
        #expect(TerminalColor.trueColor.painting("3f2a9c01", in: .green) == "\(Self.escape)[38;2;52;199;89m3f2a9c01\(Self.escape)[39m")
        // Out of range and not a number: clamped, as `description` writes them.
        #expect(TerminalColor.trueColor.foreground(Color(red: 2, green: -1, blue: .nan)) == "\(Self.escape)[38;2;255;0;0m")
        // Nothing to show for a transparent tint.
        #expect(TerminalColor.trueColor.painting("3f2a9c01", in: .clear) == "3f2a9c01")
    }

    @Test("Otherwise the nearest colour of the 256-colour palette: ESC[38;5;Nm")
    func paletteSequences() {
        #expect(TerminalColor.palette256.foreground(.orange) == "\(Self.escape)[38;5;208m")
        #expect(TerminalColor.palette256.painting("id", in: .blue) == "\(Self.escape)[38;5;33mid\(Self.escape)[39m")
        // The cube's own colours are found exactly.
        #expect(TerminalColor.paletteIndex(red: 0, green: 0, blue: 0) == 16)
        #expect(TerminalColor.paletteIndex(red: 255, green: 255, blue: 255) == 231)
        #expect(TerminalColor.paletteIndex(red: 255, green: 0, blue: 0) == 196)
        #expect(TerminalColor.paletteIndex(red: 0x5F, green: 0x87, blue: 0xAF) == 67)
        // The nearest, a cube colour or a grey.
        #expect(TerminalColor.paletteIndex(red: 52, green: 199, blue: 89) == 77)  // green
        #expect(TerminalColor.paletteIndex(red: 142, green: 142, blue: 147) == 246)  // gray: the grey 148
        #expect(TerminalColor.paletteIndex(red: 8, green: 8, blue: 8) == 232)
        #expect(TerminalColor.paletteIndex(red: 240, green: 240, blue: 240) == 255)
        // Every colour lands on one of the 240 fixed entries, never the terminal's own first 16.
        for value in stride(from: 0, through: 255, by: 17) {
            let index = TerminalColor.paletteIndex(red: UInt8(value), green: UInt8(255 - value), blue: UInt8(value / 2))
            #expect((16...255).contains(index))
        }
    }

    // MARK: The list

    /// Saturday 2026-12-05, 10:00 in Berlin.
    static let reading = ClockReading(
        now: Fixtures.instant("2026-12-05T09:00:00Z"), uptime: .seconds(10_000), bootID: "boot-1",
        timeZone: Fixtures.zone("Europe/Berlin"))

    static func record(_ id: String, title: String, at instant: String, tint: Color) -> AlarmRecord {
        var definition = Fixtures.definition(.fixed(Fixtures.instant(instant)), title: title)
        definition.tintColor = tint
        return AlarmRecord(
            id: UUID(uuidString: id)!, owner: "cli", definition: definition,
            phase: .scheduled(alertAt: Fixtures.instant(instant)), anchor: reading.now)
    }

    static let records = [
        record("3F2A9C01-0000-4000-8000-000000000001", title: "Wake up ⏰", at: "2026-12-06T06:30:00Z", tint: .orange),
        record("0B7E44D2-0000-4000-8000-000000000002", title: "日本語", at: "2026-12-05T09:30:00Z", tint: .blue),
    ]

    /// `text` without its SGR sequences.
    static func plain(_ text: String) -> String {
        text.replacing(/\x1B\[[0-9;]*m/, with: "")
    }

    /// The terminal columns at which words start after two spaces (or at the start): where a
    /// table's cells begin.
    static func columnStarts(of line: String) -> [Int] {
        var starts: [Int] = []
        var column = 0
        var spaces = 2
        for character in line {
            if character == " " {
                spaces += 1
            } else {
                if spaces >= 2 { starts.append(column) }
                spaces = 0
            }
            column += DisplayWidth.of(character)
        }
        return starts
    }

    @Test("Each row's id in its alarm's tint; the columns line up as in the plain table")
    func coloredList() {
        let plain = AlarmListFormat.table(Self.records, at: Self.reading, width: 60)
        let colored = AlarmListFormat.table(Self.records, at: Self.reading, width: 60, color: .trueColor)
        #expect(Self.plain(colored) == plain)
        let lines = colored.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0] == plain.split(separator: "\n")[0], "the heading has no colour")
        #expect(
            lines[1].hasPrefix("\(Self.escape)[38;2;0;122;255m0b7e44d2\(Self.escape)[39m  alarm  scheduled  "),
            "\(lines[1].debugDescription)")
        #expect(
            lines[2].hasPrefix("\(Self.escape)[38;2;255;149;0m3f2a9c01\(Self.escape)[39m  alarm  scheduled  "),
            "\(lines[2].debugDescription)")
        // Only the id is coloured: one sequence and its end a row.
        for line in lines.dropFirst() {
            #expect(line.matches(of: /\x1B\[/).count == 2, "\(line.debugDescription)")
        }
        // Aligned: each column starts, in terminal columns, where its heading starts.
        let starts = Self.columnStarts(of: Self.plain(lines[0]))
        #expect(starts.count == 6)
        for line in lines.dropFirst().map(Self.plain) {
            #expect(Array(Self.columnStarts(of: line).prefix(6)) == starts, "\(line)")
        }

        let palette = AlarmListFormat.table(Self.records, at: Self.reading, width: 60, color: .palette256)
        #expect(Self.plain(palette) == plain)
        #expect(palette.contains("\(Self.escape)[38;5;208m3f2a9c01\(Self.escape)[39m  "))
        #expect(palette.contains("\(Self.escape)[38;5;33m0b7e44d2\(Self.escape)[39m  "))
    }

    @Test("Without colour the table is exactly as before: no escape sequence at all")
    func plainList() {
        let table = AlarmListFormat.table(Self.records, at: Self.reading, width: nil)
        #expect(!table.contains(Self.escape))
        #expect(table == AlarmListFormat.table(Self.records, at: Self.reading, width: nil, color: nil))
        #expect(AlarmListFormat.table([], at: Self.reading, width: nil, color: .trueColor) == "No alarms.")
    }
}
