import AlarmCore
import DBus
import Foundation
import Logging
import Synchronization

/// What besides its kernel timers makes the agent check its deadlines again: the machine resuming
/// from suspend (logind) and the time zone changing (timedate1 and the `localtime` file), wired to
/// the engine, with what `reveille status` reports about them.
///
/// Clock sets need nothing here: the clock's `CLOCK_REALTIME` timer is armed with
/// `TFD_TIMER_CANCEL_ON_SET`. Each source is optional: without a system bus the `localtime` file is
/// still watched, and when the system bus goes away the agent serves on.
final class WakeSources: Sendable {
    /// Whether alarms can wake this machine from suspend.
    let capability: WakeCapability

    private let engine: AlarmEngine
    private let clock: SystemClock
    private let systemBusAddress: String?
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var localTime: LocalTimeWatcher?
        var localTimeProblem: String?
        var systemBus = SystemBus.connecting
        var systemEvents: SystemEvents?
        var tasks: [Task<Void, Never>] = []
        var started = false
        var stopped = false
    }

    /// Where the system-bus watch stands.
    enum SystemBus: Sendable, Hashable {
        /// Connecting (just after start).
        case connecting
        /// Subscribed to logind and timedate1.
        case watching
        /// It could not be reached: the reason.
        case unreachable(String)
        /// It went away after the agent had subscribed.
        case lost
    }

    /// Creates the wake sources; `start()` starts watching.
    init(
        engine: AlarmEngine, clock: SystemClock, systemBusAddress: String?, wakeFromSuspend: Bool, graceWindow: TimeInterval,
        logger: Logger
    ) {
        self.engine = engine
        self.clock = clock
        self.systemBusAddress = systemBusAddress
        self.logger = logger
        capability = WakeCapability.assess(wakeTimers: clock.wakeTimers, declined: !wakeFromSuspend, graceWindow: graceWindow)
    }

    /// Watches the `localtime` file at once, and connects to the system bus in the background.
    func start() {
        let path = clock.localTimePath
        let watcher: LocalTimeWatcher?
        do {
            watcher = try LocalTimeWatcher(path: path)
        } catch {
            watcher = nil
            logger.notice("Not watching the time-zone file", metadata: ["path": "\(path)", "error": "\(error)"])
        }
        let proceed = state.withLock { state -> Bool in
            guard !state.started, !state.stopped else { return false }
            state.started = true
            state.localTime = watcher
            if watcher == nil { state.localTimeProblem = "cannot be watched" }
            return true
        }
        guard proceed else {
            watcher?.stop()
            return
        }
        var tasks: [Task<Void, Never>] = []
        if let watcher {
            tasks.append(Task { [weak self] in
                for await _ in watcher.changes {
                    await self?.timeZoneMayHaveChanged(source: path)
                }
            })
        }
        tasks.append(Task { [weak self] in await self?.watchSystemBus() })
        state.withLock { $0.tasks = tasks }
    }

    /// Stops every watch.
    func stop() {
        let (watcher, events, tasks) = state.withLock { state in
            state.stopped = true
            defer {
                state.localTime = nil
                state.systemEvents = nil
                state.tasks = []
            }
            return (state.localTime, state.systemEvents, state.tasks)
        }
        for task in tasks { task.cancel() }
        watcher?.stop()
        events?.close()
    }

    // MARK: - Events

    private func watchSystemBus() async {
        let events: SystemEvents
        do {
            events = try await SystemEvents.watch(address: systemBusAddress)
        } catch {
            let reason = (error as? DBusError).map { $0.message.isEmpty ? $0.name : $0.message } ?? "\(error)"
            let stopped = state.withLock { state in
                state.systemBus = .unreachable(reason)
                return state.stopped
            }
            if !stopped {
                logger.notice(
                    "The system bus cannot be reached: resume from suspend and timedate1 are not watched; time-zone changes are still seen in the time-zone file",
                    metadata: ["error": "\(reason)"])
            }
            return
        }
        let adopted = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.systemEvents = events
            state.systemBus = .watching
            return true
        }
        guard adopted else {
            events.close()
            return
        }
        logger.info("Watching logind and timedate1 on the system bus for resume and time-zone changes")
        for await event in events.events {
            switch event {
            case .goingToSleep:
                logger.debug("The machine is going to sleep")
            case .resumed:
                await engine.resumedFromSuspend()
                logger.debug("Resumed from suspend: every deadline was checked again")
            case .timeZoneChanged(let zone):
                await timeZoneMayHaveChanged(source: "timedate1" + (zone.map { " (\($0))" } ?? ""))
            }
        }
        let lost = state.withLock { state -> Bool in
            state.systemEvents = nil
            guard !state.stopped else { return false }
            state.systemBus = .lost
            return true
        }
        if lost {
            logger.notice("The system bus went away: resume from suspend and timedate1 are no longer watched")
        }
    }

    /// Reads the system time zone again and has the engine compute clock-time alarms in it.
    private func timeZoneMayHaveChanged(source: String) async {
        let before = clock.read().timeZone
        let zone = clock.refreshTimeZone()
        await engine.timeZoneChanged()
        if zone.identifier != before.identifier {
            logger.info(
                "The time zone changed: clock-time alarms follow it",
                metadata: ["zone": "\(zone.identifier)", "was": "\(before.identifier)", "source": "\(source)"])
        } else {
            logger.debug("The time zone was checked again", metadata: ["zone": "\(zone.identifier)", "source": "\(source)"])
        }
    }

    // MARK: - Status

    /// The events the agent re-checks its deadlines on now: `clock-set` always, `time-zone` while
    /// the time-zone file or timedate1 is watched, `resume` while logind is.
    var watchedEvents: [String] {
        let (file, bus) = state.withLock { ($0.localTime != nil, $0.systemBus) }
        var events = ["clock-set"]
        if file || bus == .watching { events.append("time-zone") }
        if bus == .watching { events.append("resume") }
        return events
    }

    /// One sentence on what is watched and what is not, and why.
    var eventSources: String {
        let (file, problem, bus) = state.withLock { ($0.localTime != nil, $0.localTimeProblem, $0.systemBus) }
        let path = clock.localTimePath
        var zoneSources: [String] = []
        if file { zoneSources.append(path) }
        if bus == .watching { zoneSources.append("timedate1") }
        var parts = ["clock set (timerfd)"]
        if !zoneSources.isEmpty { parts.append("time zone (\(zoneSources.joined(separator: ", ")))") }
        if bus == .watching { parts.append("resume (logind)") }
        var sentence = parts.joined(separator: ", ")
        if !file { sentence += "; not \(path): it \(problem ?? "is not watched")" }
        if let tz = ProcessInfo.processInfo.environment["TZ"], !tz.isEmpty,
            let zone = SystemClock.systemTimeZone(localTimePath: path, tz: tz)
        {
            sentence += "; TZ is set, so the zone stays \(zone.identifier) whatever the system's is"
        }
        switch bus {
        case .watching: break
        case .connecting: sentence += "; connecting to the system bus for resume and timedate1"
        case .unreachable(let reason): sentence += "; not resume or timedate1: the system bus cannot be reached (\(reason))"
        case .lost: sentence += "; not resume or timedate1: the system bus went away"
        }
        return sentence
    }
}
