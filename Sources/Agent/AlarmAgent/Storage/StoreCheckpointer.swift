import AlarmCore
import AlarmModel
import Logging
import Synchronization

/// Folds the store's write-ahead log back into its database once changes pause, so that no call
/// waits on a checkpoint (the store's checkpoints are `.deferred`).
///
/// The store tells of each commit that leaves pages in the log (`AlarmStore.onLogGrowth`); one
/// task then sleeps until commits have paused for `quietPeriod` and checkpoints on the engine
/// (`AlarmEngine.checkpointStore()`), unless an alert is about to come due, which goes first (the
/// task waits another quiet period). Changes that never pause are bounded by the store itself,
/// which checkpoints in a commit once the log is long. Nothing runs while nothing changes.
final class StoreCheckpointer: Sendable {
    private let engine: AlarmEngine
    private let quietPeriod: Duration
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        /// When the last commit was noted: the waiting task sees from it whether one came while it slept.
        var lastChange = ContinuousClock.now
        /// The task waiting for the pause, if one is.
        var waiting: Task<Void, Never>?
        /// Set by `stop()`: no task starts any more.
        var stopped = false
    }

    /// Starts following `store`'s commits.
    init(store: AlarmStore, engine: AlarmEngine, quietPeriod: Duration = .seconds(1), logger: Logger) {
        self.engine = engine
        self.quietPeriod = quietPeriod
        self.logger = logger
        store.onLogGrowth { [weak self] in self?.changeStored() }
    }

    /// Notes a commit. Called on the committing thread (the engine's), so it only notes the time
    /// and, when no task waits yet, starts one.
    private func changeStored() {
        state.withLock { state in
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

    /// Sleeps until no commit has come for `quietPeriod`, checkpoints, and starts over if a commit
    /// came meanwhile.
    private func checkpointWhenQuiet() async {
        var notBefore = ContinuousClock.now
        while true {
            var seen = state.withLock { $0.lastChange }
            while true {
                do {
                    try await Task.sleep(until: max(seen + quietPeriod, notBefore), clock: .continuous)
                } catch {
                    return  // stopped
                }
                let latest = state.withLock { $0.lastChange }
                if latest == seen { break }
                seen = latest
            }
            do {
                // An alert due any moment goes first: wait another quiet period.
                guard try await engine.checkpointStore() else {
                    notBefore = .now + quietPeriod
                    continue
                }
            } catch {
                logger.warning(
                    "Could not fold the store's log into its database; trying again after the next change",
                    metadata: ["error": "\(error)"])
            }
            let done = state.withLock { state in
                guard state.lastChange == seen || state.stopped else { return false }
                state.waiting = nil
                return true
            }
            if done { return }
        }
    }
}
