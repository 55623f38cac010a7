import AgentRuntime
import AlarmModel
import CSQLite
import Synchronization

/// The length of a database's write-ahead log, followed after every commit, with SQLite's own
/// checkpoint in the commit held back until the log is long (`sqlite3_wal_hook`).
///
/// SQLite folds the log back into the database (a checkpoint) inside the commit that takes it past
/// 1,000 pages: that commit then waits for the pages to be copied and two `fsync`s, and so does every
/// call waiting behind it. With this hook the commit only notes the log's length, and checkpoints
/// itself (`sqlite3_wal_checkpoint_v2`, passive) only past `forcedCheckpointFrames`; the owner folds
/// the log in at a quieter moment with `AlarmStore.checkpoint()`.
final class WriteAheadLog: Sendable {
    /// The log's length, in frames (one page each), after the last commit or checkpoint.
    let frames = Atomic<Int>(0)
    /// The length past which a commit checkpoints all the same, so that the log stays bounded
    /// under changes that never pause.
    let forcedCheckpointFrames: Int
    /// Told after each commit that leaves pages in the log (see `AlarmStore.onLogGrowth`).
    let observer = CallbackSlot<Void>()

    init(forcedCheckpointFrames: Int) {
        self.forcedCheckpointFrames = forcedCheckpointFrames
    }

    /// Replaces SQLite's automatic checkpoint on `db`'s connection with this hook. The store that
    /// owns this object keeps it, and the connection, alive together.
    func install(on db: SQLiteConnection) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(
            db.handle,
            { context, connection, schema, frames in
                let log = Unmanaged<WriteAheadLog>.fromOpaque(context!).takeUnretainedValue()
                log.committed(frames: Int(frames), connection: connection, schema: schema)
                return SQLITE_OK
            }, context)
    }

    private func committed(frames: Int, connection: OpaquePointer?, schema: UnsafePointer<CChar>?) {
        guard frames >= forcedCheckpointFrames else {
            self.frames.store(frames, ordering: .relaxed)
            observer.call(())
            return
        }
        var logged: Int32 = 0
        var copied: Int32 = 0
        let result = sqlite3_wal_checkpoint_v2(connection, schema, SQLITE_CHECKPOINT_PASSIVE, &logged, &copied)
        // A checkpoint that could not finish leaves the log as long as it was; the next commit tries again.
        self.frames.store(result == SQLITE_OK && logged == copied ? 0 : frames, ordering: .relaxed)
    }
}
