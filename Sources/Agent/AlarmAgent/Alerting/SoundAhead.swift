import AlarmDesktop
import AlarmModel
import AlarmRecords
import FoundationEssentials
import Logging
import Synchronization

/// What `SoundAhead` gets ready and lets go: the alert sounds (`AlertSounds`), the output's mixer
/// (`SilentModeGuard`), or a test's record.
protocol AlertSoundPreparing: Sendable {
    /// Opens the sound device ahead for `records`, whose alerts are due at `due`.
    func prepareAhead(_ records: [AlarmRecord], due: Date)
    /// Closes what was opened ahead for alerts due after `date`, and what no alert took long after `now`.
    func releaseAhead(notDueBy date: Date, now: Date)
}

extension AlertSounds: AlertSoundPreparing {}

extension SilentModeGuard: AlertSoundPreparing {}

/// Opens the sound device a short lead before each alert is due, so that at its instant only
/// the writes remain.
///
/// The engine's clock (`WakingClock`) tells it each deadline the engine waits for
/// (`request(_:)`). `lead` before it, on a timer (a wall-clock `timerfd`, which does not wake
/// the machine: the wake-ahead margin, at least 10 s, has it awake by then), it asks which alarms
/// alert at that deadline and has their sounds opened ahead (`AlertSoundPreparing.prepareAhead`):
/// alsa-lib loaded, its configuration read, the sound decoded, the stream connected to the sound
/// server and linked, not started. After a wake the timer has passed and fires at once. A new
/// deadline closes what was opened for a later one (the alarm was cancelled or moved); the alert
/// itself takes what was opened for it, and its end closes it.
///
/// Measured in a Debian 13 guest under TCG (`scripts/vm-test`): opening the device took 1-5 s
/// there after a wake or a login, all of it between the alert and its first sound until now.
final class SoundAhead: Sendable {
    /// How long before an alert its sound is opened: above the seconds the guest's opening took,
    /// and well inside the wake-ahead margin's minimum (10 s).
    static let defaultLead: TimeInterval = 5

    private let clock: any AlarmClock
    private let sounds: [any AlertSoundPreparing]
    private let lead: TimeInterval
    private let alarmsDue: @Sendable (Date) async -> [AlarmRecord]
    private let state = Mutex(State())

    private struct State {
        /// The deadline asked for now.
        var deadline = RequestedDeadline()
        /// The wait for the lead's moment.
        var waiting: Task<Void, Never>?
        var stopped = false
    }

    /// Opens each of `sounds` `lead` before each deadline, waiting on `clock`; `alarmsDue` gives the
    /// alarms that alert at a deadline.
    init(
        clock: any AlarmClock, sounds: [any AlertSoundPreparing], lead: TimeInterval = SoundAhead.defaultLead,
        alarmsDue: @escaping @Sendable (Date) async -> [AlarmRecord]
    ) {
        self.clock = clock
        self.sounds = sounds
        self.lead = lead
        self.alarmsDue = alarmsDue
    }

    /// The engine waits for `instant` next (nil: for nothing): what was opened for a later one
    /// is closed, and the sounds of `instant`'s alerts are opened `lead` before it.
    func request(_ instant: Date?) {
        let now = clock.read().now
        state.withLock { state in
            guard !state.stopped, state.deadline.take(instant) else { return }
            state.waiting?.cancel()
            state.waiting = nil
            for sounds in sounds { sounds.releaseAhead(notDueBy: instant ?? now, now: now) }
            guard let instant else { return }
            state.waiting = Task { [weak self] in await self?.open(ahead: instant) }
        }
    }

    /// Waits for the lead's moment before `instant` (through clock sets), then opens the sounds of
    /// the alarms due at it, if it is still the deadline asked for.
    private func open(ahead instant: Date) async {
        let moment = instant.addingTimeInterval(-lead)
        while !Task.isCancelled {
            do {
                switch try await clock.wait(for: WakeUp(wall: moment, basis: clock.read())) {
                case .deadline:
                    let due = await alarmsDue(instant)
                    guard !due.isEmpty else { return }
                    state.withLock { state in
                        guard !state.stopped, state.deadline.instant == instant, !Task.isCancelled else { return }
                        for sounds in sounds { sounds.prepareAhead(due, due: instant) }
                    }
                    return
                case .clockChanged:
                    continue
                }
            } catch {
                // Cancelled (a new deadline), or no timer could be made: the alert opens its
                // sound at its instant, as it always could.
                return
            }
        }
    }

    /// Stops waiting; what was opened is closed by the sounds' own shutdown.
    func stop() {
        let task = state.withLock { state in
            state.stopped = true
            defer { state.waiting = nil }
            return state.waiting
        }
        task?.cancel()
    }
}
