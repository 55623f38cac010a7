import AlarmModel
import AgentRuntime
import LinuxSystem
import FoundationEssentials
import Synchronization

/// The real clocks: the wall clock (`CLOCK_REALTIME`), the boot clock (`CLOCK_BOOTTIME`) and the
/// system time zone, with waits on kernel timers, never a polling loop.
///
/// A wait arms one `CLOCK_REALTIME` timer, absolute, with `TFD_TIMER_CANCEL_ON_SET` (armed even
/// with no wall deadline, far in the future, so a clock set is always seen), and, for an elapsed
/// deadline, one absolute `CLOCK_BOOTTIME` timer, which counts through suspend.
///
/// When the process may (it holds `CAP_WAKE_ALARM`), the timers are the kernel's wake timers,
/// `CLOCK_REALTIME_ALARM` and `CLOCK_BOOTTIME_ALARM`: the same clocks, and a suspended machine is
/// woken for them through the real-time clock.
package final class SystemClock: AlarmClock {
    private let zone: Mutex<ZoneRules>
    /// The file naming the system time zone, normally `/etc/localtime`.
    package let localTimePath: String
    /// Whether the timers are wake timers (`CLOCK_REALTIME_ALARM`, `CLOCK_BOOTTIME_ALARM`), which
    /// the kernel allows only with `CAP_WAKE_ALARM`.
    package let wakeTimers: Bool
    private let wallClock: ClockID
    private let bootClock: ClockID
    /// Called when a timer cannot be made for want of a descriptor, with what it is for; returns
    /// whether it made room, and the timer is made again (the agent's `DescriptorReserve`).
    private let makeRoom: (@Sendable (String) -> Bool)?

    /// Creates the system clock, reading the time zone now from `TZ` or `localTimePath`, with wake
    /// timers when `wakeTimers` and the kernel allows them (a test `timerfd_create` succeeds).
    /// `makeRoom` is asked for room when a timer cannot be made for want of a descriptor.
    package init(
        localTimePath: String = SystemClock.defaultLocalTimePath, wakeTimers: Bool = true,
        makeRoom: (@Sendable (String) -> Bool)? = nil
    ) {
        self.localTimePath = localTimePath
        self.makeRoom = makeRoom
        zone = Mutex(Self.systemTimeZone(localTimePath: localTimePath) ?? .utc)
        self.wakeTimers = wakeTimers && (try? TimerFD(clock: .realtimeAlarm)) != nil
        (wallClock, bootClock) = self.wakeTimers ? (.realtimeAlarm, .boottimeAlarm) : (.realtime, .boottime)
    }

    /// Where the system time zone is named: `/etc/localtime`.
    package static let defaultLocalTimePath = ZoneRules.defaultLocalTimePath

    /// Reads the system time zone again (after `/etc/localtime` or timedate1 changed) and returns
    /// it. When it cannot be read (the link is being replaced), the zone stays as it was.
    @discardableResult
    package func refreshTimeZone() -> ZoneRules {
        let current = Self.systemTimeZone(localTimePath: localTimePath)
        return zone.withLock { zone in
            if let current { zone = current }
            return zone
        }
    }

    /// The system's time zone (`ZoneRules.current(localTimePath:tz:)`): `TZ`, else the zone
    /// `localTimePath` names. `nil` when neither gives one, or `localTimePath` is missing (a link
    /// being replaced).
    static func systemTimeZone(localTimePath: String, tz: String? = ZoneRules.environmentTZ) -> ZoneRules? {
        ZoneRules.current(localTimePath: localTimePath, tz: tz)
    }

    /// Reads both clocks and the time zone.
    package func read() -> ClockReading {
        let wall = KernelClock.read(.realtime)
        let boot = KernelClock.read(.boottime)
        return ClockReading(
            now: Date(timeIntervalSince1970: TimeInterval(wall.seconds) + TimeInterval(wall.nanoseconds) / 1e9),
            uptime: .seconds(boot.seconds) + .nanoseconds(boot.nanoseconds),
            bootID: KernelClock.bootID,
            timeZone: zone.withLock { $0 })
    }

    /// Waits on kernel timers until the wake-up is due or the wall clock is set.
    package func wait(for wakeUp: WakeUp) async throws -> WakeReason {
        try await wait(for: wakeUp, armed: {})
    }

    /// Waits on kernel timers until the wake-up is due or the wall clock is set, calling `armed`
    /// once the timers are set.
    ///
    /// Throws the timer's `Errno` when it cannot be made or set (out of file descriptors, say).
    /// Returns `.clockChanged` at once when the wall clock was set since the wake-up's `basis`:
    /// a set between the engine's reading and the timers being armed, which the timers cannot
    /// report, is found by reading the clocks once the wall timer is armed.
    package func wait(for wakeUp: WakeUp, armed: @escaping @Sendable () -> Void) async throws -> WakeReason {
        let wall = try makeTimer(wallClock)
        // With no wall deadline, a timer far ahead still reports clock sets.
        let wallSeconds = wakeUp.wall?.timeIntervalSince1970 ?? 1e11
        let whole = wallSeconds.rounded(.down)
        try wall.descriptor.armTimer(atSeconds: Int64(whole), nanoseconds: Int64((wallSeconds - whole) * 1e9), cancelOnSet: true)
        var timers = [wall]
        if let elapsed = wakeUp.elapsed {
            let boot = try makeTimer(bootClock)
            let deadline =
                elapsed.bootID == KernelClock.bootID
                ? elapsed.uptime
                : read().uptime + .seconds(elapsed.wallEstimate.timeIntervalSinceNow)
            let (seconds, attoseconds) = deadline.components
            try boot.descriptor.armTimer(atSeconds: seconds, nanoseconds: attoseconds / 1_000_000_000, cancelOnSet: false)
            timers.append(boot)
        }
        // Sets from here on cancel the wall timer; one since the basis was read is found now.
        if let basis = wakeUp.basis, read().wallClockWasSet(since: basis) { return .clockChanged }
        armed()
        let waiter = TimerWaiter(timers: timers)
        return try await withTaskCancellationHandler {
            try await waiter.wait()
        } onCancel: {
            waiter.cancel()
        }
    }
}

extension SystemClock {
    /// A timer on `clock`; made again once `makeRoom` made room when the process is out of
    /// descriptors (`EMFILE`, `ENFILE`).
    private func makeTimer(_ clock: ClockID) throws(Errno) -> TimerFD {
        do throws(Errno) {
            return try TimerFD(clock: clock)
        } catch let error where error == .tooManyOpenFiles || error == .tooManyOpenFilesInSystem {
            guard makeRoom?("the timer of the next alarm or countdown") == true else { throw error }
            return try TimerFD(clock: clock)
        }
    }
}

/// Waits for the first of several timers to become readable, on the agent's event loop.
private final class TimerWaiter: Sendable {
    private let timers: [TimerFD]
    private struct State {
        var continuation: CheckedContinuation<WakeReason, any Error>?
        var watches: [EventLoop.Watch] = []
        var finished = false
    }
    private let state = Mutex(State())

    init(timers: [TimerFD]) { self.timers = timers }

    func wait() async throws -> WakeReason {
        try await withCheckedThrowingContinuation { continuation in
            let failure = state.withLock { state -> (any Error)? in
                if state.finished { return CancellationError() }
                state.continuation = continuation
                do throws(Errno) {
                    for (index, timer) in timers.enumerated() {
                        // The handler holds the timer, so its descriptor stays open until the
                        // watch is cancelled and the handler let go.
                        state.watches.append(
                            try EventLoop.shared.watchReadable(timer.descriptor) { [weak self] in
                                withExtendedLifetime(timer) { self?.readable(index) }
                            })
                    }
                    return nil
                } catch {
                    state.continuation = nil
                    return POSIXError(error)
                }
            }
            if let failure {
                cancelWatches()
                continuation.resume(throwing: failure)
            }
        }
    }

    private func readable(_ index: Int) {
        let reason: WakeReason
        switch timers[index].read() {
        case .notYet: return
        case .expired: reason = .deadline
        case .clockWasSet: reason = .clockChanged
        }
        finish(.success(reason))
    }

    func cancel() { finish(.failure(CancellationError())) }

    private func cancelWatches() {
        let watches = state.withLock { state in
            defer { state.watches = [] }
            return state.watches
        }
        for watch in watches { watch.cancel() }
    }

    private func finish(_ result: Result<WakeReason, any Error>) {
        let continuation = state.withLock { state in
            state.finished = true
            defer { state.continuation = nil }
            return state.continuation
        }
        cancelWatches()
        continuation?.resume(with: result)
    }
}
