import AgentRuntime
import AlarmModel
import Dispatch
import FoundationEssentials
import Logging
import Synchronization

/// Wakes a suspended machine a margin before each deadline, and keeps it awake from then until the
/// alarm has rung, so that an alarm rings on its instant after a resume, by the timer that was
/// already armed for it.
///
/// The clock (`WakingClock`) tells it each deadline the engine waits for (`request(_:)`). The
/// wake-up goes `WakeAheadMargin` before it: on the agent's own wake clock where it has one (a
/// `CLOCK_REALTIME_ALARM` wait on `clock`), or through the `WakeRouter`. From that moment the
/// `SleepInhibitor` holds logind's inhibitor (a deadline already within the margin takes it at
/// once); the next deadline lets it go, by which time a ringing alert holds it. It never rings
/// anything: the engine's own timer does, at the instant, never before; an alarm whose wake came
/// late is due on resume, and rings at once.
///
/// It also measures each resume from its wake (`ResumeMeter`), keeps the last in `ResumeRecord`,
/// and learns the margin from them.
final class WakeAhead: Sendable {
    private let clock: any AlarmClock
    private let margin: WakeAheadMargin
    private let router: WakeRouter?
    private let inhibitor: SleepInhibitor?
    private let record: ResumeRecord?
    private let logger: Logger
    private let state: Mutex<State>
    /// Writes the record one after another, off the caller's thread.
    /// Writes the resume record, in order, on a thread of its own that sleeps between resumes.
    private let writes = ThreadPool<@Sendable () -> Void>(name: "reveille-resumes", maximumThreads: 1) { $0() }

    private struct State {
        var meter: ResumeMeter
        /// The deadline asked for now. The first request is always passed on, so that the router
        /// tries its routes from the start.
        var deadline = RequestedDeadline()
        /// The deadline asked for now, or `nil`.
        var instant: Date? { deadline.instant }
        /// The wake-ahead moment of that deadline.
        var wakeAt: Date?
        /// Whether the inhibitor is held for it.
        var holding = false
        /// The wait for the wake-ahead moment.
        var waiting: Task<Void, Never>?
        var stopped = false
    }

    /// Wakes ahead by `margin`, waiting on `clock` (whose timers wake the machine where the agent
    /// may), through `router` where it may not, holding `inhibitor`, and keeping the resumes in
    /// `record`.
    init(
        clock: any AlarmClock, margin: WakeAheadMargin, router: WakeRouter?, inhibitor: SleepInhibitor?, record: ResumeRecord?,
        logger: Logger
    ) {
        self.clock = clock
        self.margin = margin
        self.router = router
        self.inhibitor = inhibitor
        self.record = record
        self.logger = logger
        state = Mutex(State(meter: ResumeMeter(resumes: record?.load() ?? [])))
    }

    /// Whether the margin was set (`--wake-ahead`) rather than learned.
    var isFixed: Bool { margin.fixed != nil }

    /// The margin now, in seconds.
    var seconds: TimeInterval { margin.seconds(resumes: state.withLock { $0.meter.seconds }) }

    /// What `status` says: the margin, the sentence, and the resumes it came from (seconds, oldest first).
    var status: (seconds: TimeInterval, sentence: String, resumes: [TimeInterval]) {
        let resumes = state.withLock { $0.meter.seconds }
        return (margin.seconds(resumes: resumes), margin.sentence(resumes: resumes), resumes)
    }

    /// The wake-ahead moment and whether the inhibitor is held for it, for tests.
    var planned: (wakeAt: Date?, holding: Bool) { state.withLock { ($0.wakeAt, $0.holding) } }

    /// The engine waits for `instant` next (nil: for nothing): the wake-up moves a margin before it.
    ///
    /// Carried out whole under the state's lock (the router and the inhibitor only note what they
    /// are told and act on tasks of their own), so that requests that overlap leave the newest's
    /// wake-up, and hold, in place.
    func request(_ instant: Date?) {
        let reading = clock.read()
        state.withLock { state in
            guard !state.stopped, state.deadline.take(instant) else { return }
            state.waiting?.cancel()
            state.waiting = nil
            let wasHolding = state.holding
            state.holding = false
            guard let instant else {
                state.wakeAt = nil
                state.meter.armed(nil)
                router?.request(nil)
                if wasHolding { inhibitor?.alarmDue(false) }
                return
            }
            let wakeAt = instant.addingTimeInterval(-margin.seconds(resumes: state.meter.seconds))
            // Within the margin already: held from now, and a suspend now is woken at the instant.
            let ahead = wakeAt > reading.now
            let wake = ahead ? wakeAt : instant
            state.wakeAt = wake
            state.meter.armed(wake)
            router?.request(wake)
            if ahead {
                state.waiting = Task { [weak self] in await self?.waitForWake(at: wakeAt) }
                if wasHolding { inhibitor?.alarmDue(false) }
            } else {
                state.holding = true
                // Handed on from the deadline before without letting go.
                if !wasHolding { inhibitor?.alarmDue(true) }
            }
        }
    }

    /// Waits for the wake-ahead moment on the clock (a wake timer where the agent may set one),
    /// through clock sets, then holds the machine awake.
    private func waitForWake(at wakeAt: Date) async {
        while !Task.isCancelled {
            do {
                switch try await clock.wait(for: WakeUp(wall: wakeAt, basis: clock.read())) {
                case .deadline:
                    guard let instant = state.withLock({ $0.wakeAt == wakeAt ? $0.instant : nil }) else { return }
                    hold(for: instant)
                    return
                case .clockChanged:
                    clockMayHaveBeenSet()
                }
            } catch {
                if error is CancellationError || Task.isCancelled { return }
                // Timers that cannot be made: the engine's own wait reports the trouble; the
                // machine is held awake from now instead.
                logger.notice(
                    "The wake-ahead timer could not be armed; holding the machine awake from now", metadata: ["error": "\(error)"])
                if let instant = state.withLock({ $0.wakeAt == wakeAt ? $0.instant : nil }) { hold(for: instant) }
                return
            }
        }
    }

    /// Takes the inhibitor for the deadline at `instant`, if it is still the one asked for.
    private func hold(for instant: Date) {
        let take = state.withLock { state -> Bool in
            guard !state.stopped, state.instant == instant, !state.holding else { return false }
            state.holding = true
            return true
        }
        guard take else { return }
        logger.debug("Holding the machine awake until the alarm has rung", metadata: ["due": "\(instant)"])
        inhibitor?.alarmDue(true)
    }

    // MARK: - Measuring resumes

    /// The machine is going to sleep (logind's `PrepareForSleep(true)`).
    func goingToSleep() {
        let reading = clock.read()
        // Without a router the agent's own wake timers wake the machine; with one, only a route
        // that armed the wake-up does. A sleep that nothing will end (a guest whose user manager
        // may not wake it) ends when a person wakes the machine: no resume to learn from.
        let routed = router.map { $0.armedInstant }
        state.withLock { state in
            let wakes = routed.map { $0 != nil && $0 == state.wakeAt } ?? true
            state.meter.goingToSleep(reading, wakes: wakes)
        }
    }

    /// The machine resumed (logind's `PrepareForSleep(false)`): measures the resume if it was the
    /// agent's wake, and holds the machine awake from now when it came within `rtcResolution` of
    /// the wake-ahead moment: that resume is the wake itself, come early.
    func resumed() {
        measure("Resumed for an alarm") { $0.resumed($1) }
        let reading = clock.read()
        let due = state.withLock { state -> Date? in
            guard let wakeAt = state.wakeAt, let instant = state.instant, !state.holding,
                reading.now >= wakeAt.addingTimeInterval(-Self.rtcResolution)
            else { return nil }
            return instant
        }
        if let due { hold(for: due) }
    }

    /// How early a wake may come: the kernel sets the RTC's alarm from its reading in whole seconds,
    /// so the machine was seen running again 0.53 s before the moment the wake timer was set for,
    /// before that timer had fired (a Debian 13 guest, `scripts/vm-test`).
    static let rtcResolution: TimeInterval = 1

    /// A timer reported that the wall clock may have been set: a time service stepping it right
    /// after a resume corrects that resume's measurement.
    func clockMayHaveBeenSet() {
        measure("The clock was set after the resume: its measurement corrected") { $0.clockMayHaveBeenSet($1) }
    }

    /// Tells the meter what happened, read now; when its measurements changed, logs `message`
    /// with the last and keeps them.
    private func measure(_ message: Logger.Message, _ step: (inout ResumeMeter, ClockReading) -> Bool) {
        let reading = clock.read()
        let changed = state.withLock { state -> [ResumeMeter.Resume]? in
            step(&state.meter, reading) ? state.meter.resumes : nil
        }
        guard let changed, let last = changed.last else { return }
        logger.info(
            message,
            metadata: [
                "wokenAt": "\(last.wokenAt)", "resumeSeconds": "\(WakeAheadMargin.decimal(last.seconds, places: 3))",
                "margin": "\(margin.seconds(resumes: changed.map(\.seconds)))",
            ])
        save(changed)
    }

    private func save(_ resumes: [ResumeMeter.Resume]) {
        guard let record else { return }
        writes.submit([
            { [logger] in
                do {
                    try record.save(resumes)
                } catch {
                    logger.notice("Could not keep the resume times", metadata: ["file": "\(record.url.path)", "error": "\(error)"])
                }
            }
        ])
    }

    /// Stops waiting and lets the inhibitor go; the router is stopped by its owner.
    func stop() {
        let (task, holding) = state.withLock { state in
            state.stopped = true
            defer {
                state.waiting = nil
                state.holding = false
            }
            return (state.waiting, state.holding)
        }
        task?.cancel()
        if holding { inhibitor?.alarmDue(false) }
        // After the writes queued: the last resume's may still be on its way.
        let written = DispatchSemaphore(value: 0)
        writes.submit([{ written.signal() }])
        written.wait()
    }
}
