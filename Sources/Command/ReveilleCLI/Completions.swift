import AlarmKit
import AlarmProtocol
import ArgumentParser
import CommandLineText
import FoundationEssentials

/// What the shells complete, asked of the command while a person presses Tab
/// (swift-argument-parser's `.custom` completions): alarm ids, day names and sound names.
///
/// Ids and sounds come from the agent, only when it runs already: completing never starts it.
/// Where the shell shows descriptions, each id comes with its alarm's title and next alert (zsh
/// reads `value:description`, fish `value<Tab>description`); bash shows the values alone.
enum Completions {
    /// The alarms' ids, 8 characters (more where two alarms share them), that start with what is typed.
    @Sendable static func alarmIDs(_ words: [String], _ index: Int, _ prefix: String) async -> [String] {
        guard let client = try? AgentClient.connect(), await client.isAgentRunning(),
            let alarms = try? await client.list()
        else { return [] }
        defer { client.close() }
        let reading = ClockReading.local()
        let ids = alarms.map(\.alarm.id)
        return alarms.compactMap { alarm -> String? in
            var shown = String(alarm.alarm.id.lowercasedText().prefix(8))
            if ids.contains(where: { $0 != alarm.alarm.id && $0.lowercasedText().hasPrefix(shown) }) {
                shown = Confirmation.handle(for: alarm.alarm.id, among: ids)
            }
            guard shown.hasPrefix(prefix.lowercased()) else { return nil }
            let record = alarm.record(at: reading)
            var about = AlarmListFormat.cleaned(record.definition.displayTitle)
            if let next = record.fireDate(from: reading) { about += " (" + LocalTimeFormat.string(for: next, at: reading) + ")" }
            return described(shown, about)
        }
    }

    /// Day names and groups, after the days already typed in a comma-separated list (`mon,we` →
    /// `mon,wed`, `mon,weekdays`, `mon,weekends`), without the days typed already.
    @Sendable static func days(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        let typed = prefix.lowercased()
        let head = typed.lastIndex(of: ",").map { String(typed[...$0]) } ?? ""
        let given = Set(head.split(separator: ",").map(String.init))
        let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun", "weekdays", "weekends", "daily"]
        return names.filter { !given.contains($0) }.map { head + $0 }.filter { $0.hasPrefix(typed) }
    }

    /// The names of the sounds the agent lists (Reveille's own, the theme's), with how they sound;
    /// or, once what is typed reads as a path (`/`, `~`, `.`), the files and folders it starts.
    @Sendable static func sounds(_ words: [String], _ index: Int, _ prefix: String) async -> [String] {
        if AlertConfiguration.AlertSound.isFilePath(prefix) || prefix.hasPrefix("~") || prefix.hasPrefix(".") { return paths(prefix) }
        guard let client = try? AgentClient.connect(), await client.isAgentRunning(),
            let sounds = try? await client.sounds()
        else { return [] }
        defer { client.close() }
        return sounds.filter { $0.name.hasPrefix(prefix) }.map {
            described($0.name, $0.description.isEmpty ? "" : AlarmListFormat.cleaned($0.description))
        }
    }

    /// The files and folders (these with a final `/`) whose paths start with `typed`, written as
    /// typed (`~/Mu` gives `~/Music/`).
    static func paths(_ typed: String) -> [String] {
        let slash = typed.lastIndex(of: "/")
        let folderText = slash.map { String(typed[...$0]) } ?? ""
        let start = slash.map { String(typed[typed.index(after: $0)...]) } ?? typed
        let folder = folderText.isEmpty ? "." : AlertConfiguration.AlertSound.expandingTilde(folderText)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.filter { $0.hasPrefix(start) && (start.hasPrefix(".") || !$0.hasPrefix(".")) }.sorted().map { name in
            var isFolder = false
            _ = FileManager.default.fileExists(atPath: folder.hasSuffix("/") ? folder + name : folder + "/" + name, isDirectory: &isFolder)
            return folderText + name + (isFolder ? "/" : "")
        }
    }

    /// A candidate with its description, as the requesting shell reads one.
    static func described(_ value: String, _ description: String) -> String {
        guard !description.isEmpty else { return value }
        let shell = CompletionShell.requesting
        if shell == .zsh { return value.replacing(":", with: "\\:") + ":" + description }
        if shell == .fish { return value + "\t" + description.replacing("\t", with: " ") }
        return value
    }
}
