import AlarmModel
import AlarmRecords
import FoundationEssentials
import LinuxSystem
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The durable store of alarms and alert history: one SQLite database.
///
/// Every change is one transaction, committed (WAL, `synchronous = FULL`) before the call returns,
/// so what the engine acknowledges survives `kill -9` and power loss alike. A database that cannot
/// be opened or fails its integrity check is moved aside with a timestamp and a new one is created.
///
/// A database in a folder that cannot be written (a read-only mount, an immutable folder) is
/// opened read-only: it is read as it is, and every change is refused with `StoreError.readOnly`.
package final class AlarmStore: Sendable {
    /// The database file.
    package let databaseURL: URL
    /// Set when the previous database could not be used and was moved aside: its new path.
    package let recoveredFrom: URL?
    /// Why the store was opened read-only (what cannot be written, and the system's error), or
    /// `nil` when changes are stored.
    package let readOnlyReason: String?
    private let queue: SQLiteDatabase
    /// The log's length, followed when checkpoints are `.deferred`.
    private let log: WriteAheadLog?
    private let faultInjector: FaultInjector?
    /// The private folder a read-only store reads copies from (see `openReadOnly`), removed with
    /// the store.
    private let readOnlyCopies: URL?

    /// A hook the tests use to stop a transaction between two writes (with a crash, or an error).
    ///
    /// It is called with the number of statements written so far in the current transaction.
    package typealias FaultInjector = @Sendable (_ statementsWritten: Int) throws -> Void

    /// The name of the database file inside the store's folder.
    package static let fileName = "alarms.sqlite"

    /// Whether other connections may open the database while a store has it open.
    package enum Sharing: Sendable {
        /// Others may read and write alongside: the write-ahead log's index is the memory-mapped
        /// `-shm` file.
        case shared
        /// This store alone (`PRAGMA locking_mode = EXCLUSIVE`, before the first access): the log's
        /// index lives in this process's memory and there is no `-shm`, so a write the file system
        /// refuses (a folder made immutable under the running agent) is an error, not a SIGBUS.
        case exclusive
    }

    /// When the write-ahead log is folded back into the database (a checkpoint).
    package enum Checkpoints: Sendable {
        /// By SQLite, inside the commit that takes the log past 1,000 pages: that commit, and every
        /// call waiting on it, waits for the copy and its `fsync`s.
        case automatic
        /// When the owner calls ``AlarmStore/checkpoint()``, at a quiet moment. A commit checkpoints
        /// only once the log passes ``AlarmStore/forcedCheckpointFrames`` pages, so that it stays
        /// bounded under changes that never pause.
        case deferred
    }

    /// The log's length, in pages, past which a commit checkpoints even when checkpoints are
    /// `.deferred`: 8,192 pages, 32 MiB.
    package static let forcedCheckpointFrames = 8_192

    /// Opens (or creates) the store in `directory`, creating the folder with mode 0700 and the
    /// database with mode 0600.
    ///
    /// A file that is not a database, or a database SQLite reports as corrupt or that fails
    /// `PRAGMA quick_check`, is moved aside as `alarms.sqlite.corrupt-<timestamp>` (with its `-wal`
    /// and `-shm`), logged as critical, and replaced by a new, empty one. Any other failure (no
    /// permission, a full disk, a lock held too long) throws: those alarms are not damaged, and
    /// setting them aside would hide them from the person.
    ///
    /// When the folder, the database or its `-wal` or `-shm` cannot be written and the database
    /// exists, it is opened read-only (`readOnlyReason` says why): nothing in the folder is
    /// created, changed or moved, and damage or an old schema throws instead of being repaired.
    /// `sharing` says whether other connections may open the database alongside (see ``Sharing``),
    /// `checkpoints` who folds the write-ahead log back into it, and when (see ``Checkpoints``).
    package init(
        directory: URL, logger: Logger = Logger(label: "reveille.store"), faultInjector: FaultInjector? = nil,
        sharing: Sharing = .shared, checkpoints: Checkpoints = .automatic
    ) throws {
        let url = directory.appendingPathComponent(Self.fileName)
        self.databaseURL = url
        self.faultInjector = faultInjector
        if FileManager.default.fileExists(atPath: url.path), let reason = Self.unwritable(directory: directory, database: url) {
            (self.queue, self.readOnlyCopies) = try Self.openReadOnly(url)
            self.log = nil
            self.recoveredFrom = nil
            self.readOnlyReason = reason
            return
        }
        let log = checkpoints == .deferred ? WriteAheadLog(forcedCheckpointFrames: Self.forcedCheckpointFrames) : nil
        self.log = log
        self.readOnlyCopies = nil
        self.readOnlyReason = nil
        try Self.makePrivateDirectory(directory)
        do {
            self.queue = try Self.open(url, sharing: sharing, log: log)
            self.recoveredFrom = nil
        } catch  where Self.isDamage(error) {
            let aside = Self.asideURL(for: url)
            logger.critical(
                "The alarm database could not be used; moving it aside and starting a new one",
                metadata: ["path": "\(url.path)", "movedTo": "\(aside.path)", "error": "\(error)"])
            for suffix in ["", "-wal", "-shm"] {
                let from = URL(fileURLWithPath: url.path + suffix)
                if FileManager.default.fileExists(atPath: from.path) {
                    try FileManager.default.moveItem(at: from, to: URL(fileURLWithPath: aside.path + suffix))
                }
            }
            self.queue = try Self.open(url, sharing: sharing, log: log)
            self.recoveredFrom = aside
        }
    }

    /// The default folder: `$XDG_DATA_HOME/reveille`, or `~/.local/share/reveille`.
    package static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            return URL(fileURLWithPath: dataHome).appendingPathComponent("reveille")
        }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home).appendingPathComponent(".local/share/reveille")
    }

    // MARK: - Reading

    /// Every stored alarm.
    package func loadAlarms() throws -> [AlarmRecord] {
        try queue.withConnection { db in
            try db.rows("SELECT * FROM alarm").map(AlarmRow.record(from:))
        }
    }

    /// The alert history, newest first, at most `limit` entries.
    package func history(limit: Int = 1_000) throws -> [AlertHistoryEntry] {
        try queue.withConnection { db in
            try db.rows("SELECT * FROM history ORDER BY scheduledAt DESC, rowid DESC LIMIT ?", [.integer(Int64(limit))])
                .map(HistoryRow.entry(from:))
        }
    }

    /// The phones the phone backup rang for the alert of `alarmID` that began at `alertedAt` (none
    /// reachable: empty), or `nil` when its history says of no ring (or there is no such alert).
    package func phonesRung(alarmID: UUID, alertedAt: Date) throws -> [String]? {
        try queue.withConnection { db in
            let phones = try db.rows(
                """
                SELECT phones FROM history WHERE alarmID = ? AND alertedAt BETWEEN ? AND ?
                ORDER BY id DESC LIMIT 1
                """,
                [
                    .text(alarmID.storeKey), .real(alertedAt.timeIntervalSinceReferenceDate - 0.001),
                    .real(alertedAt.timeIntervalSinceReferenceDate + 0.001),
                ]
            ).first?["phones"].text
            return phones.flatMap(HistoryRow.phones(fromText:))
        }
    }

    // MARK: - Authorizations

    /// Every app the person has answered about, by app id.
    package func authorizations() throws -> [AppAuthorization] {
        try queue.withConnection { db in
            try db.rows("SELECT * FROM authorization ORDER BY app").compactMap { row in
                guard let app = row["app"].text, let decidedAt = row["decidedAt"].real,
                    let state = row["state"].text.flatMap(AlarmManager.AuthorizationState.init(rawValue:))
                else { return nil }
                return AppAuthorization(app: app, state: state, decidedAt: Date(timeIntervalSinceReferenceDate: decidedAt))
            }
        }
    }

    /// Stores the person's answer about an app; `.notDetermined` forgets it.
    package func setAuthorization(_ state: AlarmManager.AuthorizationState, for app: String, at date: Date) throws {
        try refuseWhenReadOnly()
        try queue.write { db in
            if state == .notDetermined {
                try db.execute("DELETE FROM authorization WHERE app = ?", [.text(app)])
            } else {
                try db.execute(
                    "INSERT OR REPLACE INTO authorization (app, state, decidedAt) VALUES (?, ?, ?)",
                    [.text(app), .text(state.rawValue), .real(date.timeIntervalSinceReferenceDate)])
            }
        }
    }

    // MARK: - Writing

    /// The writes of one transition (or of several, applied together).
    package struct Changes: Sendable {
        /// Records to insert or replace.
        package var upserts: [AlarmRecord] = []
        /// Alarms to remove.
        package var deletions: [UUID] = []
        /// History changes, in order.
        package var history: [AlarmStateMachine.HistoryChange] = []

        /// Creates an empty set of changes.
        package init() {}

        /// Whether there is nothing to write.
        package var isEmpty: Bool { upserts.isEmpty && deletions.isEmpty && history.isEmpty }

        /// Adds the durable actions among `actions`, in order.
        package mutating func add(_ actions: [AlarmStateMachine.Action]) {
            for action in actions {
                switch action {
                case .store(let record):
                    deletions.removeAll { $0 == record.id }
                    upserts.removeAll { $0.id == record.id }
                    upserts.append(record)
                case .delete(let id):
                    upserts.removeAll { $0.id == id }
                    deletions.append(id)
                case .recordHistory(let change):
                    history.append(change)
                default:
                    break
                }
            }
        }
    }

    /// Writes the changes in one transaction; when this returns, they are on disk.
    package func apply(_ changes: Changes) throws {
        guard !changes.isEmpty else { return }
        try refuseWhenReadOnly()
        try queue.write { db in
            var written = 0
            for id in changes.deletions {
                try db.execute("DELETE FROM alarm WHERE id = ?", [.text(id.storeKey)])
                try self.wrote(&written)
            }
            for record in changes.upserts {
                try AlarmRow.upsert(record, in: db)
                try self.wrote(&written)
            }
            for change in changes.history {
                try HistoryRow.apply(change, in: db)
                try self.wrote(&written)
            }
        }
    }

    /// How many pages of changes the write-ahead log holds that are not yet in the database, when
    /// checkpoints are `.deferred`; `nil` otherwise (SQLite keeps the log short by itself).
    package var pendingLogFrames: Int? { log?.frames.load(ordering: .relaxed) }

    /// Calls `observer` after each commit that leaves changes in the write-ahead log for the owner
    /// to fold in, on the committing thread: it must be quick. Only a store with `.deferred`
    /// checkpoints has such commits; it replaces any earlier observer.
    package func onLogGrowth(_ observer: @escaping @Sendable () -> Void) {
        log?.observer.set(observer)
    }

    /// Folds the write-ahead log back into the database and empties it
    /// (`PRAGMA wal_checkpoint(TRUNCATE)`): what a store with `.deferred` checkpoints needs at a
    /// quiet moment. Takes as long as copying the log's pages and two `fsync`s; changes wait
    /// meanwhile. Does nothing when the log is empty.
    package func checkpoint() throws {
        try refuseWhenReadOnly()
        guard pendingLogFrames != 0 else { return }
        try queue.withConnection { db in
            let (logged, copied) = try db.checkpoint(.truncate)
            log?.frames.store(logged == copied ? 0 : logged, ordering: .relaxed)
        }
    }

    /// Closes the database (SQLite folds the write-ahead log back into it and removes the log);
    /// every later call throws. Everything was already stored.
    package func close() {
        do {
            try queue.close()
        } catch {
            // Still open: it is closed when the process ends, and the log is replayed on the next open.
        }
    }

    private func refuseWhenReadOnly() throws {
        if let readOnlyReason { throw StoreError.readOnly(readOnlyReason) }
    }

    private func wrote(_ count: inout Int) throws {
        count += 1
        try faultInjector?(count)
    }

    // MARK: - Opening

    private static func open(_ url: URL, sharing: Sharing, log: WriteAheadLog?) throws -> SQLiteDatabase {
        if !FileManager.default.fileExists(atPath: url.path) {
            guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
            else { throw StoreError.cannotCreate(url.path) }
        }
        // Before SQLite opens it: the -wal and -shm it creates take the database file's mode.
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path + suffix)
        }
        let queue = try SQLiteDatabase(path: url.path) { db in
            if sharing == .exclusive { try db.execute(script: "PRAGMA locking_mode = EXCLUSIVE") }
            try db.execute(script: "PRAGMA synchronous = FULL")
            log?.install(on: db)
        }
        try queue.withConnection { db in
            let mode = try db.texts("PRAGMA journal_mode = WAL").first
            guard mode?.lowercased() == "wal" else { throw StoreError.cannotUseWAL(mode ?? "none") }
            let check = try db.texts("PRAGMA quick_check")
            guard check == ["ok"] else { throw StoreError.integrityCheckFailed(check.joined(separator: "; ")) }
            try StoreSchema.migrator.migrate(db)
        }
        return queue
    }

    /// What of the store cannot be written, and why (`access(2)` with `W_OK`: `EROFS` on a read-only
    /// mount, `EPERM` for an immutable file, `EACCES` without permission); `nil` when all can be.
    private static func unwritable(directory: URL, database: URL) -> String? {
        for path in [directory.path, database.path, database.path + "-wal", database.path + "-shm"] {
            guard path == directory.path || FileManager.default.fileExists(atPath: path) else { continue }
            do {
                try FileSystem.checkAccess(path, .write)
            } catch {
                return "\(path): \(error)"
            }
        }
        return nil
    }

    /// Opens the database without writing anything: with SQLite's `mode=ro` when a write-ahead
    /// log with content is beside it (its `-shm` is read, or rebuilt in memory), else
    /// `immutable=1`, which reads the file alone and needs no `-shm`. Throws when it is damaged
    /// or its schema is older than this program's (an upgrade would need writing).
    ///
    /// A log without a `-shm` (an exclusive store that was killed) cannot be read where no `-shm`
    /// may be made: the database and its log are then copied to a private temporary folder, read
    /// there, and the folder is returned for removal.
    private static func openReadOnly(_ url: URL) throws -> (SQLiteDatabase, copies: URL?) {
        let walSize = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal"))?.fileSize ?? 0
        var path = url.path
        var copies: URL?
        do {
            if walSize > 0 && !FileManager.default.fileExists(atPath: url.path + "-shm") {
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-store-\(UUID().uuidString)")
                copies = folder
                try makePrivateDirectory(folder)
                path = folder.appendingPathComponent(fileName).path
                for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: url.path + suffix, toPath: path + suffix) }
            }
            let queue = try SQLiteDatabase(path: sqliteURI(path, parameter: walSize > 0 ? "mode=ro" : "immutable=1"), readOnly: true)
            try queue.withConnection { db in
                let check = try db.texts("PRAGMA quick_check")
                guard check == ["ok"] else { throw StoreError.integrityCheckFailed(check.joined(separator: "; ")) }
                guard try StoreSchema.migrator.hasCompletedMigrations(db) else { throw StoreError.schemaNeedsUpgrade }
            }
            return (queue, copies)
        } catch {
            if let copies { try? FileManager.default.removeItem(at: copies) }
            throw error
        }
    }

    deinit {
        if let readOnlyCopies { try? FileManager.default.removeItem(at: readOnlyCopies) }
    }

    /// A `file:` URI naming `path`, with the characters a URI gives meaning to escaped.
    private static func sqliteURI(_ path: String, parameter: String) -> String {
        var escaped = ""
        for character in path.unicodeScalars {
            switch character {
            // Each is two hex digits: `%25`, `%3F`, `%23`.
            case "%", "?", "#": escaped += "%" + String(character.value, radix: 16, uppercase: true)
            default: escaped.unicodeScalars.append(character)
            }
        }
        return "file:\(escaped)?\(parameter)"
    }

    /// Whether an error opening the database means the file itself is damaged.
    private static func isDamage(_ error: any Error) -> Bool {
        if case StoreError.integrityCheckFailed = error { return true }
        return (error as? SQLiteError)?.isDamage == true
    }

    private static func makePrivateDirectory(_ directory: URL) throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
    }

    /// `alarms.sqlite.corrupt-<timestamp>`, or with `-2`, `-3`… added when an earlier copy moved
    /// aside in the same second has that name, so no damaged copy is ever overwritten or refused.
    private static func asideURL(for url: URL) -> URL {
        let base = url.path + ".corrupt-" + timestamp()
        var candidate = base
        var number = 1
        while ["", "-wal", "-shm"].contains(where: { FileManager.default.fileExists(atPath: candidate + $0) }) {
            number += 1
            candidate = "\(base)-\(number)"
        }
        return URL(fileURLWithPath: candidate)
    }

    /// Now in UTC, as `20261201T073000Z` (ISO 8601's basic format).
    private static func timestamp() -> String {
        Date().formatted(.iso8601.dateSeparator(.omitted).timeSeparator(.omitted))
    }
}

/// Why the store could not do what was asked.
package enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The database file could not be created.
    case cannotCreate(String)
    /// SQLite would not switch the database to write-ahead logging.
    case cannotUseWAL(String)
    /// `PRAGMA quick_check` found damage.
    case integrityCheckFailed(String)
    /// A stored row could not be read back.
    case unreadableRow(String)
    /// The store was opened read-only: what cannot be written, and why.
    case readOnly(String)
    /// The database's schema is older than this program's, and the store is read-only.
    case schemaNeedsUpgrade

    /// A sentence for the log.
    package var description: String {
        switch self {
        case .cannotCreate(let path): "cannot create the database file \(path)"
        case .cannotUseWAL(let mode): "the database refused write-ahead logging (journal mode \(mode))"
        case .integrityCheckFailed(let report): "the database failed its integrity check: \(report)"
        case .unreadableRow(let reason): "a stored alarm could not be read: \(reason)"
        case .readOnly(let reason): "the alarm store is read-only (\(reason))"
        case .schemaNeedsUpgrade: "the database was written by an older version and needs an upgrade, which needs writing"
        }
    }
}

extension UUID {
    /// The form ids take in the store: lowercase with dashes.
    var storeKey: String { lowercasedText() }
}
