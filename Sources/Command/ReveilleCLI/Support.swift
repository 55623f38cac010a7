import AlarmKit
import CommandLineText
import FoundationEssentials
import LinuxSystem
import Localization

/// Facts about the terminal the command writes to.
enum Terminal {
    /// The width of standard output's terminal, or `nil` when it is not a terminal.
    static func width() -> Int? {
        guard isOutputTerminal, let size = try? FileDescriptor.standardOutput.terminalSize(), size.columns > 0 else { return nil }
        return size.columns
    }

    /// The height of standard output's terminal, or 24.
    static func height() -> Int {
        guard let size = try? FileDescriptor.standardOutput.terminalSize(), size.rows > 0 else { return 24 }
        return size.rows
    }

    /// Whether standard output is a terminal.
    static var isOutputTerminal: Bool { FileDescriptor.standardOutput.isTerminal }
}

/// The words of the CLI's tables in the person's language.
enum PersonText {
    /// `reveille list`'s column headings.
    static var listHeadings: AlarmListFormat.Headings {
        AlarmListFormat.Headings(
            id: Translation.text("ID"), kind: Translation.text("KIND"), state: Translation.text("STATE"),
            next: Translation.text("NEXT"), distance: Translation.text("IN"), title: Translation.text("TITLE"))
    }

    /// `reveille history`'s column headings.
    static var historyHeadings: [String] {
        [Translation.text("DUE"), Translation.text("RANG"), Translation.text("LATE"), Translation.text("ENDED"), Translation.text("TITLE")]
    }
}

/// The text `reveille history` prints.
enum HistoryFormat {
    static func table(
        _ entries: [AlertHistoryEntry], at reading: ClockReading, timeStyle: TimeStyle = .standard,
        header: [String] = ["DUE", "RANG", "LATE", "ENDED", "TITLE"]
    ) -> String {
        guard !entries.isEmpty else { return Translation.text("No alerts yet.") }
        let rows: [[String]] = entries.map { entry in
            var outcome: String
            switch entry.outcome {
            case .missed? where entry.count > 1: outcome = "missed ×\(entry.count)"
            case let value?: outcome = value == .timedOut ? "timed out" : value.rawValue
            case nil: outcome = "ringing"
            }
            switch entry.phonesRung {
            case []?: outcome += ", no phone reachable"
            case let phones?: outcome += ", rang " + phones.map(AlarmListFormat.cleaned).joined(separator: ", ")
            case nil: break
            }
            return [
                LocalTimeFormat.string(for: entry.scheduledAt, at: reading, style: timeStyle),
                entry.alertedAt.map { LocalTimeFormat.string(for: $0, at: reading, style: timeStyle) } ?? "-",
                entry.lateness.map(latenessText) ?? "-",
                outcome,
                AlarmListFormat.cleaned(entry.title),
            ]
        }
        let widths = (0..<header.count - 1).map { column in ([header] + rows).map { DisplayWidth.of($0[column]) }.max() ?? 0 }
        return ([header] + rows).map { row in
            (0..<row.count - 1).map { row[$0] + String(repeating: " ", count: widths[$0] - DisplayWidth.of(row[$0])) }.joined(
                separator: "  ")
                + "  " + row[row.count - 1]
        }.joined(separator: "\n")
    }

    static func latenessText(_ seconds: TimeInterval) -> String {
        // Whole milliseconds, rounded as printf's `%.0f` rounds (half to even).
        if abs(seconds) < 1 { return "\(Int((seconds * 1000).rounded(.toNearestOrEven))) ms" }
        return DurationFormat.units(seconds.rounded(), maximumUnits: 2)
    }

    static func json(_ entries: [AlertHistoryEntry]) -> String {
        let objects: [JSONValue] = entries.map { entry in
            var object: [String: JSONValue] = [
                "alarmID": .string(entry.alarmID.lowercasedText()), "title": .string(entry.title),
                "scheduledAt": .string(AlarmDescription.iso8601(entry.scheduledAt)), "count": .integer(entry.count),
                "outcome": .string(entry.outcome?.rawValue ?? "ringing"),
            ]
            if let alertedAt = entry.alertedAt { object["alertedAt"] = .string(AlarmDescription.iso8601(alertedAt)) }
            if let endedAt = entry.endedAt { object["endedAt"] = .string(AlarmDescription.iso8601(endedAt)) }
            if let lateness = entry.lateness, lateness.isFinite { object["lateness"] = .number((lateness * 1000).rounded() / 1000) }
            if let phones = entry.phonesRung { object["phonesRung"] = .strings(phones) }
            return .object(object)
        }
        return JSONValue.array(objects).text
    }
}
