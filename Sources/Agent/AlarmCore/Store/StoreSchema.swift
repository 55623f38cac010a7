import AlarmModel
import GRDB

/// The database schema, as a list of migrations from the first one on.
///
/// Migrations only ever append; a released migration is never edited. Instants are stored as
/// seconds since 2001-01-01 00:00 UTC (Foundation's reference date, `Date`'s own representation), so
/// they read back exactly; boot-clock moments as integer nanoseconds.
enum StoreSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: alarms and history") { db in
            try db.execute(sql: """
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
            try db.execute(sql: """
                CREATE TABLE authorization (
                    app TEXT PRIMARY KEY NOT NULL,
                    state TEXT NOT NULL,
                    decidedAt REAL NOT NULL
                );
                """)
        }
        migrator.registerMigration("v3: skipped alerts") { db in
            try db.execute(sql: "ALTER TABLE alarm ADD COLUMN skippedAt REAL")
        }
        migrator.registerMigration("v4: phones rung for an alert") { db in
            try db.execute(sql: "ALTER TABLE history ADD COLUMN phones TEXT")
        }
        migrator.registerMigration("v5: no index on the alarm's owner") { db in
            // Nothing reads alarms by owner: the engine holds every alarm in memory and loads them
            // all at once. The index only cost writes: each stored change updated it, a quarter of
            // the pages a group of new alarms wrote to the log (11 against 8 a commit under
            // `reveille-bench load`).
            try db.execute(sql: "DROP INDEX IF EXISTS alarm_owner")
        }
        return migrator
    }
}
