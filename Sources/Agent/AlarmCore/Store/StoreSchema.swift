/// The database schema, as a list of migrations from the first one on.
///
/// Migrations only ever append; a released migration is never edited. Instants are stored as
/// seconds since 2001-01-01 00:00 UTC (Foundation's reference date, `Date`'s own representation), so
/// they read back exactly; boot-clock moments as integer nanoseconds.
enum StoreSchema {
    static var migrator: StoreMigrator {
        var migrator = StoreMigrator()
        migrator.registerMigration("v1: alarms and history") { db in
            try db.execute(
                script: """
                    CREATE TABLE alarm (
                        id TEXT PRIMARY KEY NOT NULL,
                        owner TEXT NOT NULL,
                        definition BLOB NOT NULL,
                        state TEXT NOT NULL,
                        anchor REAL NOT NULL,
                        alertAt REAL,
                        countdownKind TEXT,
                        countdownDuration REAL,
                        remaining REAL,
                        scheduledAt REAL,
                        startedAt REAL,
                        deadlineBootID TEXT,
                        deadlineUptimeNs INTEGER,
                        deadlineWall REAL
                    );
                    CREATE INDEX alarm_owner ON alarm(owner);
                    CREATE TABLE history (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        alarmID TEXT NOT NULL,
                        title TEXT NOT NULL,
                        scheduledAt REAL NOT NULL,
                        alertedAt REAL,
                        endedAt REAL,
                        outcome TEXT,
                        count INTEGER NOT NULL DEFAULT 1
                    );
                    CREATE INDEX history_open ON history(alarmID) WHERE outcome IS NULL;
                    CREATE INDEX history_scheduled ON history(scheduledAt);
                    """)
        }
        migrator.registerMigration("v2: app authorizations") { db in
            try db.execute(
                script: """
                    CREATE TABLE authorization (
                        app TEXT PRIMARY KEY NOT NULL,
                        state TEXT NOT NULL,
                        decidedAt REAL NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v3: skipped alerts") { db in
            try db.execute(script: "ALTER TABLE alarm ADD COLUMN skippedAt REAL")
        }
        migrator.registerMigration("v4: phones rung for an alert") { db in
            try db.execute(script: "ALTER TABLE history ADD COLUMN phones TEXT")
        }
        migrator.registerMigration("v5: no index on the alarm's owner") { db in
            // Nothing reads alarms by owner: the engine holds every alarm in memory and loads them
            // all at once. The index only cost writes: each stored change updated it, a quarter of
            // the pages a group of new alarms wrote to the log (11 against 8 a commit under
            // `reveille-bench load`).
            try db.execute(script: "DROP INDEX IF EXISTS alarm_owner")
        }
        return migrator
    }
}

/// Migrations applied in order, each once, each in a transaction of its own, noted by identifier
/// in the `grdb_migrations` table (the name and layout GRDB's migrator gave it, which every
/// existing database has).
struct StoreMigrator {
    /// A migration: its identifier, and what it changes.
    private struct Migration {
        let identifier: String
        let migrate: (SQLiteConnection) throws -> Void
    }

    private var migrations: [Migration] = []

    /// The migrations' identifiers, in the order they apply.
    var identifiers: [String] { migrations.map(\.identifier) }

    /// Adds a migration after the ones registered so far.
    mutating func registerMigration(_ identifier: String, migrate: @escaping (SQLiteConnection) throws -> Void) {
        migrations.append(Migration(identifier: identifier, migrate: migrate))
    }

    /// Applies, in order, every registered migration the database has not had, up to and including
    /// `last` (all of them when `nil`).
    func migrate(_ db: SQLiteConnection, upTo last: String? = nil) throws {
        try db.execute(script: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        let applied = try appliedIdentifiers(db)
        let end = last.flatMap { last in migrations.firstIndex { $0.identifier == last } }.map { $0 + 1 } ?? migrations.count
        for migration in migrations[..<end] where !applied.contains(migration.identifier) {
            try db.inTransaction { db in
                try migration.migrate(db)
                try db.execute("INSERT INTO grdb_migrations (identifier) VALUES (?)", [.text(migration.identifier)])
            }
        }
    }

    /// Whether every registered migration was applied.
    func hasCompletedMigrations(_ db: SQLiteConnection) throws -> Bool {
        let applied = try appliedIdentifiers(db)
        return migrations.allSatisfy { applied.contains($0.identifier) }
    }

    /// The identifiers of the migrations applied; none when the table is missing (a new database).
    private func appliedIdentifiers(_ db: SQLiteConnection) throws -> Set<String> {
        let table = try db.texts("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'")
        guard !table.isEmpty else { return [] }
        return Set(try db.texts("SELECT identifier FROM grdb_migrations"))
    }
}
