import AlarmModel
import AlarmRecords
import FoundationEssentials

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

    static func upsert(_ record: AlarmRecord, in db: SQLiteConnection) throws {
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
        let arguments: [SQLiteValue] = [
            .text(record.id.storeKey), .text(record.owner), .blob(DefinitionCoding.encode(record.definition)),
            .text(record.state.rawValue), .real(record.anchor.timeIntervalSinceReferenceDate), .real(alertAt),
            .text(countdownKind), .real(countdownDuration), .real(remaining), .real(scheduledAt), .real(startedAt),
            .text(deadline?.bootID), .integer(deadline?.uptime.nanoseconds),
            .real(deadline?.wallEstimate.timeIntervalSinceReferenceDate), .real(record.skippedAlert?.timeIntervalSinceReferenceDate),
        ]
        try db.execute(upsertSQL, arguments)
    }

    static func record(from row: SQLiteRow) throws -> AlarmRecord {
        let idText = row["id"].text ?? ""
        guard let id = UUID(text: idText) else { throw StoreError.unreadableRow("bad id \(idText)") }
        guard let definitionBytes = row["definition"].blob else {
            throw StoreError.unreadableRow("alarm \(idText) lacks its definition")
        }
        let definition = try DefinitionCoding.decode(Data(definitionBytes))
        let stateText = row["state"].text ?? ""
        guard let state = Alarm.State(rawValue: stateText) else {
            throw StoreError.unreadableRow("alarm \(idText) has unknown state \(stateText)")
        }
        func date(_ column: String) throws -> Date {
            guard let seconds = row[column].real else {
                throw StoreError.unreadableRow("alarm \(idText) in state \(stateText) lacks \(column)")
            }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        func deadline() -> ElapsedDeadline? {
            guard let bootID = row["deadlineBootID"].text, let uptime = row["deadlineUptimeNs"].integer,
                let wall = row["deadlineWall"].real
            else { return nil }
            return ElapsedDeadline(bootID: bootID, uptime: .nanoseconds(uptime), wallEstimate: Date(timeIntervalSinceReferenceDate: wall))
        }
        func kind() throws -> AlarmRecord.CountdownPhase {
            guard let text = row["countdownKind"].text, let kind = AlarmRecord.CountdownPhase(rawValue: text) else {
                throw StoreError.unreadableRow("alarm \(idText) lacks its countdown kind")
            }
            return kind
        }
        let phase: AlarmRecord.Phase
        switch state {
        case .scheduled:
            phase = .scheduled(alertAt: try date("alertAt"))
        case .countdown:
            guard let endsAt = deadline(), let duration = row["countdownDuration"].real else {
                throw StoreError.unreadableRow("alarm \(idText) lacks its countdown end")
            }
            phase = .countdown(.init(kind: try kind(), endsAt: endsAt, duration: duration))
        case .paused:
            guard let remaining = row["remaining"].real, let duration = row["countdownDuration"].real else {
                throw StoreError.unreadableRow("alarm \(idText) lacks its paused time")
            }
            phase = .paused(.init(kind: try kind(), remaining: remaining, duration: duration))
        case .alerting:
            phase = .alerting(.init(scheduledAt: try date("scheduledAt"), startedAt: try date("startedAt"), timesOutAt: deadline()))
        }
        guard let owner = row["owner"].text else { throw StoreError.unreadableRow("alarm \(idText) lacks its owner") }
        let skipped = row["skippedAt"].real
        return AlarmRecord(
            id: id, owner: owner, definition: definition, phase: phase, anchor: try date("anchor"),
            skippedAlert: skipped.map(Date.init(timeIntervalSinceReferenceDate:)))
    }
}

/// How alert history maps to the `history` table.
enum HistoryRow {
    static func apply(_ change: AlarmStateMachine.HistoryChange, in db: SQLiteConnection) throws {
        switch change {
        case .alertStarted(let entry), .missed(let entry):
            try db.execute(
                """
                INSERT INTO history (alarmID, title, scheduledAt, alertedAt, endedAt, outcome, count)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(entry.alarmID.storeKey), .text(entry.title), .real(entry.scheduledAt.timeIntervalSinceReferenceDate),
                    .real(entry.alertedAt?.timeIntervalSinceReferenceDate), .real(entry.endedAt?.timeIntervalSinceReferenceDate),
                    .text(entry.outcome?.rawValue), .integer(Int64(entry.count)),
                ])
        case .alertEnded(let alarmID, let outcome, let at):
            try db.execute(
                "UPDATE history SET outcome = ?, endedAt = ? WHERE alarmID = ? AND outcome IS NULL",
                [.text(outcome.rawValue), .real(at.timeIntervalSinceReferenceDate), .text(alarmID.storeKey)])
        case .phonesRung(let alarmID, let phones):
            // The alarm's latest alert that rang, even if it was answered while the phones rang.
            try db.execute(
                """
                UPDATE history SET phones = ? WHERE id =
                    (SELECT MAX(id) FROM history WHERE alarmID = ? AND alertedAt IS NOT NULL)
                """,
                [.text(phonesText(phones)), .text(alarmID.storeKey)])
        }
    }

    /// The phones as the `phones` column keeps them: a JSON array of names.
    static func phonesText(_ phones: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(phones)) ?? Data("[]".utf8), as: UTF8.self)
    }

    static func entry(from row: SQLiteRow) throws -> AlertHistoryEntry {
        let idText = row["alarmID"].text ?? ""
        guard let id = UUID(text: idText) else { throw StoreError.unreadableRow("bad history id \(idText)") }
        guard let title = row["title"].text, let scheduledAt = row["scheduledAt"].real, let count = row["count"].integer else {
            throw StoreError.unreadableRow("history of \(idText) lacks its title, time or count")
        }
        return AlertHistoryEntry(
            alarmID: id, title: title, scheduledAt: Date(timeIntervalSinceReferenceDate: scheduledAt),
            alertedAt: row["alertedAt"].real.map(Date.init(timeIntervalSinceReferenceDate:)),
            endedAt: row["endedAt"].real.map(Date.init(timeIntervalSinceReferenceDate:)),
            outcome: row["outcome"].text.flatMap(AlertOutcome.init(rawValue:)), count: Int(count),
            phonesRung: row["phones"].text.flatMap(phones(fromText:)))
    }

    /// The phones the `phones` column names (`phonesText(_:)`'s JSON array); `nil` when unreadable.
    static func phones(fromText text: String) -> [String]? {
        try? JSONDecoder().decode([String].self, from: Data(text.utf8))
    }
}
