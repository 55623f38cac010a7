import AlarmModel
import FoundationEssentials
import Synchronization

/// The system clock, telling `WakeAhead` the instant of each wake-up the engine waits for, so
/// that the machine is woken a margin before it and kept awake until it has rung, and
/// `SoundAhead`, so that the alert's sound is opened a lead before it.
///
/// The engine keeps one wait at a time and cancels it when its earliest deadline changes; a
/// cancelled wait may still be starting while its successor runs. So the waits under way are
/// kept (newest last), a cancelled one is dropped, and `WakeAhead` is told the newest's instant.
/// A wait that ends because its deadline came leaves the wake-up where it is: the engine waits
/// again at once for its next deadline. A wait that ends because the wall clock was set tells
/// `WakeAhead` too (a time service correcting the clock after a resume).
final class WakingClock: AlarmClock {
    private let base: any AlarmClock
    private let wakeAhead: WakeAhead?
    private let soundAhead: SoundAhead?
    private let waits = Mutex<(next: Int, live: [(id: Int, instant: Date?)])>((0, []))

    /// The clock `base` (the system's), reporting its waits to `wakeAhead` and `soundAhead`.
    init(base: any AlarmClock, wakeAhead: WakeAhead?, soundAhead: SoundAhead? = nil) {
        self.base = base
        self.wakeAhead = wakeAhead
        self.soundAhead = soundAhead
    }

    func read() -> ClockReading { base.read() }

    func wait(for wakeUp: WakeUp) async throws -> WakeReason {
        try await wait(for: wakeUp, armed: {})
    }

    func wait(for wakeUp: WakeUp, armed: @escaping @Sendable () -> Void) async throws -> WakeReason {
        let instant = Self.instant(of: wakeUp, from: base.read())
        let id = waits.withLock { waits in
            defer { waits.next += 1 }
            waits.live.append((waits.next, instant))
            return waits.next
        }
        request(instant)
        // Checked after the wait was listed: a cancellation from before is seen here, one from
        // after runs the handler below.
        guard !Task.isCancelled else {
            withdraw(id)
            throw CancellationError()
        }
        return try await withTaskCancellationHandler {
            defer { waits.withLock { $0.live.removeAll { $0.id == id } } }
            let reason = try await base.wait(for: wakeUp, armed: armed)
            if reason == .clockChanged { wakeAhead?.clockMayHaveBeenSet() }
            return reason
        } onCancel: {
            withdraw(id)
        }
    }

    /// Drops a cancelled wait; when it was the newest, `WakeAhead` is told the instant of the one
    /// now newest.
    private func withdraw(_ id: Int) {
        let newest = waits.withLock { waits -> Date?? in
            let wasNewest = waits.live.last?.id == id
            waits.live.removeAll { $0.id == id }
            guard wasNewest, let last = waits.live.last else { return .none }
            return .some(last.instant)
        }
        if case .some(let instant) = newest { request(instant) }
    }

    /// Tells both of the instant waited for now.
    private func request(_ instant: Date?) {
        wakeAhead?.request(instant)
        soundAhead?.request(instant)
    }

    /// The wall-clock instant of a wake-up: its wall deadline or its elapsed one, whichever comes
    /// first; nil when it has neither.
    static func instant(of wakeUp: WakeUp, from reading: ClockReading) -> Date? {
        let elapsed = wakeUp.elapsed.map { $0.wallInstant(from: reading) }
        switch (wakeUp.wall, elapsed) {
        case (let wall?, let elapsed?): return min(wall, elapsed)
        case (let wall?, nil): return wall
        case (nil, let elapsed?): return elapsed
        case (nil, nil): return nil
        }
    }
}
