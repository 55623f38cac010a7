import AlarmCore
import AlarmModel
import Foundation
import Synchronization

/// A clock that moves only when a test moves it, so days of schedule run in milliseconds.
///
/// It keeps a wall clock, a boot clock and a time zone. `advance(by:)` moves both clocks
/// forward, deadline by deadline, and after waking a waiter waits until the engine has settled
/// (is waiting again) before going on, so a test sees each alert happen at its own instant.
package final class VirtualClock: AlarmClock {
    private struct State {
        var now: Date
        var uptime: Duration
        var bootID: String
        var timeZone: ZoneRules
        var waiters: [Int: Waiter] = [:]
        var nextWaiterID = 0
        var settledWatchers: [Int: (waiters: Int, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var nextWatcherID = 0
        /// The error every wait throws, as timers that cannot be made, until told to stop.
        var failure: (any Error)?
    }

    private struct Waiter {
        var wakeUp: WakeUp
        var continuation: CheckedContinuation<WakeReason, any Error>
    }

    private let state: Mutex<State>

    /// Creates a clock at an instant, in a time zone.
    package init(now: Date, timeZone: ZoneRules = .utc, uptime: Duration = .seconds(1_000), bootID: String = "boot-1") {
        state = Mutex(State(now: now, uptime: uptime, bootID: bootID, timeZone: timeZone))
    }

    /// Reads the clocks.
    package func read() -> ClockReading {
        state.withLock { ClockReading(now: $0.now, uptime: $0.uptime, bootID: $0.bootID, timeZone: $0.timeZone) }
    }

    /// Waits until the wake-up is due in virtual time.
    ///
    /// As the system clock does, it returns `.clockChanged` at once when the wall clock was set
    /// since the wake-up's `basis`, and throws when told its timers cannot be made
    /// (`failWaits(with:)`).
    package func wait(for wakeUp: WakeUp) async throws -> WakeReason {
        try await wait(for: wakeUp, armed: {})
    }

    /// Waits as `wait(for:)` does, calling `armed` once the wait is set up.
    package func wait(for wakeUp: WakeUp, armed: @escaping @Sendable () -> Void) async throws -> WakeReason {
        let (id, failure, wasSet) = state.withLock { state -> (Int, (any Error)?, Bool) in
            state.nextWaiterID += 1
            let failure = state.failure
            let reading = ClockReading(now: state.now, uptime: state.uptime, bootID: state.bootID, timeZone: state.timeZone)
            return (state.nextWaiterID, failure, wakeUp.basis.map { reading.wallClockWasSet(since: $0) } ?? false)
        }
        if let failure { throw failure }
        if wasSet { return .clockChanged }
        armed()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    if Self.isDue(wakeUp, in: state) { return true }
                    state.waiters[id] = Waiter(wakeUp: wakeUp, continuation: continuation)
                    let ready = state.settledWatchers.filter { $0.value.waiters <= state.waiters.count }
                    for key in ready.keys { state.settledWatchers[key] = nil }
                    for watcher in ready.values { watcher.continuation.resume() }
                    return false
                }
                if resumeNow {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume(returning: .deadline)
                    }
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// The current wall-clock instant.
    package var now: Date { state.withLock { $0.now } }

    /// Makes every wait throw `error`, as timers that cannot be made, until `stopFailingWaits()`.
    package func failWaits(with error: any Error) {
        state.withLock { $0.failure = error }
    }

    /// Lets waits be set up again.
    package func stopFailingWaits() {
        state.withLock { $0.failure = nil }
    }

    /// Moves both clocks forward by `seconds`, waking each waiter at its deadline in order.
    ///
    /// Expects an engine waiting on the clock (or about to): it waits for that first, and throws
    /// when it does not (see `settled(timeout:)`).
    package func advance(by seconds: TimeInterval) async throws {
        // The engine re-arms after each request on a task of its own: let it get to its wait first.
        try await settled()
        let target = state.withLock { $0.uptime } + .seconds(seconds)
        while true {
            let woken: [Waiter] = state.withLock { state in
                // The earliest deadline among waiters, as a boot-clock moment.
                let next = state.waiters.values.compactMap { Self.dueUptime($0.wakeUp, in: state) }.min()
                let step = min(next ?? target, target)
                if step > state.uptime {
                    let delta = step - state.uptime
                    state.uptime = step
                    state.now = state.now.addingTimeInterval(delta.timeInterval)
                }
                let due = state.waiters.filter { Self.isDue($0.value.wakeUp, in: state) }
                for key in due.keys { state.waiters[key] = nil }
                return Array(due.values)
            }
            if woken.isEmpty {
                if state.withLock({ $0.uptime >= target }) { return }
                continue
            }
            for waiter in woken { waiter.continuation.resume(returning: .deadline) }
            try await settled()
        }
    }

    /// Moves both clocks forward until the wall clock reads `date`.
    package func advance(to date: Date) async throws {
        try await advance(by: date.timeIntervalSince(now))
    }

    /// Sets the wall clock to an instant, as `date -s` would; the boot clock does not move.
    /// Waiters wake with `.clockChanged`, as a `TFD_TIMER_CANCEL_ON_SET` timer does.
    package func setWallClock(to date: Date) async throws {
        try await settled()
        let woken = state.withLock { state -> [Waiter] in
            state.now = date
            let all = Array(state.waiters.values)
            state.waiters.removeAll()
            return all
        }
        for waiter in woken { waiter.continuation.resume(returning: .clockChanged) }
        if !woken.isEmpty { try await settled() }
    }

    /// Simulates a suspend of `seconds`: both clocks move (the boot clock counts suspend), and no
    /// waiter wakes until the caller reports the resume to the engine.
    package func suspend(for seconds: TimeInterval) {
        state.withLock { state in
            state.uptime += .seconds(seconds)
            state.now = state.now.addingTimeInterval(seconds)
        }
    }

    /// Simulates a reboot after `seconds`: a new boot id, the boot clock from zero, the wall clock on.
    package func reboot(after seconds: TimeInterval, bootID: String) {
        state.withLock { state in
            state.now = state.now.addingTimeInterval(seconds)
            state.uptime = .seconds(5)
            state.bootID = bootID
        }
    }

    /// Changes the time zone; the caller reports it to the engine.
    package func setTimeZone(_ timeZone: ZoneRules) {
        state.withLock { $0.timeZone = timeZone }
    }

    /// Waits until some task waits on the clock with a deadline that is not yet due: the engine has
    /// finished with what woke it; with `waiters`, until that many tasks wait (the engine and
    /// another that waits on the same clock). Throws `SandboxError.timeout` when none does within
    /// `timeout` (an engine that stopped waiting on its clock, or a test that woke none).
    package func settled(waiters: Int = 1, timeout: Duration = .seconds(30)) async throws {
        let id = state.withLock { state in
            state.nextWatcherID += 1
            return state.nextWatcherID
        }
        let limit = Task { [self] in
            try await Task.sleep(for: timeout)
            let watcher = state.withLock { $0.settledWatchers.removeValue(forKey: id) }
            watcher?.continuation.resume(
                throwing: SandboxError.timeout("waited \(timeout) for \(waiters) task(s) to wait on the virtual clock"))
        }
        defer { limit.cancel() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let ready = state.withLock { state -> Bool in
                if state.waiters.count >= waiters { return true }
                state.settledWatchers[id] = (waiters, continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func isDue(_ wakeUp: WakeUp, in state: State) -> Bool {
        if let wall = wakeUp.wall, wall <= state.now { return true }
        if let elapsed = wakeUp.elapsed, elapsed.bootID == state.bootID, elapsed.uptime <= state.uptime { return true }
        return false
    }

    /// The boot-clock moment a wake-up comes due at, reading wall deadlines through the current offset.
    private static func dueUptime(_ wakeUp: WakeUp, in state: State) -> Duration? {
        var moments: [Duration] = []
        if let wall = wakeUp.wall {
            moments.append(state.uptime + .seconds(max(0, wall.timeIntervalSince(state.now))))
        }
        if let elapsed = wakeUp.elapsed, elapsed.bootID == state.bootID {
            moments.append(max(elapsed.uptime, state.uptime))
        }
        return moments.min()
    }
}
