import AlarmCore
import AlarmModel
import Foundation

/// An engine over a real store in a temporary folder, a virtual clock and a recording presenter.
package struct EngineHarness: Sendable {
    /// The virtual clock the engine reads and waits on.
    package let clock: VirtualClock
    /// The presenter that records what the engine asked to show.
    package let presenter: RecordingPresenter
    /// The engine, started.
    package let engine: AlarmEngine
    /// The store's folder.
    package let directory: URL
    /// The policy the engine runs with.
    package let policy: AlarmPolicy

    /// Starts an engine at `now` in `timeZone`, over a new store (or the one in `directory`).
    package static func start(
        now: Date, timeZone: ZoneRules = .utc, policy: AlarmPolicy = AlarmPolicy(),
        directory: URL? = nil, clock: VirtualClock? = nil
    ) async throws -> EngineHarness {
        let clock = clock ?? VirtualClock(now: now, timeZone: timeZone)
        let directory = directory ?? Fixtures.temporaryDirectory("reveille-engine")
        let presenter = RecordingPresenter()
        let store = try AlarmStore(directory: directory)
        let engine = AlarmEngine(store: store, clock: clock, policy: policy, presenter: presenter)
        try await engine.start()
        try await clock.settled()
        return EngineHarness(clock: clock, presenter: presenter, engine: engine, directory: directory, policy: policy)
    }

    /// Shuts this engine down and starts a new one over the same store and clock, as a restart of
    /// the agent does.
    package func restarted(policy: AlarmPolicy? = nil) async throws -> EngineHarness {
        await engine.shutdown()
        return try await EngineHarness.start(
            now: clock.now, policy: policy ?? self.policy, directory: directory, clock: clock)
    }

    /// Removes the store's folder.
    package func removeStore() async {
        await engine.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The state of an alarm, or `nil` when it is gone.
    package func state(of id: UUID) async -> Alarm.State? {
        try? await engine.alarm(id: id, caller: .user).state
    }
}
