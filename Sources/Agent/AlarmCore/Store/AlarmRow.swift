import AlarmModel
import AlarmRecords
import Foundation
import GRDB

/// How an `AlarmRecord` maps to a row of the `alarm` table.
///
/// The configuration is stored in `DefinitionCoding`'s binary form; the state and its instants have
/// columns of their own.
enum AlarmRow {
    /// The statement that stores a record whole, every column given so the text never changes
    /// and SQLite compiles it once per connection.
    private static let upsertSQL = """
        INSERT OR REPLACE INTO alarm (id, owner, definition, state, anchor, alertAt, countdownKind,
            countdownDuration, remaining, scheduledAt, startedAt, deadlineBootID, deadlineUptimeNs, deadlineWall,
            skippedAt)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    static func upsert(_ record: AlarmRecord, in db: Database) throws {
        var alertAt: Double?, countdownKind: String?, countdownDuration: Double?, remaining: Double?
        var scheduledAt: Double?, startedAt: Double?, deadline: ElapsedDeadline?
        switch record.phase {
        case .scheduled(let at):
            alertAt = at.timeIntervalSinceReferenceDate
        case .countdown(let countdown):
            countdownKind = countdown.kind.rawValue
            countdownDuration = countdown.duration
            deadline = countdown.endsAt
        case .paused(let paused):
            countdownKind = paused.kind.rawValue
            countdownDuration = paused.duration
            remaining = paused.remaining
        case .alerting(let ringing):
            scheduledAt = ringing.scheduledAt.timeIntervalSinceReferenceDate
            startedAt = ringing.startedAt.timeIntervalSinceReferenceDate
            deadline = ringing.timesOutAt
        }
        let arguments: StatementArguments = [
            record.id.storeKey, record.owner, DefinitionCoding.encode(record.definition), record.state.rawValue,
            record.anchor.timeIntervalSinceReferenceDate, alertAt, countdownKind, countdownDuration, remaining,
            scheduledAt, startedAt, deadline?.bootID, deadline?.uptime.nanoseconds,
            deadline?.wallEstimate.timeIntervalSinceReferenceDate, record.skippedAlert?.timeIntervalSinceReferenceDate,
        ]
        try db.cachedStatement(sql: upsertSQL).execute(arguments: arguments)
    }

    static func record(from row: Row) throws -> AlarmRecord {
        let idText: String = row["id"]
        guard let id = UUID(text: idText) else { throw StoreError.unreadableRow("bad id \(idText)") }
        let definition = try DefinitionCoding.decode(row["definition"])
        let stateText: String = row["state"]
        guard let state = Alarm.State(rawValue: stateText) else {
            throw StoreError.unreadableRow("alarm \(idText) has unknown state \(stateText)")
        }
        func date(_ column: String) throws -> Date {
            guard let seconds: Double = row[column] else {
                throw StoreError.unreadableRow("alarm \(idText) in state \(stateText) lacks \(column)")
            }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        func deadline() -> ElapsedDeadline? {
            guard let bootID: String = row["deadlineBootID"], let uptime: Int64 = row["deadlineUptimeNs"],
                let wall: Double = row["deadlineWall"]
            else { return nil }
            return ElapsedDeadline(bootID: bootID, uptime: .nanoseconds(uptime), wallEstimate: Date(timeIntervalSinceReferenceDate: wall))
        }
        func kind() throws -> AlarmRecord.CountdownPhase {
            guard let text: String = row["countdownKind"], let kind = AlarmRecord.CountdownPhase(rawValue: text) else {
                throw StoreError.unreadableRow("alarm \(idText) lacks its countdown kind")
            }
            return kind
        }
        let phase: AlarmRecord.Phase
        switch state {
        case .scheduled:
            phase = .scheduled(alertAt: try date("alertAt"))
        case .countdown:
            guard let endsAt = deadline(), let duration: Double = row["countdownDuration"] else {
                throw StoreError.unreadableRow("alarm \(idText) lacks its countdown end")
            }
            phase = .countdown(.init(kind: try kind(), endsAt: endsAt, duration: duration))
        case .paused:
            guard let remaining: Double = row["remaining"], let duration: Double = row["countdownDuration"] else {
                throw StoreError.unreadableRow("alarm \(idText) lacks its paused time")
            }
            phase = .paused(.init(kind: try kind(), remaining: remaining, duration: duration))
        case .alerting:
            phase = .alerting(.init(scheduledAt: try date("scheduledAt"), startedAt: try date("startedAt"), timesOutAt: deadline()))
        }
        let skipped: Double? = row["skippedAt"]
        return AlarmRecord(
            id: id, owner: row["owner"], definition: definition, phase: phase, anchor: try date("anchor"),
            skippedAlert: skipped.map(Date.init(timeIntervalSinceReferenceDate:)))
    }
}

/// How alert history maps to the `history` table.
enum HistoryRow {
    static func apply(_ change: AlarmStateMachine.HistoryChange, in db: Database) throws {
        switch change {
        case .alertStarted(let entry), .missed(let entry):
            try db.cachedStatement(
                sql: """
                    INSERT INTO history (alarmID, title, scheduledAt, alertedAt, endedAt, outcome, count)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(
                arguments: [
                    entry.alarmID.storeKey, entry.title, entry.scheduledAt.timeIntervalSinceReferenceDate,
                    entry.alertedAt?.timeIntervalSinceReferenceDate, entry.endedAt?.timeIntervalSinceReferenceDate,
                    entry.outcome?.rawValue, entry.count,
                ])
        case .alertEnded(let alarmID, let outcome, let at):
            try db.cachedStatement(sql: "UPDATE history SET outcome = ?, endedAt = ? WHERE alarmID = ? AND outcome IS NULL").execute(
                arguments: [outcome.rawValue, at.timeIntervalSinceReferenceDate, alarmID.storeKey])
        case .phonesRung(let alarmID, let phones):
            // The alarm's latest alert that rang, even if it was answered while the phones rang.
            try db.cachedStatement(
                sql: """
                    UPDATE history SET phones = ? WHERE id =
                        (SELECT MAX(id) FROM history WHERE alarmID = ? AND alertedAt IS NOT NULL)
                    """
            ).execute(arguments: [phonesText(phones), alarmID.storeKey])
        }
    }

    /// The phones as the `phones` column keeps them: a JSON array of names.
    static func phonesText(_ phones: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(phones)) ?? Data("[]".utf8), as: UTF8.self)
    }

    static func entry(from row: Row) throws -> AlertHistoryEntry {
        let idText: String = row["alarmID"]
        guard let id = UUID(text: idText) else { throw StoreError.unreadableRow("bad history id \(idText)") }
        let alerted: Double? = row["alertedAt"]
        let ended: Double? = row["endedAt"]
        let outcome: String? = row["outcome"]
        let phones: String? = row["phones"]
        return AlertHistoryEntry(
            alarmID: id, title: row["title"], scheduledAt: Date(timeIntervalSinceReferenceDate: row["scheduledAt"]),
            alertedAt: alerted.map(Date.init(timeIntervalSinceReferenceDate:)),
            endedAt: ended.map(Date.init(timeIntervalSinceReferenceDate:)),
            outcome: outcome.flatMap(AlertOutcome.init(rawValue:)), count: row["count"],
            phonesRung: phones.flatMap(phones(fromText:)))
    }

    /// The phones the `phones` column names (`phonesText(_:)`'s JSON array); `nil` when unreadable.
    static func phones(fromText text: String) -> [String]? {
        try? JSONDecoder().decode([String].self, from: Data(text.utf8))
    }
}
