import AlarmCore
import Logging
import Synchronization

/// Folds the store's write-ahead log back into its database once changes pause, so that no call
/// waits on a checkpoint (the store's checkpoints are `.deferred`).
///
/// Each stored change is noted; one task then sleeps until changes have paused for `quietPeriod`
/// and checkpoints on the engine (`AlarmEngine.checkpointStore()`), unless an alert is about to
/// come due, which goes first (the task waits another quiet period). Changes that never pause are
/// bounded by the store itself, which checkpoints in a commit once the log is long. Nothing runs
/// while nothing changes.
public final class StoreCheckpointer: Sendable {
    private let store: AlarmStore
    private let engine: AlarmEngine
    private let quietPeriod: Duration
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        /// Counts noted changes, so the waiting task sees whether one came while it slept.
        var changes = 0
        /// When the last change was noted.
        var lastChange = ContinuousClock.now
        /// The task waiting for the pause, if one is.
        var waiting: Task<Void, Never>?
        /// Set by `stop()`: no task starts any more.
        var stopped = false
    }

    init(store: AlarmStore, engine: AlarmEngine, quietPeriod: Duration = .seconds(1), logger: Logger) {
        self.store = store
        self.engine = engine
        self.quietPeriod = quietPeriod
        self.logger = logger
    }

    /// Notes that a change was stored. Called on the engine after each change, so it only counts
    /// and, when no task waits yet and the log holds anything, starts one. A store that leaves
    /// checkpoints to SQLite, or that is read-only, reports no log and needs nothing.
    func changeStored() {
        guard let frames = store.pendingLogFrames, frames > 0 else { return }
        state.withLock { state in
            state.changes += 1
            state.lastChange = .now
            guard state.waiting == nil, !state.stopped else { return }
            state.waiting = Task { await self.checkpointWhenQuiet() }
        }
    }

    /// Stops waiting: the store folds its log in as it closes.
    func stop() {
        state.withLock { state in
            state.stopped = true
            state.waiting?.cancel()
            state.waiting = nil
        }
    }

    /// Sleeps until no change has come for `quietPeriod`, checkpoints, and starts over if a change
    /// came meanwhile.
    private func checkpointWhenQuiet() async {
        var postponedUntil: ContinuousClock.Instant?
        while true {
            var seen = state.withLock { $0.changes }
            while true {
                var deadline = state.withLock { $0.lastChange } + quietPeriod
                if let postponedUntil { deadline = max(deadline, postponedUntil) }
                do {
                    try await Task.sleep(until: deadline, clock: .continuous)
                } catch {
                    return  // stopped
                }
                let now = state.withLock { $0.changes }
                if now == seen { break }
                seen = now
            }
            do {
                // An alert due any moment goes first: wait another quiet period.
                guard try await engine.checkpointStore() else {
                    postponedUntil = .now + quietPeriod
                    continue
                }
            } catch {
                logger.warning("Could not fold the store's log into its database; trying again after the next change",
                    metadata: ["error": "\(error)"])
            }
            let done = state.withLock { state in
                guard state.changes == seen || state.stopped else { return false }
                state.waiting = nil
                return true
            }
            if done { return }
        }
    }
}
