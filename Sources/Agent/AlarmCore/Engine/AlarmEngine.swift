import AgentRuntime
import AlarmModel
import AlarmPresentation
import AlarmRecords
import FoundationEssentials
import Logging

/// Who is asking: an app, which sees and changes only its own alarms, or the person at the
/// machine (the `reveille` command), who sees and manages all.
package enum AlarmCaller: Hashable, Sendable {
    /// The person using the desktop.
    case user
    /// An app, by its identity as the bus reports it.
    case app(String)

    /// The owner name alarms scheduled by this caller get.
    package var ownerName: String {
        switch self {
        case .user: AlarmOwner.user
        case .app(let id): id
        }
    }

    /// Whether this caller may see and change the alarm.
    package func mayAccess(_ record: AlarmRecord) -> Bool {
        switch self {
        case .user: true
        case .app(let id): record.owner == id
        }
    }
}

/// The engine: keeps every alarm, runs each through its state machine, stores every change before
/// telling anyone, and wakes up once, at the earliest deadline.
///
/// It publishes the whole list of alarms after every change, as AlarmKit's `alarmUpdates` does.
/// Deadline-driven transitions that come due together are stored in one transaction, so two
/// hundred alarms due in the same second ring together.
package actor AlarmEngine {
    private let store: AlarmStore
    private let clock: any AlarmClock
    private let machine: AlarmStateMachine
    private let presenter: (any AlarmPresenter)?
    private let logger: Logger

    private var records: [UUID: AlarmRecord] = [:]
    private var alarmsPerOwner: [String: Int] = [:]
    private var wallDeadlines = DeadlineQueue<UUID, Date>()
    private var elapsedDeadlines = DeadlineQueue<UUID, BootMoment>()
    private var subscribers: [UUID: Subscriber] = [:]
    private var changeObserver: (@Sendable ([AlarmChange]) -> Void)?
    private var wakeTask: Task<Void, Never>?
    private var armedWakeUp: WakeUp?
    private var wakeGeneration = 0
    /// The engine's latest clock reading: what its deadlines were worked out from.
    private var latestReading: ClockReading?
    /// Why the wake-up could not be armed, while it cannot; `nil` once it is.
    package private(set) var wakeTimerTrouble: WakeTimerTrouble?
    private var started = false
    private var pendingSchedules: [PendingSchedule] = []
    private var scheduleCommitQueued = false

    /// The engine's thread: its own, because a commit blocks in `fdatasync` and
    /// must not hold one of the few threads of Swift's cooperative pool, where every call's
    /// decoding and replies run.
    private let executor = ThreadExecutor(name: "reveille-engine")

    /// How many jobs (calls, wake-ups) wait for the engine's thread: tests that queue calls behind
    /// a held write wait for them to be queued.
    nonisolated var queuedJobCount: Int { executor.queuedJobCount }

    /// Runs the engine on a thread of its own.
    package nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// A `schedule` call waiting for the next commit.
    private struct PendingSchedule {
        let id: UUID
        let definition: AlarmDefinition
        let caller: AlarmCaller
        let whenStored: (@Sendable (AlarmRecord) -> Void)?
        let continuation: CheckedContinuation<AlarmRecord, any Error>
    }

    private struct Subscriber {
        let caller: AlarmCaller
        let continuation: AsyncStream<[AlarmRecord]>.Continuation
    }

    /// Creates an engine over a store and a clock; call `start()` before anything else.
    package init(
        store: AlarmStore, clock: any AlarmClock, policy: AlarmPolicy = AlarmPolicy(),
        presenter: (any AlarmPresenter)? = nil, logger: Logger = Logger(label: "reveille.engine")
    ) {
        self.store = store
        self.clock = clock
        self.machine = AlarmStateMachine(policy: policy)
        self.presenter = presenter
        self.logger = logger
    }

    deinit { executor.finish() }

    // MARK: - Life cycle

    /// Loads the stored alarms, applies the missed-alert policy to those whose instant passed while
    /// nothing ran, presents what is alerting or counting down, and arms the wake-up.
    package func start() throws {
        guard !started else { return }
        started = true
        let reading = readClock()
        var loaded: [AlarmRecord] = []
        var rebased = AlarmStore.Changes()
        for var record in try store.loadAlarms() {
            if record.rebase(to: reading) { rebased.upserts.append(record) }
            loaded.append(record)
        }
        do {
            try store.apply(rebased)
        } catch {
            // A read-only store: the countdowns go on from this boot's clock all the same.
            logger.error("Could not store countdowns moved onto this boot's clock; carrying on", metadata: ["error": "\(error)"])
        }
        for record in loaded { insert(record) }
        // Show again what was alerting or counting down when the agent stopped.
        for record in loaded {
            switch record.phase {
            case .alerting: presenter?.perform(.alert(record))
            case .countdown, .paused: presenter?.perform(.countdown(record))
            case .scheduled: break
            }
        }
        settleDueDeadlines(at: reading)
        publish()
        rearm()
    }

    /// Stops waking up and ends every update stream. Everything is already stored.
    package func shutdown() {
        wakeTask?.cancel()
        wakeTask = nil
        armedWakeUp = nil
        for subscriber in subscribers.values { subscriber.continuation.finish() }
        subscribers.removeAll()
        changeObserver = nil
    }

    // MARK: - Requests

    /// Schedules an alarm with the caller's chosen id; scheduling an id again replaces the alarm.
    ///
    /// Returns once the alarm is stored. Throws `AlarmRequestError` for a bad configuration or
    /// an id that belongs to someone else, and `AlarmManager.AlarmError.maximumLimitReached` when the
    /// owner has as many alarms as the policy allows.
    ///
    /// Calls that come while a change is being written are stored together, in the next
    /// transaction (group commit: one fsync for all of them), each checked as if they had come one
    /// after another. A failed write fails every call in it, and changes nothing.
    ///
    /// `whenStored`, if given, is called with the stored alarm on the engine's thread as soon as
    /// the transaction is durable and its changes are observed (`observeChanges(_:)`), before this
    /// call resumes: a D-Bus service answers from there, without waiting for its caller's thread.
    @discardableResult
    package func schedule(
        id: UUID, definition: AlarmDefinition, caller: AlarmCaller,
        whenStored: (@Sendable (AlarmRecord) -> Void)? = nil
    ) async throws -> AlarmRecord {
        try await withCheckedThrowingContinuation { continuation in
            pendingSchedules.append(
                PendingSchedule(id: id, definition: definition, caller: caller, whenStored: whenStored, continuation: continuation))
            guard !scheduleCommitQueued else { return }
            scheduleCommitQueued = true
            Task { self.commitPendingSchedules() }
        }
    }

    /// Stores every `schedule` call waiting, in one transaction, and answers each.
    private func commitPendingSchedules() {
        scheduleCommitQueued = false
        let batch = pendingSchedules
        pendingSchedules = []
        guard !batch.isEmpty else { return }
        let reading = readClock()
        var transitions: [(UUID, AlarmStateMachine.Transition)] = []
        var accepted: [(PendingSchedule, AlarmRecord)] = []
        // The alarms and counts as the calls before in this batch leave them.
        var batchRecords: [UUID: AlarmRecord] = [:]
        var batchCounts: [String: Int] = [:]
        for request in batch {
            do {
                let existing = batchRecords[request.id] ?? records[request.id]
                if let existing {
                    guard request.caller.mayAccess(existing) else { throw AlarmRequestError.alarmNotFound(request.id) }
                }
                let owner = existing?.owner ?? request.caller.ownerName
                let count = alarmsPerOwner[owner, default: 0] + batchCounts[owner, default: 0]
                if existing == nil, count >= machine.policy.maximumAlarmsPerOwner {
                    throw AlarmManager.AlarmError.maximumLimitReached
                }
                let scheduled = try machine.schedule(id: request.id, owner: owner, definition: request.definition, at: reading)
                if let existing {
                    // Replacing: the old alarm is cancelled (its alert or countdown ended) in the same
                    // transaction that stores the new one.
                    transitions.append((request.id, try machine.handle(.cancel, to: existing, at: reading)))
                } else {
                    batchCounts[owner, default: 0] += 1
                }
                transitions.append((request.id, scheduled))
                batchRecords[request.id] = scheduled.record
                accepted.append((request, scheduled.record!))
            } catch {
                request.continuation.resume(throwing: error)
            }
        }
        do {
            try commit(transitions, mustStore: true)
        } catch {
            for (request, _) in accepted { request.continuation.resume(throwing: error) }
            return
        }
        settleDueDeadlines(at: reading)
        changed()
        let stored = accepted.map { (request, record) in (request, records[request.id] ?? record) }
        for (request, record) in stored { request.whenStored?(record) }
        for (request, record) in stored { request.continuation.resume(returning: record) }
    }

    /// Removes an alarm, whatever its state.
    package func cancel(id: UUID, caller: AlarmCaller) throws { try request(.cancel, id: id, caller: caller) }
    /// Ends an alerting alarm's alert.
    package func stop(id: UUID, caller: AlarmCaller) throws { try request(.stop, id: id, caller: caller) }
    /// Pauses a running countdown.
    package func pause(id: UUID, caller: AlarmCaller) throws { try request(.pause, id: id, caller: caller) }
    /// Resumes a paused countdown.
    package func resume(id: UUID, caller: AlarmCaller) throws { try request(.resume, id: id, caller: caller) }
    /// Snoozes or repeats an alerting alarm into its `postAlert` countdown.
    package func countdown(id: UUID, caller: AlarmCaller) throws { try request(.countdown, id: id, caller: caller) }
    /// Snoozes or repeats an alerting alarm for `seconds` instead of its `postAlert` duration.
    package func snooze(id: UUID, for seconds: TimeInterval, caller: AlarmCaller) throws {
        try request(.snooze(seconds), id: id, caller: caller)
    }

    /// Skips a repeating alarm's next alert; it rings again the time after.
    package func skip(id: UUID, caller: AlarmCaller) throws { try request(.skip, id: id, caller: caller) }
    /// Rings a skipped alert after all, if it is still ahead.
    package func unskip(id: UUID, caller: AlarmCaller) throws { try request(.unskip, id: id, caller: caller) }
    /// Turns an alarm off or on again, keeping its settings.
    package func setEnabled(_ enabled: Bool, id: UUID, caller: AlarmCaller) throws {
        try request(enabled ? .turnOn : .turnOff, id: id, caller: caller)
    }

    /// Changes some of an alarm's settings, keeping its id, its history and, where its time
    /// stays, its state (`AlarmStateMachine.edit`); returns the alarm once the change is stored.
    @discardableResult
    package func edit(id: UUID, applying change: AlarmEdit, caller: AlarmCaller) throws -> AlarmRecord {
        guard let record = records[id], caller.mayAccess(record) else { throw AlarmRequestError.alarmNotFound(id) }
        let reading = readClock()
        let transition = try machine.edit(record, applying: change, at: reading)
        _ = try commit([(id, transition)], mustStore: true)
        settleDueDeadlines(at: reading)
        changed()
        return records[id] ?? transition.record ?? record
    }

    /// Records in the alarm's latest alert's history that the phone backup rang `phones` (none:
    /// it found none reachable). Does nothing for an alarm with no alert in the history.
    package func recordPhonesRung(_ phones: [String], forAlarm id: UUID) throws {
        var changes = AlarmStore.Changes()
        changes.add([.recordHistory(.phonesRung(alarmID: id, phones: phones))])
        try store.apply(changes)
    }

    /// Whether the alarm's alert that began at `alertedAt` had the phone backup ring already (its
    /// history records the phones rung, or that none was reachable).
    package func phonesRang(forAlarm id: UUID, alertedAt: Date) throws -> Bool {
        try store.phonesRung(alarmID: id, alertedAt: alertedAt) != nil
    }

    /// Carries out a caller's request on one alarm, stored first.
    ///
    /// A request that ends a ringing alert (Stop, Snooze, Cancel) silences it before the store's
    /// `fsync`, and is carried out even when the store cannot take it (a full disk, a read-only
    /// folder): a person must always be able to silence an alarm. The caller then gets the
    /// store's error, and the alarm, still stored as ringing, rings again should the agent
    /// restart within the grace window: the safe side.
    private func request(_ event: AlarmStateMachine.Event, id: UUID, caller: AlarmCaller) throws {
        guard let record = records[id], caller.mayAccess(record) else { throw AlarmRequestError.alarmNotFound(id) }
        let reading = readClock()
        let notStored = try commit(
            [(id, try machine.handle(event, to: record, at: reading))], mustStore: true,
            endingAlert: record.state == .alerting)
        settleDueDeadlines(at: reading)
        changed()
        if let notStored { throw AlertEndedNotStored(id: id, underlying: notStored) }
    }

    /// Folds the store's write-ahead log back into its database (`AlarmStore.checkpoint()`), on
    /// the engine's thread, between commits: for a quiet moment, since changes wait meanwhile.
    ///
    /// Does nothing and returns false when an alarm or countdown is due within `margin`, so that
    /// no alert waits behind the checkpoint; the caller tries again later.
    package func checkpointStore(unlessDueWithin margin: Duration = .milliseconds(250)) throws -> Bool {
        let reading = readClock()
        if let wall = wallDeadlines.earliest()?.value, wall.timeIntervalSince(reading.now) < margin.timeInterval {
            return false
        }
        if let moment = elapsedDeadlines.earliest()?.value, moment.uptime - reading.uptime < margin { return false }
        try store.checkpoint()
        return true
    }

    // MARK: - Reading

    /// The alarms the caller may see, ordered by id.
    package func alarms(visibleTo caller: AlarmCaller) -> [AlarmRecord] {
        records.values.filter(caller.mayAccess).sorted { $0.id.precedes($1.id) }
    }

    /// One alarm, if the caller may see it.
    package func alarm(id: UUID, caller: AlarmCaller) throws -> AlarmRecord {
        guard let record = records[id], caller.mayAccess(record) else { throw AlarmRequestError.alarmNotFound(id) }
        return record
    }

    /// The number of alarms, all owners together.
    package var count: Int { records.count }

    /// The alert history, newest first.
    package func history(limit: Int = 1_000) throws -> [AlertHistoryEntry] {
        try store.history(limit: limit)
    }

    /// A stream of the caller's whole list of alarms: the current list at once, then a new one
    /// after every change. Slow readers see the newest list, never a stale one.
    package func updates(visibleTo caller: AlarmCaller) -> AsyncStream<[AlarmRecord]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [AlarmRecord].self, bufferingPolicy: .bufferingNewest(1))
        let key = UUID.random()
        subscribers[key] = Subscriber(caller: caller, continuation: continuation)
        continuation.yield(alarms(visibleTo: caller))
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(key) }
        }
        return stream
    }

    private func unsubscribe(_ key: UUID) {
        subscribers[key] = nil
    }

    /// Tells `observer` of the alarms' changes from now on, in order, one call per stored
    /// transaction with every alarm it changed: what a service that mirrors the alarms (as D-Bus
    /// objects) needs without rebuilding the whole list after every change, and what lets it
    /// send one signal for a transaction of many changes (a group commit, a time-zone change). It
    /// is told at once of every current alarm as `.updated`, in one call (none when there are no
    /// alarms).
    ///
    /// The observer runs on the engine, synchronously, after the transaction is stored and before
    /// the calls that made it return: a caller that hears of its change finds the mirror in step.
    /// It must be quick and must not call back into the engine. It replaces any earlier observer;
    /// `shutdown()` ends it.
    package func observeChanges(_ observer: @escaping @Sendable ([AlarmChange]) -> Void) {
        changeObserver = observer
        let current = records.values.sorted(by: { $0.id.precedes($1.id) }).map(AlarmChange.updated)
        if !current.isEmpty { observer(current) }
    }

    // MARK: - The world changed

    /// The wall clock was set: check every deadline again.
    package func clockChanged() { reevaluate(.clockChanged) }

    /// The machine resumed from suspend: check every deadline again.
    package func resumedFromSuspend() { reevaluate(.resumedFromSuspend) }

    /// The time zone changed: compute clock-time alarms again in the new zone.
    package func timeZoneChanged() { reevaluate(.timeZoneChanged) }

    private func reevaluate(_ event: AlarmStateMachine.Event) {
        let reading = readClock()
        var transitions: [(UUID, AlarmStateMachine.Transition)] = []
        for record in records.values {
            if let transition = try? machine.handle(event, to: record, at: reading) {
                transitions.append((record.id, transition))
            }
        }
        _ = try? commit(transitions, mustStore: false)
        settleDueDeadlines(at: reading)
        changed()
    }

    // MARK: - Deadlines

    /// Runs every deadline that has come, together, until none is due.
    private func settleDueDeadlines(at firstReading: ClockReading) {
        var reading = firstReading
        // Each round moves every due alarm on; an alarm is due again only if its next deadline has
        // also passed (a repeating alarm far behind), which the missed-alert policy bounds.
        for _ in 0..<8 {
            let due = dueAlarms(at: reading)
            guard !due.isEmpty else { return }
            var transitions: [(UUID, AlarmStateMachine.Transition)] = []
            for id in due {
                guard let record = records[id],
                    let transition = try? machine.handle(.deadlineReached, to: record, at: reading)
                else { continue }
                transitions.append((id, transition))
            }
            _ = try? commit(transitions, mustStore: false)
            reading = readClock()
        }
    }

    /// Takes the alarms whose deadline has come off the deadline queues; their transitions put
    /// their next deadlines back.
    private func dueAlarms(at reading: ClockReading) -> [UUID] {
        var due: [UUID] = []
        while let (id, date) = wallDeadlines.earliest(), date <= reading.now {
            due.append(id)
            wallDeadlines.set(id, nil)
        }
        let nowMoment = BootMoment(uptime: reading.uptime)
        while let (id, moment) = elapsedDeadlines.earliest(), moment <= nowMoment {
            due.append(id)
            elapsedDeadlines.set(id, nil)
        }
        return due
    }

    /// Reads the clock, keeping the reading as the basis of the next wake-up.
    private func readClock() -> ClockReading {
        let reading = clock.read()
        latestReading = reading
        return reading
    }

    /// Arms the wake-up for the earliest deadlines, unless the one armed asks for the same.
    ///
    /// A wait whose timers cannot be made (out of file descriptors, say) is tried again, after
    /// `WakeTimerTrouble.retryDelay(attempt:)`, until it is armed or replaced: a deadline is never
    /// left unarmed. The trouble is logged and kept in `wakeTimerTrouble` until a wait is armed.
    private func rearm() {
        let wakeUp = WakeUp(
            wall: wallDeadlines.earliest()?.value,
            elapsed: elapsedDeadlines.earliest().map { entry in
                records[entry.key].flatMap(\.elapsedDeadline)
            } ?? nil,
            basis: latestReading)
        if let armedWakeUp, wakeUp.hasSameDeadlines(as: armedWakeUp), wakeTask != nil { return }
        wakeTask?.cancel()
        armedWakeUp = wakeUp
        wakeGeneration += 1
        let generation = wakeGeneration
        let clock = self.clock
        let engine = WeakEngine(self)
        // Only a wake-up that follows trouble has something to report once armed: the usual
        // re-arm costs no hop back to the engine.
        let troubled = wakeTimerTrouble != nil
        // On the engine's own thread: when the timer fires, the wait resumes there and the hop to
        // `woke` is the next job of the same thread, not a wake-up of a worker and then of it.
        wakeTask = Task(executorPreference: executor) {
            for attempt in 1... {
                do {
                    let reason = try await clock.wait(for: wakeUp) {
                        guard troubled || attempt > 1 else { return }
                        Task { await engine.engine?.wakeArmed(generation: generation) }
                    }
                    await engine.engine?.woke(reason, generation: generation)
                    return
                } catch {
                    if error is CancellationError || Task.isCancelled { return }
                    guard await engine.engine?.wakeFailed(error, attempt: attempt, generation: generation) == true else { return }
                    do { try await Task.sleep(for: WakeTimerTrouble.retryDelay(attempt: attempt)) } catch { return }
                }
            }
        }
    }

    /// Notes that the current wake-up's timers are set; logs the end of any trouble.
    private func wakeArmed(generation: Int) {
        guard generation == wakeGeneration, let trouble = wakeTimerTrouble else { return }
        wakeTimerTrouble = nil
        logger.notice(
            "The wake-up timer is armed again", metadata: ["attempts": "\(trouble.attempts)", "since": "\(trouble.since)"])
    }

    /// Notes a wake-up whose timers could not be set; false when it was replaced meanwhile (the
    /// new one is tried instead).
    private func wakeFailed(_ error: any Error, attempt: Int, generation: Int) -> Bool {
        guard generation == wakeGeneration else { return false }
        let reason = "\(error)"
        if wakeTimerTrouble == nil {
            logger.error(
                "The wake-up timer could not be armed; trying again until it is",
                metadata: ["error": "\(reason)"])
        }
        wakeTimerTrouble = WakeTimerTrouble(
            reason: reason, since: wakeTimerTrouble?.since ?? Date(), attempts: (wakeTimerTrouble?.attempts ?? 0) + 1)
        return true
    }

    private func woke(_ reason: WakeReason, generation: Int) {
        guard generation == wakeGeneration else { return }
        wakeTask = nil
        armedWakeUp = nil
        switch reason {
        case .clockChanged:
            reevaluate(.clockChanged)
        case .deadline:
            settleDueDeadlines(at: readClock())
            changed()
        }
    }

    // MARK: - Carrying out transitions

    /// Stores the transitions' changes in one transaction, then updates memory, deadlines and the
    /// presentation.
    ///
    /// When `mustStore`, a failed write throws and changes nothing, unless `endingAlert`: then the
    /// transition is carried out anyway and the error returned, for the caller to report. Without
    /// `mustStore` (an alert that is due rings even if the disk is failing) the failure is logged
    /// and the change goes on.
    @discardableResult
    private func commit(
        _ transitions: [(UUID, AlarmStateMachine.Transition)], mustStore: Bool, endingAlert: Bool = false
    ) throws -> (any Error)? {
        guard !transitions.isEmpty else { return nil }
        var changes = AlarmStore.Changes()
        for (_, transition) in transitions { changes.add(transition.actions) }
        // Alerts that came due are shown, and alerts a person ended are silenced, before the
        // commit's fsync, to be on time: should the agent die in between, the alert is still
        // stored as due or ringing, and rings when it starts again.
        var presentedEarly = false
        var endedEarly = false
        for (_, transition) in transitions {
            for action in transition.actions {
                switch action {
                case .presentAlert(let record) where !mustStore:
                    presenter?.perform(.alert(record))
                    presentedEarly = true
                case .endAlert(let id, let outcome) where endingAlert:
                    presenter?.perform(.endAlert(id, outcome))
                    endedEarly = true
                default:
                    break
                }
            }
        }
        var notStored: (any Error)?
        do {
            try store.apply(changes)
        } catch {
            if mustStore && !endingAlert { throw error }
            if mustStore {
                notStored = error
                logger.error("An alert was silenced, but its end could not be stored", metadata: ["error": "\(error)"])
            } else {
                logger.error("Could not store an alarm change; carrying it out anyway", metadata: ["error": "\(error)"])
            }
        }
        var observed: [AlarmChange] = []
        for (id, transition) in transitions {
            let old = remove(id)
            if let record = transition.record {
                insert(record)
                if record != old { observed.append(.updated(record)) }
            } else if let old {
                observed.append(.removed(old))
            }
        }
        if !observed.isEmpty { changeObserver?(observed) }
        for (_, transition) in transitions {
            for action in transition.actions {
                if presentedEarly, case .presentAlert = action { continue }
                if endedEarly, case .endAlert = action { continue }
                perform(action)
            }
        }
        return notStored
    }

    private func perform(_ action: AlarmStateMachine.Action) {
        switch action {
        case .store, .delete, .recordHistory, .arm, .disarm:
            break  // stored in `commit`; deadlines follow the records in `insert` and `remove`
        case .presentAlert(let record): presenter?.perform(.alert(record))
        case .endAlert(let id, let outcome): presenter?.perform(.endAlert(id, outcome))
        case .presentCountdown(let record): presenter?.perform(.countdown(record))
        case .endCountdown(let id): presenter?.perform(.endCountdown(id))
        case .announceMissed(let record, let count): presenter?.perform(.missed(record, count: count))
        }
    }

    private func insert(_ record: AlarmRecord) {
        records[record.id] = record
        alarmsPerOwner[record.owner, default: 0] += 1
        switch record.deadline {
        case .wall(let date): wallDeadlines.set(record.id, date)
        case .elapsed(let deadline): elapsedDeadlines.set(record.id, BootMoment(uptime: deadline.uptime))
        case nil: break
        }
    }

    @discardableResult
    private func remove(_ id: UUID) -> AlarmRecord? {
        guard let old = records.removeValue(forKey: id) else { return nil }
        alarmsPerOwner[old.owner, default: 1] -= 1
        if alarmsPerOwner[old.owner] == 0 { alarmsPerOwner[old.owner] = nil }
        wallDeadlines.set(id, nil)
        elapsedDeadlines.set(id, nil)
        return old
    }

    private func changed() {
        publish()
        rearm()
    }

    private func publish() {
        for subscriber in subscribers.values {
            subscriber.continuation.yield(alarms(visibleTo: subscriber.caller))
        }
    }
}

/// A boot-clock moment in the current boot, ordered by uptime.
struct BootMoment: Comparable, Hashable, Sendable {
    var uptime: Duration
    static func < (lhs: BootMoment, rhs: BootMoment) -> Bool { lhs.uptime < rhs.uptime }
}

extension AlarmRecord {
    /// The boot-clock deadline of a running countdown or a ring time-out.
    var elapsedDeadline: ElapsedDeadline? {
        if case .elapsed(let deadline) = deadline { return deadline }
        return nil
    }

    /// Moves boot-clock deadlines set in an earlier boot onto this boot's clock, using their
    /// wall-clock estimates. Returns whether anything changed.
    mutating func rebase(to reading: ClockReading) -> Bool {
        func rebased(_ deadline: ElapsedDeadline) -> ElapsedDeadline {
            reading.elapsedDeadline(after: deadline.wallEstimate.timeIntervalSince(reading.now))
        }
        switch phase {
        case .countdown(var countdown) where countdown.endsAt.bootID != reading.bootID:
            countdown.endsAt = rebased(countdown.endsAt)
            phase = .countdown(countdown)
            return true
        case .alerting(var ringing) where ringing.timesOutAt.map({ $0.bootID != reading.bootID }) ?? false:
            ringing.timesOutAt = ringing.timesOutAt.map(rebased)
            phase = .alerting(ringing)
            return true
        default:
            return false
        }
    }
}

/// A reference to the engine that does not keep it alive (a wake-up's task holds one while it
/// waits).
private final class WeakEngine: Sendable {
    weak let engine: AlarmEngine?

    init(_ engine: AlarmEngine) { self.engine = engine }
}
