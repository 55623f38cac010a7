import AlarmCore
import AlarmModel
import DBus
import FoundationEssentials
import Logging
import Synchronization

/// What besides its kernel timers makes the agent check its deadlines again: the machine resuming
/// from suspend (logind), the time zone changing (timedate1 and the `localtime` file) and the zone's
/// rules changing (its file in the system's time-zone database, replaced by a tzdata update), wired
/// to the engine, with what `reveille status` reports about them.
///
/// Clock sets need nothing here: the clock's `CLOCK_REALTIME` timer is armed with
/// `TFD_TIMER_CANCEL_ON_SET`. Each source is optional: without a system bus the `localtime` file is
/// still watched, and when the system bus goes away the agent serves on.
final class WakeSources: Sendable {
    /// Whether alarms can wake this machine from suspend, and how.
    var capability: WakeCapability {
        WakeCapability.assess(
            rtcClassDirectory: rtcClassDirectory, wakeTimers: clock.wakeTimers, declined: !wakeFromSuspend,
            graceWindow: graceWindow, routes: router?.report)
    }

    /// The other routes of waking the machine, when the agent's timers are not wake timers.
    let router: WakeRouter?
    private let rtcClassDirectory: String
    private let wakeFromSuspend: Bool
    private let graceWindow: TimeInterval

    private let engine: AlarmEngine
    private let clock: SystemClock
    private let systemBusAddress: String?
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var localTime: FileEntryWatcher?
        var localTimeProblem: String?
        /// The watch of the current zone's file in the time-zone database, and its task.
        var zoneRules: (watcher: FileEntryWatcher, task: Task<Void, Never>)?
        var systemBus = SystemBus.connecting
        var systemEvents: SystemEvents?
        /// The watch of the system bus's socket file, for its coming back.
        var systemSocket: FileEntryWatcher?
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
        /// It could not be reached: the reason, and when it is tried again.
        case unreachable(String, retry: String)
        /// It went away after the agent had subscribed; when it is tried again.
        case lost(retry: String)

        /// Whether it is unreachable or lost.
        var isDown: Bool {
            switch self {
            case .unreachable, .lost: true
            case .connecting, .watching: false
            }
        }

        /// Whether it went away after the agent had subscribed.
        var isLost: Bool {
            if case .lost = self { return true }
            return false
        }
    }

    /// Creates the wake sources; `start()` starts watching. `router` wakes the machine where the
    /// clock's timers do not; the real-time clocks are looked for in `rtcClassDirectory`.
    init(
        engine: AlarmEngine, clock: SystemClock, router: WakeRouter?, systemBusAddress: String?, wakeFromSuspend: Bool,
        graceWindow: TimeInterval, rtcClassDirectory: String = WakeCapability.defaultRTCClassDirectory, logger: Logger
    ) {
        self.engine = engine
        self.clock = clock
        self.router = router
        self.systemBusAddress = systemBusAddress
        self.wakeFromSuspend = wakeFromSuspend
        self.graceWindow = graceWindow
        self.rtcClassDirectory = rtcClassDirectory
        self.logger = logger
    }

    /// Watches the `localtime` file at once, and connects to the system bus in the background.
    func start() {
        let path = clock.localTimePath
        let watcher: FileEntryWatcher?
        do {
            watcher = try FileEntryWatcher(path: path)
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
            tasks.append(
                Task { [weak self] in
                    for await _ in watcher.changes {
                        await self?.timeZoneMayHaveChanged(source: path)
                    }
                })
        }
        tasks.append(Task { [weak self] in await self?.watchSystemBus() })
        state.withLock { $0.tasks = tasks }
        watchZoneRules(of: clock.read().timeZone)
    }

    /// Watches the file the zone's rules are read from (`ZoneRules`), in place of the zone watched
    /// before: a tzdata update replaces it, and clock-time alarms are computed again by the new rules.
    private func watchZoneRules(of zone: ZoneRules) {
        let path: String? =
            switch zone.origin {
            case .systemDatabase(let path): path
            case .posixRule: nil
            }
        guard state.withLock({ $0.zoneRules?.watcher.path }) != path else { return }
        var watch: (watcher: FileEntryWatcher, task: Task<Void, Never>)?
        if let path {
            do {
                let watcher = try FileEntryWatcher(path: path)
                let task = Task { [weak self] in
                    for await _ in watcher.changes {
                        await self?.timeZoneMayHaveChanged(source: path)
                    }
                }
                watch = (watcher, task)
            } catch {
                logger.notice("Not watching the time zone's rules", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
        // The watch it replaces ends; so does this one if the sources were stopped meanwhile.
        let ended = state.withLock { state -> (watcher: FileEntryWatcher, task: Task<Void, Never>)? in
            if state.stopped { return watch }
            defer { state.zoneRules = watch }
            return state.zoneRules
        }
        ended?.task.cancel()
        ended?.watcher.stop()
    }

    /// Stops every watch.
    func stop() {
        let (watchers, events, tasks) = state.withLock { state in
            state.stopped = true
            defer {
                state.localTime = nil
                state.zoneRules = nil
                state.systemSocket = nil
                state.systemEvents = nil
                state.tasks = []
            }
            return (
                [state.localTime, state.systemSocket, state.zoneRules?.watcher].compactMap { $0 }, state.systemEvents,
                state.tasks + [state.zoneRules?.task].compactMap { $0 }
            )
        }
        for task in tasks { task.cancel() }
        for watcher in watchers { watcher.stop() }
        events?.close()
    }

    // MARK: - Events

    /// Connects to the system bus and relays its events; when it cannot be reached or goes away,
    /// connects again when its socket file is made anew (a restarted bus), seen through inotify.
    ///
    /// A connection that is lost after lasting a second is tried again at once (a socket that
    /// systemd holds stays in place while the bus restarts behind it); any other retry waits for
    /// the socket to change, so a bus that keeps refusing or dropping the agent never makes it spin.
    private func watchSystemBus() async {
        let address = systemBusAddress ?? DBusConnection.systemBusAddress
        let socket = (try? DBusAddress.parse(address))?.lazy.compactMap(\.socketPath).first
        // Watching before the first try: a socket made in between is not missed.
        let watcher = socket.flatMap { try? FileEntryWatcher(path: $0) }
        guard
            state.withLock({ state in
                state.systemSocket = watcher
                return !state.stopped
            })
        else {
            watcher?.stop()
            return
        }
        let retry =
            switch (socket, watcher) {
            case (let socket?, _?): "connecting again when \(socket) is made anew"
            case (let socket?, nil): "not tried again: the folder of \(socket) cannot be watched"
            case (nil, _): "not tried again: its address names no socket file to watch"
            }
        var socketChanges = watcher?.changes.makeAsyncIterator()
        var next = NextConnection.atOnce
        while !Task.isCancelled {
            switch next {
            case .stop:
                return
            case .whenSocketChanges:
                // No socket to watch (an abstract or TCP address), or the watch ended: give up.
                guard socketChanges != nil, await socketChanges?.next() != nil else { return }
            case .atOnce:
                break
            }
            next = await connectAndRelay(address: address, retry: retry)
        }
    }

    /// When to connect to the system bus next.
    private enum NextConnection {
        /// Now: the first try, or a connection that served a second was lost.
        case atOnce
        /// When the socket file changes: it could not be reached, or dropped the agent at once.
        case whenSocketChanges
        /// Never: the agent is stopping.
        case stop
    }

    /// One connection to the system bus: connects, relays its events until it goes away, and keeps
    /// the state `status` reports. `retry` says when it is tried again.
    private func connectAndRelay(address: String, retry: String) async -> NextConnection {
        let events: SystemEvents
        do {
            events = try await SystemEvents.watch(address: address)
        } catch {
            let reason = (error as? DBusError).map { $0.message.isEmpty ? $0.name : $0.message } ?? "\(error)"
            let (stopped, wasReported) = state.withLock { state in
                let wasReported = state.systemBus.isDown
                // Once lost, it stays "went away" until it is back.
                if !state.systemBus.isLost { state.systemBus = .unreachable(reason, retry: retry) }
                return (state.stopped, wasReported)
            }
            if stopped { return .stop }
            if !wasReported {
                logger.notice(
                    "The system bus cannot be reached: resume from suspend and timedate1 are not watched; time-zone changes are still seen in the time-zone file",
                    metadata: ["error": "\(reason)", "retry": "\(retry)"])
            }
            return .whenSocketChanges
        }
        let (adopted, again, wasDown) = state.withLock { state -> (Bool, Bool, Bool) in
            guard !state.stopped else { return (false, false, false) }
            let previous = state.systemBus
            state.systemEvents = events
            state.systemBus = .watching
            return (true, previous.isLost, previous.isDown)
        }
        guard adopted else {
            events.close()
            return .stop
        }
        logger.info(
            again
                ? "Watching logind and timedate1 on the system bus again"
                : "Watching logind and timedate1 on the system bus for resume and time-zone changes")
        if wasDown {
            // A resume or a zone change while the bus was away went unseen: check as if both came.
            await engine.resumedFromSuspend()
            await timeZoneMayHaveChanged(source: "the system bus is back")
        }
        let connected = ContinuousClock.now
        for await event in events.events {
            switch event {
            case .goingToSleep:
                logger.debug("The machine is going to sleep")
            case .resumed:
                await engine.resumedFromSuspend()
                router?.recheck()
                logger.debug("Resumed from suspend: every deadline was checked again")
            case .timeZoneChanged(let zone):
                await timeZoneMayHaveChanged(source: "timedate1" + (zone.map { " (\($0))" } ?? ""))
            }
        }
        let lost = state.withLock { state -> Bool in
            state.systemEvents = nil
            guard !state.stopped else { return false }
            state.systemBus = .lost(retry: retry)
            return true
        }
        guard lost else { return .stop }
        logger.notice("The system bus went away: resume from suspend and timedate1 are not watched until it is back")
        return ContinuousClock.now - connected >= .seconds(1) ? .atOnce : .whenSocketChanges
    }

    /// Reads the system time zone (and its rules) again and has the engine compute clock-time
    /// alarms in it.
    private func timeZoneMayHaveChanged(source: String) async {
        let before = clock.read().timeZone
        let zone = clock.refreshTimeZone()
        watchZoneRules(of: zone)
        await engine.timeZoneChanged()
        router?.recheck()
        if zone.identifier != before.identifier {
            logger.info(
                "The time zone changed: clock-time alarms follow it",
                metadata: ["zone": "\(zone.identifier)", "was": "\(before.identifier)", "source": "\(source)"])
        } else {
            logger.debug("The time zone was checked again", metadata: ["zone": "\(zone.identifier)", "source": "\(source)"])
        }
    }

    // MARK: - Status

    /// The connection to the system bus while it is up, for asking its services (logind).
    var systemBus: DBusConnection? { state.withLock { $0.systemEvents?.connection } }

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
        let rules = clock.read().timeZone
        if let watched = state.withLock({ $0.zoneRules?.watcher.path }) { parts.append("time-zone rules (\(watched))") }
        if bus == .watching { parts.append("resume (logind)") }
        var sentence = parts.joined(separator: ", ")
        if !file { sentence += "; not \(path): it \(problem ?? "is not watched")" }
        if case .posixRule = rules.origin {
            sentence += "; \(rules.identifier) is not in \(ZoneRules.databaseDirectory), so its rules are that POSIX rule's"
        }
        if let tz = ProcessInfo.processInfo.environment["TZ"], !tz.isEmpty,
            let zone = SystemClock.systemTimeZone(localTimePath: path, tz: tz)
        {
            sentence += "; TZ is set, so the zone stays \(zone.identifier) whatever the system's is"
        }
        switch bus {
        case .watching: break
        case .connecting: sentence += "; connecting to the system bus for resume and timedate1"
        case .unreachable(let reason, let retry):
            sentence += "; not resume or timedate1: the system bus cannot be reached (\(reason)); \(retry)"
        case .lost(let retry):
            sentence += "; not resume or timedate1: the system bus went away; \(retry)"
        }
        return sentence
    }
}
