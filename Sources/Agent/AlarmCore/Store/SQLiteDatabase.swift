import Synchronization

/// An SQLite database on one connection, used by one caller at a time: what the store reads and
/// writes through.
///
/// Every call waits for the one before it (a lock, not a thread of its own), and runs on the
/// caller's thread. `write` runs its body in a transaction; after `close()` every call throws.
final class SQLiteDatabase: Sendable {
    private let connection: Mutex<SQLiteConnection?>

    /// Opens the database at `path` (a file name, or a `file:` URI), read-write and created when
    /// missing, or read-only; then runs `prepare` on the new connection (pragmas, hooks).
    init(
        path: String, readOnly: Bool = false, busyTimeout: Duration = .seconds(5),
        prepare: (SQLiteConnection) throws -> Void = { _ in }
    ) throws {
        let opened = try SQLiteConnection(path: path, readOnly: readOnly, busyTimeout: busyTimeout)
        try prepare(opened)
        connection = Mutex(opened)
    }

    /// Runs `body` on the connection, outside any transaction of this type's (each statement is its
    /// own, unless `body` begins one).
    func withConnection<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try connection.withLock { connection in
            guard let open = connection else { throw SQLiteDatabaseClosed() }
            return try body(open)
        }
    }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE`): committed, and so on disk, when this
    /// returns; rolled back when it throws.
    func write<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try withConnection { connection in try connection.inTransaction(body) }
    }

    /// Closes the connection; every later call throws. When closing fails the connection stays
    /// open and usable, and the error is thrown.
    func close() throws {
        try connection.withLock { connection in
            try connection?.close()
            connection = nil
        }
    }
}

/// The database was closed (`SQLiteDatabase.close()`), and cannot be used.
struct SQLiteDatabaseClosed: Error, CustomStringConvertible {
    var description: String { "the database connection is closed" }
}
