@testable import AlarmCore
import AlarmModel
import AlarmRecords
import CommandLineText
import Foundation
import Testing
import TestRequirements
import TestSupport

/// A database as an earlier schema version left it, made by that version's own code (the commit
/// that brought the version in: its agent and command, or at v1, which had no agent, its engine
/// and store), frozen in `FrozenStores/` with what that code listed in it (see the README there).
struct FrozenStore: CustomTestStringConvertible, Sendable {
    /// `v2-d256ff7`: the schema version and the commit that made it.
    var name: String
    /// The migrations it holds.
    var version: Int
    /// Whether that version stored app authorizations (v2 on).
    var hasAuthorizations: Bool { version >= 2 }

    var testDescription: String { name }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FrozenStores")
    static let all = [
        FrozenStore(name: "v1-8cef044", version: 1), FrozenStore(name: "v2-d256ff7", version: 2),
        FrozenStore(name: "v3-748fd76", version: 3), FrozenStore(name: "v4-263a2b9", version: 4),
    ]

    func file(_ suffix: String) -> URL { Self.folder.appendingPathComponent(name + suffix) }

    /// The alarms as that version's `reveille list --json` printed them.
    func listed() throws -> [AlarmDescription] {
        try JSONDecoder().decode([AlarmDescription].self, from: Data(contentsOf: file(".list.json")))
    }

    /// The alert history as that version printed it (`reveille history --json`; at v1 the engine's
    /// own entries as JSON).
    func history() throws -> [[String: Any]] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: file(".history.json"))) as? [[String: Any]])
    }

    /// About when that version listed its alarms: a minute after the latest instant in its history
    /// (the alert still ringing when it stopped). Its alarms are read as of then, as that version
    /// showed them: a skipped alert, for one, is shown only while it is ahead (v3's and v4's skip
    /// the next day's 06:00, which had passed by the next morning).
    func listedAround() throws -> Date {
        let styles = [Date.ISO8601FormatStyle(), Date.ISO8601FormatStyle(includingFractionalSeconds: true)]
        let instants = try history().compactMap { $0["scheduledAt"] as? String }.compactMap { text in
            styles.lazy.compactMap { try? Date(text, strategy: $0) }.first
        }
        return try #require(instants.max(), "\(name): no instant in its history").addingTimeInterval(60)
    }

    /// The authorizations as that version's `reveille auth list` printed them: app, answer.
    func authorizations() throws -> [String: String] {
        guard hasAuthorizations else { return [:] }
        let text = try String(contentsOf: file(".auth.txt"), encoding: .utf8)
        var answers: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count == 2 { answers[String(fields[0])] = String(fields[1]) }
        }
        return answers
    }
}

/// Every row of a table, each column's value as SQLite holds it, in id order.
private func rows(_ table: String, in url: URL) throws -> [[String: SQLiteValue]] {
    let db = try SQLiteConnection(path: url.path, readOnly: true, busyTimeout: .seconds(5))
    defer { try? db.close() }
    guard try !db.texts("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)]).isEmpty else { return [] }
    return try db.rows("SELECT * FROM \(table) ORDER BY \(table == "authorization" ? "app" : "id")").map { row in
        Dictionary(uniqueKeysWithValues: zip(row.names, row.values).map { ($0, $1) })
    }
}

/// The migrations a database holds, by name.
private func migrations(in url: URL) throws -> [String] {
    let db = try SQLiteConnection(path: url.path, readOnly: true, busyTimeout: .seconds(5))
    defer { try? db.close() }
    return try db.texts("SELECT identifier FROM grdb_migrations ORDER BY rowid")
}

@Suite("Store: databases made by earlier versions", .onItsOwnThread)
struct FrozenStoreTests {
    @Test(
        "Opened today, each is migrated to the newest version and keeps every alarm, history entry and authorization as that version stored them",
        arguments: FrozenStore.all)
    func opensMigratesAndKeepsEverything(_ frozen: FrozenStore) throws {
        let folder = Fixtures.temporaryDirectory("reveille-frozen-\(frozen.name)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent(AlarmStore.fileName)
        try FileManager.default.copyItem(at: frozen.file(".sqlite"), to: url)

        // What the earlier version wrote, read before today's code touches it.
        let names = StoreSchema.migrator.identifiers
        #expect(try migrations(in: url) == Array(names.prefix(frozen.version)), "\(frozen.name) holds migrations up to v\(frozen.version)")
        let before = try ["alarm", "history", "authorization"].map { try rows($0, in: url) }
        let listed = try frozen.listed()
        #expect(before[0].count == listed.count && listed.count >= 8, "every alarm it listed is a row")

        let store = try AlarmStore(directory: folder)
        #expect(store.recoveredFrom == nil, "opened as a healthy database, not moved aside")
        let alarms = try store.loadAlarms()
        let entries = try store.history()
        let authorizations = try store.authorizations()
        store.close()

        // Migrated to the newest version, every row and every value kept; new columns empty.
        #expect(try migrations(in: url) == names)
        let after = try ["alarm", "history", "authorization"].map { try rows($0, in: url) }
        for (table, (old, new)) in zip(["alarm", "history", "authorization"], zip(before, after)) {
            #expect(old.count == new.count, "\(table): \(old.count) rows before, \(new.count) after")
            for (oldRow, newRow) in zip(old, new) {
                for (column, value) in oldRow {
                    #expect(newRow[column] == value, "\(table).\(column) of \(oldRow["id"] ?? oldRow["app"] ?? .null)")
                }
                for (column, value) in newRow where oldRow[column] == nil { #expect(value == .null, "\(table).\(column), new, is empty") }
            }
        }

        // Read as today's agent reads them, as of when the earlier version listed them: each alarm
        // as that version listed it.
        let reading = ClockReading(
            now: try frozen.listedAround(), uptime: .seconds(1), bootID: "frozen-store-test", timeZone: Fixtures.zone("Europe/Berlin"))
        let shown = Dictionary(uniqueKeysWithValues: alarms.map { ($0.id.uuidString.lowercased(), AlarmDescription($0, at: reading)) })
        for old in listed {
            guard let now = shown[old.id] else {
                Issue.record("\(old.title) (\(old.id)) is gone")
                continue
            }
            #expect(
                now.state == old.state && now.kind == old.kind && now.title == old.title,
                "\(old.title): \(now.state) \(now.kind) \(now.title)")
            #expect(now.schedule == old.schedule, "\(old.title)'s schedule")
            #expect(now.countdown == old.countdown, "\(old.title)'s countdown")
            #expect(now.sound == old.sound, "\(old.title)'s sound")
            if old.state == "paused" { #expect(now.remaining == old.remaining, "\(old.title)'s time left") }
            if let volume = old.volume { #expect(now.volume == volume, "\(old.title)'s volume") }
            if let enabled = old.enabled { #expect(now.enabled == enabled, "\(old.title) on or off") }
            if let skipped = old.skipped { #expect(now.skipped == skipped, "\(old.title)'s skipped alert") }
        }
        let app = alarms.first { $0.id == UUID(uuidString: "6e0b6d2a-6d4f-4a55-8b0e-2a1c0c7d9e01") }
        #expect(app?.owner == "/usr/bin/python3.11", "the app's alarm is still the app's")
        #expect(Set(listed.map(\.state)) == ["scheduled", "countdown", "paused", "alerting"], "alarms in every state")

        // The history, entry for entry, as it was shown.
        let oldHistory = try frozen.history()
        #expect(entries.count == oldHistory.count)
        for old in oldHistory {
            let id = try #require((old["alarmID"] as? String).flatMap(UUID.init(uuidString:)))
            let title = old["title"] as? String
            let entry = entries.first { $0.alarmID == id && $0.title == title }
            #expect(entry != nil, "\(title ?? "?")'s history entry")
            let outcome = (old["outcome"] as? String).flatMap { $0 == "ringing" ? nil : $0 }
            #expect(entry?.outcome?.rawValue == outcome, "\(title ?? "?")'s outcome")
            #expect(entry?.count == old["count"] as? Int, "\(title ?? "?")'s count")
            if let phones = old["phonesRung"] as? [String] { #expect(entry?.phonesRung == phones, "\(title ?? "?")'s phones") }
        }
        #expect(
            Set(oldHistory.compactMap { $0["outcome"] as? String }).isSuperset(of: [
                "stopped", "snoozed", "timedOut", "cancelled", "missed",
            ]))

        // Its authorizations, as that version listed them.
        let answers = Dictionary(uniqueKeysWithValues: authorizations.map { ($0.app, $0.state.rawValue) })
        #expect(answers == (try frozen.authorizations()))

        // And today's store goes on with it: a change is stored and read back.
        let again = try AlarmStore(directory: folder)
        var changes = AlarmStore.Changes()
        changes.add([.delete(alarms[0].id)])
        try again.apply(changes)
        #expect(Set(try again.loadAlarms().map(\.id)) == Set(alarms.dropFirst().map(\.id)))
    }
}
