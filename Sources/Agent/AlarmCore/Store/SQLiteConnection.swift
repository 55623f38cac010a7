import AlarmModel
import CSQLite
import FoundationEssentials

/// One open SQLite connection: statements run on it, each prepared once and kept.
///
/// A thin layer over the C calls (`sqlite3_open_v2`, `sqlite3_prepare_v2`, `sqlite3_step`…), with
/// SQLite's errors as `SQLiteError`. It is not thread-safe by itself: `SQLiteDatabase` owns it and
/// lets one caller at a time use it.
final class SQLiteConnection {
    /// The C connection, for the calls this type does not wrap (the write-ahead-log hook).
    let handle: OpaquePointer
    /// Statements prepared so far, by their SQL.
    private var statements: [String: OpaquePointer] = [:]
    /// Whether `close()` closed it.
    private var isClosed = false

    /// Opens the database at `path` (a file name, or a `file:` URI): read-write, created when
    /// missing, or read-only. Extended result codes are on, and a locked database is waited for
    /// up to `busyTimeout`.
    init(path: String, readOnly: Bool, busyTimeout: Duration) throws(SQLiteError) {
        var connection: OpaquePointer?
        let access = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        // The connection is used by one thread at a time (SQLiteDatabase's lock): no mutex of SQLite's.
        let flags = access | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let error = SQLiteError(code: code, connection: connection, sql: nil)
            // A connection that failed to open is closed all the same (sqlite3_open_v2's documentation).
            sqlite3_close(connection)
            throw error
        }
        handle = connection
        let milliseconds = busyTimeout.components.seconds * 1_000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(handle, Int32(clamping: milliseconds))
    }

    deinit {
        guard !isClosed else { return }
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Closes the connection, finishing its statements. SQLite folds a write-ahead log back into
    /// the database and removes it when the last connection closes.
    func close() throws(SQLiteError) {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements = [:]
        let code = sqlite3_close(handle)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: handle, sql: nil) }
        isClosed = true
    }

    // MARK: Running SQL

    /// Runs every statement of `sql` in turn (a migration's several statements, a `PRAGMA`),
    /// without arguments, and drops any rows they return.
    func execute(script sql: String) throws(SQLiteError) {
        var failure: SQLiteError?
        sql.withCString { text in
            var rest: UnsafePointer<CChar>? = text
            while let start = rest, start.pointee != 0 {
                var statement: OpaquePointer?
                let code = sqlite3_prepare_v2(handle, start, -1, &statement, &rest)
                guard code == SQLITE_OK else {
                    failure = SQLiteError(code: code, connection: handle, sql: sql)
                    return
                }
                // Only white space or a comment left: nothing was prepared.
                guard let statement else { continue }
                defer { sqlite3_finalize(statement) }
                while true {
                    let step = sqlite3_step(statement)
                    if step == SQLITE_ROW { continue }
                    if step != SQLITE_DONE { failure = SQLiteError(code: step, connection: handle, sql: sql) }
                    break
                }
                if failure != nil { return }
            }
        }
        if let failure { throw failure }
    }

    /// Runs one statement with `arguments` bound to its `?` in order, and drops any rows.
    func execute(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) {
        try run(sql, arguments) { _ in }
    }

    /// The rows one statement returns, with `arguments` bound to its `?` in order.
    func rows(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) -> [SQLiteRow] {
        var rows: [SQLiteRow] = []
        try run(sql, arguments) { statement in rows.append(SQLiteRow(statement)) }
        return rows
    }

    /// The first column of the rows a statement returns, as text (`PRAGMA quick_check`'s lines).
    func texts(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) -> [String] {
        try rows(sql, arguments).map { $0.values.first?.text ?? "" }
    }

    /// Runs a statement (prepared the first time, then kept), calling `row` for each row.
    private func run(_ sql: String, _ arguments: [SQLiteValue], row: (OpaquePointer) -> Void) throws(SQLiteError) {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, value) in arguments.enumerated() {
            let code = value.bind(to: statement, at: Int32(index + 1))
            guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: handle, sql: sql) }
        }
        while true {
            let code = sqlite3_step(statement)
            switch code {
            case SQLITE_ROW: row(statement)
            case SQLITE_DONE: return
            default: throw SQLiteError(code: code, connection: handle, sql: sql)
            }
        }
    }

    private func prepared(_ sql: String) throws(SQLiteError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw SQLiteError(code: code, connection: handle, sql: sql) }
        statements[sql] = statement
        return statement
    }

    // MARK: Transactions

    /// Runs `body` in a transaction that takes the write lock at once (`BEGIN IMMEDIATE`): committed
    /// when it returns, rolled back when it throws (that error is thrown, not a failed rollback's).
    func inTransaction<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE TRANSACTION")
        let result: T
        do {
            result = try body(self)
            try execute("COMMIT TRANSACTION")
        } catch {
            // A failed COMMIT may leave the transaction open (SQLITE_BUSY); an aborted one is gone.
            if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK TRANSACTION") }
            throw error
        }
        return result
    }

    /// How a checkpoint folds the write-ahead log back into the database.
    enum CheckpointMode {
        /// Copies what it can without waiting for readers or writers.
        case passive
        /// Copies everything, waiting as needed, and then empties the log file.
        case truncate

        var code: Int32 {
            switch self {
            case .passive: SQLITE_CHECKPOINT_PASSIVE
            case .truncate: SQLITE_CHECKPOINT_TRUNCATE
            }
        }
    }

    /// Folds the write-ahead log back into the database (`sqlite3_wal_checkpoint_v2`): the log's
    /// length in pages, and how many of them are now in the database.
    func checkpoint(_ mode: CheckpointMode) throws(SQLiteError) -> (logged: Int, copied: Int) {
        var logged: Int32 = 0
        var copied: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(handle, nil, mode.code, &logged, &copied)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: handle, sql: nil) }
        return (Int(logged), Int(copied))
    }
}

/// A value SQLite stores: one of its five storage classes.
enum SQLiteValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// Text, or `null` for `nil`.
    static func text(_ value: String?) -> SQLiteValue { value.map(SQLiteValue.text) ?? .null }
    /// A real number, or `null` for `nil`.
    static func real(_ value: Double?) -> SQLiteValue { value.map(SQLiteValue.real) ?? .null }
    /// An integer, or `null` for `nil`.
    static func integer(_ value: Int64?) -> SQLiteValue { value.map(SQLiteValue.integer) ?? .null }
    /// Bytes.
    static func blob(_ data: Data) -> SQLiteValue { .blob(Array(data)) }

    /// The value as text, when it is text.
    var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// The value as a real number, when it is a number (an integer stored in a `REAL` column reads
    /// as one too).
    var real: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    /// The value as an integer, when it is one.
    var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The value as bytes, when it is a blob (or text).
    var blob: [UInt8]? {
        switch self {
        case .blob(let bytes): bytes
        case .text(let text): Array(text.utf8)
        default: nil
        }
    }

    /// Binds the value to parameter `index` (from 1) of a statement.
    fileprivate func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch self {
        case .null:
            return sqlite3_bind_null(statement, index)
        case .integer(let value):
            return sqlite3_bind_int64(statement, index, value)
        case .real(let value):
            return sqlite3_bind_double(statement, index, value)
        case .text(let text):
            // SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.
            return sqlite3_bind_text(statement, index, text, -1, SQLiteValue.transient)
        case .blob(let bytes):
            return bytes.withUnsafeBytes { buffer in
                // A zero-length blob is bound as such, not as NULL.
                sqlite3_bind_blob(
                    statement, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), SQLiteValue.transient)
            }
        }
    }

    /// SQLite's `SQLITE_TRANSIENT` destructor: copy the bytes now.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// The value of column `index` of the statement's current row.
    fileprivate init(_ statement: OpaquePointer, column index: Int32) {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER:
            self = .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT:
            self = .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, index))
            let bytes = sqlite3_column_text(statement, index)
            self = .text(bytes.map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) } ?? "")
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            let bytes = sqlite3_column_blob(statement, index)?.assumingMemoryBound(to: UInt8.self)
            self = .blob(bytes.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
        default:
            self = .null
        }
    }
}

/// One row a statement returned: its values by column name.
struct SQLiteRow: Sendable {
    /// The columns' names, in order.
    let names: [String]
    /// The values, in the columns' order.
    let values: [SQLiteValue]

    fileprivate init(_ statement: OpaquePointer) {
        let count = sqlite3_column_count(statement)
        names = (0..<count).map { String(cString: sqlite3_column_name(statement, $0)) }
        values = (0..<count).map { SQLiteValue(statement, column: $0) }
    }

    /// The value of the column named `name`; `null` when there is no such column.
    subscript(_ name: String) -> SQLiteValue {
        names.firstIndex(of: name).map { values[$0] } ?? .null
    }
}

/// An error SQLite reported: its (extended) result code and message, and the SQL it ran.
struct SQLiteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The extended result code (`SQLITE_IOERR_FSYNC`, say).
    let code: Int32
    /// SQLite's message.
    let message: String
    /// The SQL that failed, when a statement did.
    let sql: String?

    /// The primary result code (`SQLITE_IOERR`, say).
    var primaryCode: Int32 { code & 0xFF }

    /// Whether the code says the file is not a database, or a damaged one.
    var isDamage: Bool { primaryCode == SQLITE_NOTADB || primaryCode == SQLITE_CORRUPT }

    init(code: Int32, connection: OpaquePointer?, sql: String?) {
        self.code = code
        // The connection's message when it has one for this failure, else the code's own text.
        if let connection, sqlite3_extended_errcode(connection) == code, let text = sqlite3_errmsg(connection) {
            message = String(cString: text)
        } else {
            message = String(cString: sqlite3_errstr(code))
        }
        self.sql = sql
    }

    /// `SQLite error 11: database disk image is malformed - while executing `SELECT …``.
    var description: String {
        "SQLite error \(code): \(message)" + (sql.map { " - while executing `\($0)`" } ?? "")
    }
}
