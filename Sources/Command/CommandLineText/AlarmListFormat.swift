import AlarmModel
import AlarmRecords
import FoundationEssentials

/// Writes the plain-text table `reveille list` prints.
///
/// ```
/// ID        KIND   STATE      NEXT       IN             TITLE
/// 3f2a9c01  alarm  alerting   RINGING    2m ago         Wake up
/// 0b7e44d2  timer  countdown  Sat 07:42  in 12m         Tea
/// 9a0c1e55  alarm  scheduled  Mon 07:30  in 2d 23h      Work
/// 51d0aa3e  timer  paused     -          paused 4m 10s  Pasta
/// ```
///
/// Columns: `ID`, the first 8 characters of the lowercase id; `KIND`, `alarm` or `timer`; `STATE`
/// (`off` for an alarm turned off, `skipping` for one that skips its next alert);
/// `NEXT`, the next alert as local time (``LocalTimeFormat``), the end of a running countdown,
/// `RINGING` while alerting, `-` when there is none; `IN`, how far away that is
/// (``RelativeTimeFormat``), how long ago a ringing alarm began, or `paused` and the time left of a
/// paused countdown; `TITLE`, the alert's title (`-` when empty).
///
/// Rows are sorted by next alert: ringing alarms first (earliest first), then by the next alert
/// instant, then any with none, then paused countdowns (least time left first); ties go by id.
///
/// Columns are separated by two spaces and padded to the widest cell, measured in terminal
/// columns with ``DisplayWidth``, so wide CJK characters and emoji keep them aligned. The title is
/// last and not padded, so lines carry no trailing spaces. Control characters in titles are
/// replaced (line breaks and tabs by a space, others by U+FFFD) so a title cannot break a row, and
/// a title that begins with a combining mark or other zero-width scalar gets a U+25CC dotted circle
/// to sit on, so it cannot fuse with the space before it.
/// When `width` is given, titles longer than the columns left are cut with `…`; titles always keep
/// at least ``minimumTitleWidth`` columns, so on a very narrow terminal lines may run past `width`.
/// With `color` (a terminal that shows colour, see ``TerminalColor/detect(isTerminal:environment:)``),
/// each row's id is drawn in the alarm's tint colour; the escape sequences take no column, so the
/// columns line up as without them.
/// The text has no final line break. With no records it is `No alarms.`.
package enum AlarmListFormat {
    /// The fewest columns a title is cut to.
    package static let minimumTitleWidth = 10

    /// The space between columns.
    static let gap = "  "

    /// The column headings, in the person's language (English by default).
    package struct Headings: Hashable, Sendable {
        /// `ID`, `KIND`, `STATE`, `NEXT`, `IN`, `TITLE`.
        package var id, kind, state, next, distance, title: String

        /// The English headings.
        package static let english = Headings(id: "ID", kind: "KIND", state: "STATE", next: "NEXT", distance: "IN", title: "TITLE")

        /// Creates headings.
        package init(id: String, kind: String, state: String, next: String, distance: String, title: String) {
            (self.id, self.kind, self.state, self.next, self.distance, self.title) = (id, kind, state, next, distance, title)
        }
    }

    /// The table of `records` as seen from `reading`, fitting titles into `width` columns if given,
    /// with times in `timeStyle` and the given headings, and ids in their alarms' tint in `color`.
    package static func table(
        _ records: [AlarmRecord], at reading: ClockReading, width: Int?, timeStyle: TimeStyle = .standard,
        headings: Headings = .english, color: TerminalColor? = nil
    ) -> String {
        guard !records.isEmpty else { return "No alarms." }
        let rows = records.map { Row($0, at: reading, timeStyle: timeStyle) }.sorted(by: Row.precedes)
        let header = [headings.id, headings.kind, headings.state, headings.next, headings.distance]
        var widths = header.map { DisplayWidth.of($0) }
        for row in rows {
            for (index, cell) in row.cells.enumerated() {
                widths[index] = max(widths[index], DisplayWidth.of(cell))
            }
        }
        let prefixWidth = widths.reduce(0, +) + widths.count * gap.count
        let titleWidth = width.map { max($0 - prefixWidth, minimumTitleWidth) }

        func line(_ cells: [String], _ title: String, tint: Color? = nil) -> String {
            var text = ""
            for (index, (cell, columns)) in zip(cells, widths).enumerated() {
                // Padding is measured on the plain cell; the colour wraps only its text.
                var shown = cell
                if index == 0, let tint, let color { shown = color.painting(cell, in: tint) }
                text += shown + String(repeating: " ", count: columns - DisplayWidth.of(cell)) + gap
            }
            return text + (titleWidth.map { DisplayWidth.truncated(title, toWidth: $0) } ?? title)
        }
        return ([line(header, headings.title)] + rows.map { line($0.cells, $0.title, tint: $0.tint) }).joined(separator: "\n")
    }

    /// Text from an app (a title, a sound, an owner) as a terminal may show it: control
    /// characters replaced, so it stays on its line and cannot move the cursor, restyle the
    /// terminal or set its clipboard; `-` when empty.
    package static func cleaned(_ title: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in title.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .lineSeparator, .paragraphSeparator: result.append(" ")
            case .control:
                result.append((0x09...0x0D).contains(scalar.value) || scalar.value == 0x85 ? " " : "\u{FFFD}")
            default: result.append(scalar)
            }
        }
        let text = String(result)
        if text.isEmpty { return "-" }
        // A mark, joiner or other extending scalar would combine with the space before the title.
        if (" " + text).first != " " { return "\u{25CC}" + text }
        return text
    }

    /// One record's row and where it sorts.
    private struct Row {
        /// ID, KIND, STATE, NEXT and IN.
        var cells: [String]
        var title: String
        /// The alarm's tint colour.
        var tint: Color
        /// 0 ringing, 1 with a next alert, 2 with none, 3 paused.
        var group: Int
        /// Orders rows within a group.
        var key: Double
        var id: String

        init(_ record: AlarmRecord, at reading: ClockReading, timeStyle: TimeStyle) {
            id = record.id.lowercasedText()
            title = AlarmListFormat.cleaned(record.definition.title)
            tint = record.definition.tintColor
            let next: String
            let distance: String
            switch record.phase {
            case .alerting(let ringing):
                (next, distance) = ("RINGING", RelativeTimeFormat.string(for: ringing.startedAt, relativeTo: reading.now))
                (group, key) = (0, ringing.startedAt.timeIntervalSince1970)
            case .paused(let paused):
                (next, distance) = ("-", "paused " + DurationFormat.units(paused.remaining, maximumUnits: 2))
                (group, key) = (3, paused.remaining)
            case .scheduled, .countdown:
                if let fire = record.fireDate(from: reading) {
                    next = LocalTimeFormat.string(for: fire, at: reading, style: timeStyle)
                    distance = RelativeTimeFormat.string(for: fire, relativeTo: reading.now)
                    (group, key) = (1, fire.timeIntervalSince1970)
                } else {
                    (next, distance) = ("-", "-")
                    (group, key) = (2, 0)
                }
            }
            if key.isNaN { key = .infinity }
            cells = [
                String(id.prefix(8)), record.definition.isTimer ? "timer" : "alarm", Self.stateText(of: record, at: reading.now),
                next, distance,
            ]
        }

        /// The STATE cell: AlarmKit's state, or `off` for an alarm turned off, `skipping` for one
        /// that skips its next alert (NEXT is then the alert after it).
        static func stateText(of record: AlarmRecord, at now: Date) -> String {
            if case .scheduled = record.phase {
                if !record.definition.isEnabled { return "off" }
                if record.pendingSkip(at: now) != nil { return "skipping" }
            }
            return record.state.rawValue
        }

        static func precedes(_ a: Row, _ b: Row) -> Bool {
            if a.group != b.group { return a.group < b.group }
            if a.key != b.key { return a.key < b.key }
            return a.id < b.id
        }
    }
}
