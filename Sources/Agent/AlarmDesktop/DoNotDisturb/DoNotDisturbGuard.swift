import AlarmModel
import AlarmPresentation
import AlarmRecords
import DBus
import FoundationEssentials
import Logging
import Synchronization

/// Watches the desktop's do-not-disturb and carries out `Breakthrough`'s decisions: lifts it
/// before an alert is posted where the desktop would hide the alert, puts it back when the last
/// such alert ends (only if it still holds the value Reveille set), holds back alerts that do not
/// break through, and replays the journal left by a crash.
///
/// Everything happens in order on one task: presentation effects (handed on to the notifications
/// through `Outputs.post`, after any lift), server changes (`NameOwnerChanged` of
/// `org.freedesktop.Notifications`) and setting changes (the backend's watch). Nothing is polled.
///
/// One shortcut keeps alerts on time: when the task has nothing queued and the watched setting
/// says an alert that breaks through needs no lift, `submit` posts the alert at once, on the
/// caller's thread, and the task records the alert after, as if it had decided it.
package final class DoNotDisturbGuard: Sendable {
    /// Where the guard's decisions go.
    package struct Outputs: Sendable {
        /// Hands an effect on to the notifications (after any lift, in order).
        package var post: @Sendable (PresentationEffect) -> Void
        /// An alert without breakthrough waits: ring it as `HeldSound` says.
        package var hold: @Sendable (AlarmRecord) -> Void
        /// A waiting alert is shown now (post it, ring it fully).
        package var release: @Sendable (AlarmRecord) -> Void

        /// Creates the outputs.
        package init(
            post: @escaping @Sendable (PresentationEffect) -> Void, hold: @escaping @Sendable (AlarmRecord) -> Void,
            release: @escaping @Sendable (AlarmRecord) -> Void
        ) {
            self.post = post
            self.hold = hold
            self.release = release
        }
    }

    /// How the guard finds the desktop.
    package struct Configuration: Sendable {
        /// The journal (`dnd-restore.json` in the store's folder).
        package var journal: RestoreJournal
        /// The session bus address; `nil` is `DBUS_SESSION_BUS_ADDRESS`.
        package var busAddress: String?
        /// `XDG_CONFIG_HOME` (Plasma's `plasmanotifyrc`).
        package var configHome: URL
        /// What alarms without breakthrough do while do-not-disturb is on.
        package var heldSound: DoNotDisturbStatus.HeldSound

        /// Creates a configuration.
        package init(journal: RestoreJournal, busAddress: String? = nil, configHome: URL, heldSound: DoNotDisturbStatus.HeldSound = .quiet)
        {
            self.journal = journal
            self.busAddress = busAddress
            self.configHome = configHome
            self.heldSound = heldSound
        }
    }

    enum Event: Sendable {
        case effect(PresentationEffect)
        /// An alert `submit` posted at once: the task records it and checks the setting.
        case alertPosted(AlarmRecord)
        case serverMayHaveChanged
        case settingMayHaveChanged(generation: Int)
        case flush(CheckedContinuation<Void, Never>)
        case shutDown(CheckedContinuation<Void, Never>)
    }

    /// The configuration.
    package let configuration: Configuration
    private let events: AsyncStream<Event>.Continuation
    private let stream: AsyncStream<Event>
    private let current = Mutex(DoNotDisturbStatus.starting)
    private let observers = Mutex<[@Sendable (DoNotDisturbStatus) -> Void]>([])
    private let loop = Mutex<Task<Void, Never>?>(nil)
    private let logger: Logger

    /// What `submit` needs to post an alert without waiting for the task.
    private struct Shortcut {
        /// Events handed to the task and not yet handled.
        var queued = 0
        /// Whether the task said, after its last event, that an alert that breaks through would
        /// be posted at once (setting watched and read, no lift needed).
        var postsAtOnce = false
        /// `Outputs.post`, once started.
        var post: (@Sendable (PresentationEffect) -> Void)?
    }
    private let shortcut = Mutex(Shortcut())

    /// Creates the guard; `start(outputs:)` starts it.
    package init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        (stream, events) = AsyncStream.makeStream(of: Event.self)
        current.withLock { $0.heldSound = configuration.heldSound }
    }

    /// Starts watching (the server is looked up first, the journal replayed) and handling effects.
    package func start(outputs: Outputs) {
        let worker = Worker(guard: self, outputs: outputs, logger: logger)
        let stream = self.stream
        shortcut.withLock { $0.post = outputs.post }
        enqueue(.serverMayHaveChanged)
        let task = Task {
            await worker.connect()
            for await event in stream {
                let stop = await worker.handle(event)
                let postsAtOnce = worker.postsAtOnce
                shortcut.withLock { shortcut in
                    shortcut.queued -= 1
                    shortcut.postsAtOnce = postsAtOnce
                }
                if stop { break }
            }
            worker.close()
        }
        loop.withLock { $0 = task }
    }

    /// Hands an effect on, in order (the notifications see it once any lift is done). An alert
    /// that breaks through is posted before this returns when nothing waits and no lift is needed.
    package func submit(_ effect: PresentationEffect) {
        if case .alert(let record) = effect, record.definition.breakthrough {
            let posted = shortcut.withLock { shortcut -> Bool in
                // Under the lock: the task posts only while it handles an event, and none is queued.
                guard shortcut.queued == 0, shortcut.postsAtOnce, let post = shortcut.post else { return false }
                post(effect)
                shortcut.queued += 1
                events.yield(.alertPosted(record))
                return true
            }
            if posted { return }
        }
        enqueue(.effect(effect))
    }

    /// Hands an event to the task, counted until it is handled.
    private func enqueue(_ event: Event) {
        shortcut.withLock { shortcut in
            shortcut.queued += 1
            events.yield(event)
        }
    }

    /// The status now.
    package var status: DoNotDisturbStatus { current.withLock { $0 } }

    /// Calls `handler` (on the guard's task) each time the status changes.
    package func onStatusChange(_ handler: @escaping @Sendable (DoNotDisturbStatus) -> Void) {
        observers.withLock { $0.append(handler) }
    }

    /// Waits until everything submitted so far has been handled.
    package func flush() async {
        await withCheckedContinuation { enqueue(.flush($0)) }
    }

    /// Puts back what was lifted (the alerts still ringing ring again when the agent starts) and stops.
    package func shutDown() async {
        guard loop.withLock({ $0 }) != nil else { return }
        await withCheckedContinuation { continuation in
            let terminated = shortcut.withLock { shortcut in
                shortcut.queued += 1
                if case .terminated = events.yield(.shutDown(continuation)) { return true }
                return false
            }
            if terminated { continuation.resume() }
        }
        events.finish()
    }

    func publish(_ status: DoNotDisturbStatus) {
        let changed = current.withLock { current -> Bool in
            guard current != status else { return false }
            current = status
            return true
        }
        guard changed else { return }
        for observer in observers.withLock({ $0 }) { observer(status) }
    }

    func tick(_ event: Event) { enqueue(event) }
}

/// The guard's state, owned by its one task.
private final class Worker {
    let owner: DoNotDisturbGuard  // strong: the loop ends at shutDown, and the cycle with it
    let outputs: DoNotDisturbGuard.Outputs
    let logger: Logger
    var journal: RestoreJournal { owner.configuration.journal }

    var connection: DBusConnection?
    var detector: ServerDetector?
    var server: ServerDetector.Server?
    var backend: (any DoNotDisturbBackend)?
    var generation = 0
    var watches: [Task<Void, Never>] = []
    var machine = Breakthrough()
    var ringing: [UUID: AlarmRecord] = [:]
    var reading: DoNotDisturbReading?
    var readFailure: String?
    /// Whether the server was looked up once.
    var looked = false
    /// Whether the backend's setting is watched (its changes arrive as events).
    var watched = false

    init(guard owner: DoNotDisturbGuard, outputs: DoNotDisturbGuard.Outputs, logger: Logger) {
        self.owner = owner
        self.outputs = outputs
        self.logger = logger
    }

    /// Joins the session bus and watches `org.freedesktop.Notifications` change hands.
    func connect() async {
        do {
            let connection = try owner.configuration.busAddress.map { try DBusConnection.connect(address: $0) } ?? DBusConnection.session()
            self.connection = connection
            detector = ServerDetector(connection: connection, configHome: owner.configuration.configHome)
            let changes = try await connection.subscribe(
                MatchRule(
                    sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                    member: "NameOwnerChanged", arg0: ServerDetector.notifications))
            let owner = self.owner
            watches.append(Task { for await _ in changes { owner.tick(.serverMayHaveChanged) } })
        } catch {
            logger.warning("Do-not-disturb is not watched: no session bus", metadata: ["error": "\(error)"])
        }
    }

    func close() {
        for watch in watches { watch.cancel() }
        watches = []
        backend?.stop()
        backend = nil
        connection?.close()
    }

    /// Handles one event; true when the guard is to stop.
    func handle(_ event: DoNotDisturbGuard.Event) async -> Bool {
        switch event {
        case .effect(let effect):
            await handle(effect)
        case .alertPosted(let record):
            ringing[record.id] = record
            // Posted already, on the conditions last read (`postsAtOnce`: no lift needed, and
            // nothing came between): the machine records the same decision.
            let actions = machine.alertStarted(record.id, breaksThrough: true, conditions(reading))
            await carryOut(actions.filter { $0 != .post(record.id) })
        case .serverMayHaveChanged:
            await serverMayHaveChanged()
        case .settingMayHaveChanged(let generation):
            guard generation == self.generation else { break }
            let conditions = await read()
            await carryOut(machine.observed(conditions))
        case .flush(let continuation):
            continuation.resume()
        case .shutDown(let continuation):
            if case .lifted(let entry) = machine.lift { await restore(entry) }
            continuation.resume()
            return true
        }
        publishStatus()
        return false
    }

    // MARK: Effects

    func handle(_ effect: PresentationEffect) async {
        switch effect {
        case .alert(let record):
            ringing[record.id] = record
            let conditions = await read()
            let actions = machine.alertStarted(record.id, breaksThrough: record.definition.breakthrough, conditions)
            await carryOut(actions)
        case .endAlert(let id, _):
            outputs.post(effect)
            ringing[id] = nil
            await alertEnded(id)
        case .countdown(let record):
            outputs.post(effect)
            if ringing.removeValue(forKey: record.id) != nil { await alertEnded(record.id) }
        case .endCountdown, .missed:
            outputs.post(effect)
        }
    }

    func alertEnded(_ id: UUID) async {
        let takenOver = machine.lift == .takenOver
        await carryOut(machine.alertEnded(id))
        if takenOver, machine.lift == .none {
            logger.info("The last alert ended; do-not-disturb stays as the person set it during the alert")
        }
    }

    func carryOut(_ actions: [Breakthrough.Action]) async {
        for action in actions {
            switch action {
            case .lift:
                await lift()
            case .post(let id):
                guard let record = ringing[id] else { break }
                // An alarm without breakthrough waited for this decision to start its sound too.
                if record.definition.breakthrough { outputs.post(.alert(record)) } else { outputs.release(record) }
            case .hold(let id):
                if let record = ringing[id] {
                    logger.info("Do-not-disturb is on: the alert waits", metadata: ["alarm": "\(id)"])
                    outputs.hold(record)
                }
            case .release(let id):
                if let record = ringing[id] {
                    logger.info("Do-not-disturb ended: showing the alert that waited", metadata: ["alarm": "\(id)"])
                    outputs.release(record)
                }
            case .restore(let entry):
                await restore(entry)
            case .forget:
                logger.info("Do-not-disturb was changed during the alert: it stays as the person set it")
                journal.clear()
            }
        }
    }

    /// Journals the current value, then writes the lifted one.
    func lift() async {
        guard let backend, let value = reading?.value, let lifted = backend.liftedValue(from: value) else { return }
        let entry = RestoreEntry(owner: backend.desktop.rawValue, setting: backend.settingName, saved: value, lifted: lifted)
        do {
            try journal.record(entry)
        } catch {
            logger.error("Do-not-disturb is not lifted: its journal could not be written", metadata: ["error": "\(error)"])
            machine.liftFailed()
            return
        }
        do {
            try await backend.write(lifted)
            machine.didLift(entry)
            reading?.value = lifted
            reading?.isOn = false
            logger.info("Do-not-disturb lifted while the alert rings", metadata: ["setting": "\(entry.setting)", "was": "\(value)"])
        } catch {
            journal.clear()
            machine.liftFailed()
            logger.error("Do-not-disturb could not be lifted", metadata: ["setting": "\(entry.setting)", "error": "\(error)"])
        }
    }

    /// Puts `entry.saved` back if the setting still holds `entry.lifted`; clears the journal.
    func restore(_ entry: RestoreEntry) async {
        guard let backend = await backend(for: entry) else {
            logger.warning("Do-not-disturb cannot be put back yet: its desktop is not running", metadata: ["setting": "\(entry.setting)"])
            return
        }
        do {
            let now = try await backend.read()
            if now.value == entry.lifted {
                try await backend.write(entry.saved)
                logger.info("Do-not-disturb put back", metadata: ["setting": "\(entry.setting)", "value": "\(entry.saved)"])
            } else {
                logger.info(
                    "Do-not-disturb was changed meanwhile: left as it is",
                    metadata: ["setting": "\(entry.setting)", "value": "\(now.value)"])
            }
            journal.clear()
            if backend !== self.backend { backend.stop() }
            _ = await read()
        } catch {
            logger.error(
                "Do-not-disturb could not be put back; trying again later", metadata: ["setting": "\(entry.setting)", "error": "\(error)"])
        }
    }

    /// The backend that can put `entry` back: the current one when its desktop matches, or a
    /// GSettings one (GSettings works without the desktop's server running).
    func backend(for entry: RestoreEntry) async -> (any DoNotDisturbBackend)? {
        if let backend, backend.desktop.rawValue == entry.owner, backend.settingName == entry.setting { return backend }
        guard let desktop = NotificationDesktop(rawValue: entry.owner), GSettingsBackend.Key.of(desktop) != nil else { return nil }
        return GSettingsBackend(desktop: desktop, connection: connection)
    }

    // MARK: The server and its setting

    func serverMayHaveChanged() async {
        guard let detector else {
            await replayJournalAsync()
            return
        }
        let found: ServerDetector.Server?
        do {
            found = try await detector.detect()
        } catch {
            logger.warning("The notification server did not say who it is", metadata: ["error": "\(error)"])
            found = nil
        }
        guard !looked || found?.owner != server?.owner else { return }
        looked = true
        backend?.stop()
        backend = nil
        watched = false
        generation += 1
        server = found
        reading = nil
        if let found {
            logger.info("Notification server", metadata: ["server": "\(found.description)", "desktop": "\(found.desktop.rawValue)"])
            if let backend = await detector.backend(for: found.desktop) {
                self.backend = backend
                let generation = self.generation
                do {
                    let ticks = try await backend.watch()
                    let owner = self.owner
                    watches.append(Task { for await _ in ticks { owner.tick(.settingMayHaveChanged(generation: generation)) } })
                    watched = true
                } catch {
                    logger.warning("Do-not-disturb is read but not watched", metadata: ["error": "\(error)"])
                }
            }
        }
        await replayJournalAsync()
        let conditions = await read()
        await carryOut(machine.observed(conditions))
    }

    /// Puts back a setting a crashed agent left lifted, unless this agent lifted it itself.
    func replayJournalAsync() async {
        guard !machine.isLiftedNow, let entry = journal.load() else { return }
        logger.notice("Putting back do-not-disturb left lifted by an agent that stopped", metadata: ["setting": "\(entry.setting)"])
        await restore(entry)
    }

    /// Reads the setting now (nothing known without a backend).
    func read() async -> Breakthrough.Conditions {
        guard let backend else {
            reading = nil
            readFailure = nil
            return conditions(nil)
        }
        do {
            reading = try await backend.read()
            readFailure = nil
        } catch {
            reading = nil
            readFailure = "\(error)"
        }
        return conditions(reading)
    }

    /// The conditions a reading of the setting gives (without a backend, the server's default).
    func conditions(_ reading: DoNotDisturbReading?) -> Breakthrough.Conditions {
        guard let backend else {
            let critical = server.map { ServerDetector.criticalShownByDefault($0.desktop) } ?? true
            return .init(isOn: false, criticalShown: critical, canLift: false, value: nil)
        }
        guard let reading else { return .unknown }
        return .init(
            isOn: reading.isOn, criticalShown: reading.criticalShown, canLift: backend.liftedValue(from: reading.value) != nil,
            value: reading.value)
    }

    /// Whether an alert that breaks through, submitted now, would be posted at once with nothing
    /// to read or lift first: the server was looked up, and the setting is watched and read (or
    /// there is none), and either a lift is in place or none is needed.
    var postsAtOnce: Bool {
        guard looked else { return false }
        guard backend != nil else { return true }
        guard watched, reading != nil else { return false }
        return machine.lift != .none || !conditions(reading).needsLift
    }

    // MARK: Status

    func publishStatus() {
        var status = DoNotDisturbStatus(
            server: server?.description ?? (connection == nil ? "unknown (no session bus)" : "none"),
            desktop: server?.desktop, setting: backend?.settingName, state: .unknown, way: .unknown,
            lifted: machine.isLiftedNow, held: machine.held.count, heldSound: owner.configuration.heldSound)
        if machine.isLiftedNow {
            status.state = .on
            status.way = .liftedWhileRinging
        } else if let reading {
            status.state = reading.isOn ? .on : .off
            status.detail = reading.detail
            if !reading.isOn {
                status.way = .notNeeded
            } else if reading.criticalShown {
                status.way = .shownAsCritical
            } else if let backend, backend.liftedValue(from: reading.value) != nil {
                status.way = .liftedWhileRinging
            } else {
                status.way = .soundOnly
            }
        } else if let readFailure {
            status.detail = "could not be read: \(readFailure)"
        } else if let server {
            status.way = ServerDetector.criticalShownByDefault(server.desktop) ? .shownAsCritical : .unknown
            status.detail =
                server.desktop == .other
                ? "\(server.description)'s do-not-disturb is not known to Reveille"
                : "\(server.desktop.displayName)'s do-not-disturb is not read here"
        }
        owner.publish(status)
    }
}
