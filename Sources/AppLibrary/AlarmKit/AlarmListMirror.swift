import AlarmModel
import AlarmProtocol
import DBus
import FoundationEssentials
import Synchronization

/// The caller's alarms as a client keeps them up to date: one `Watch` (the list), then the
/// agent's `AlarmsChanged` signals applied on top of it, in order. A value type: events in, the
/// list out.
///
/// The agent replies to `Watch` in turn with its signals (`AlarmService.list`), so the reply's
/// serial splits them: a signal from the same connection with a lower serial is already in the
/// list, one with a higher serial is newer. Signals that come before the list are kept until it
/// comes; signals from an agent that stopped are dropped.
struct AlarmListMirror: Sendable {
    /// What a signal says about one alarm.
    enum Change: Sendable, Equatable {
        /// The alarm is now as described (listed in `AlarmsChanged`).
        case set(AlarmWire.RemoteAlarm)
        /// The alarm is gone (named as removed in `AlarmsChanged`).
        case remove(UUID)
    }

    /// A change as it came: from which connection, with which serial.
    struct Signal: Sendable {
        var change: Change
        var sender: String
        var serial: UInt32
    }

    /// The alarms, ordered by id (as `List` sends them): kept in order as changes come, so
    /// handing out the list costs nothing until the next change (the array is shared, copied on
    /// write), never a sort.
    private var ordered: [AlarmWire.RemoteAlarm] = []
    /// The list the alarms start from: the agent's unique name and the reply's serial; `nil`
    /// until the first list, and again after the agent starts again.
    private var listed: (sender: String, serial: UInt32)?
    /// Signals that came while no list was held, applied once it comes.
    private var early: [Signal] = []

    /// Whether a list is held (the alarms are worth showing).
    var hasList: Bool { listed != nil }

    /// The alarms in a stable order (by id, as `List` sends them).
    var list: [AlarmWire.RemoteAlarm] { ordered }

    /// A signal's changes arrived, in order; returns whether the shown list changed.
    ///
    /// A signal that only sets alarms, each once (what the agent sends as alarms are scheduled),
    /// is applied as a whole: the new alarms are merged in with one pass over the list
    /// (`insertAll(_:)`), not inserted one by one, each insertion moving half the list along.
    mutating func received(_ changes: [Change], sender: String, serial: UInt32) -> Bool {
        if changes.count > 1, let listed, sender == listed.sender, serial > listed.serial, let shown = applyAll(changes) {
            return shown
        }
        var shown = false
        for change in changes where received(Signal(change: change, sender: sender, serial: serial)) { shown = true }
        return shown
    }

    /// Applies a signal's changes together when each sets a different alarm; returns whether the
    /// list changed, or `nil` (having changed nothing) for any other changes, which are then
    /// applied one by one. The result is the same either way.
    private mutating func applyAll(_ changes: [Change]) -> Bool? {
        var replaced: [(index: Int, alarm: AlarmWire.RemoteAlarm)] = []
        var inserted: [AlarmWire.RemoteAlarm] = []
        var ids = Set<UUID>(minimumCapacity: changes.count)
        for change in changes {
            guard case .set(let alarm) = change, ids.insert(alarm.id).inserted else { return nil }
            let index = position(of: alarm.id)
            if index < ordered.count, ordered[index].id == alarm.id {
                if ordered[index] != alarm { replaced.append((index, alarm)) }
            } else {
                inserted.append(alarm)
            }
        }
        for (index, alarm) in replaced { ordered[index] = alarm }
        insertAll(inserted.sorted { $0.id.precedes($1.id) })
        return !replaced.isEmpty || !inserted.isEmpty
    }

    /// Inserts alarms, sorted by id and none already in the list, where each belongs: the list's
    /// alarms are moved (not copied) once each at most, from the end, making room for the new ones.
    private mutating func insertAll(_ alarms: [AlarmWire.RemoteAlarm]) {
        guard alarms.count > 1 else {
            if let alarm = alarms.first { ordered.insert(alarm, at: position(of: alarm.id)) }
            return
        }
        let count = ordered.count
        ordered.append(contentsOf: alarms)
        ordered.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            // The slots past the old alarms are filled as the merge reaches them.
            (base + count).deinitialize(count: alarms.count)
            // Old alarms before `end` are where they were; those from `end` on are moved.
            var end = count
            for index in alarms.indices.reversed() {
                let alarm = alarms[index]
                var low = 0
                var high = end
                while low < high {
                    let middle = (low + high) / 2
                    if base[middle].id.precedes(alarm.id) { low = middle + 1 } else { high = middle }
                }
                (base + low + index + 1).moveInitialize(from: base + low, count: end - low)
                (base + low + index).initialize(to: alarm)
                end = low
            }
        }
    }

    /// A signal arrived; returns whether the shown list changed.
    mutating func received(_ signal: Signal) -> Bool {
        guard let listed else {
            early.append(signal)
            return false
        }
        guard signal.sender == listed.sender, signal.serial > listed.serial else { return false }
        return apply(signal.change)
    }

    /// A `List` reply arrived: it replaces the alarms, and the signals that came early and are
    /// newer than it are applied on top. Returns true: a list is always shown.
    @discardableResult
    mutating func listed(_ list: [AlarmWire.RemoteAlarm], sender: String, serial: UInt32) -> Bool {
        // An id listed twice keeps its last entry.
        ordered = Dictionary(list.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last }).values
            .sorted { $0.id.precedes($1.id) }
        listed = (sender, serial)
        let waiting = early
        early = []
        for signal in waiting { _ = received(signal) }
        return true
    }

    /// The agent started again: signals wait for the next list. Returns false: nothing to show yet.
    @discardableResult
    mutating func agentRestarted() -> Bool {
        listed = nil
        early = []
        return false
    }

    private mutating func apply(_ change: Change) -> Bool {
        switch change {
        case .set(let alarm):
            let index = position(of: alarm.id)
            if index < ordered.count, ordered[index].id == alarm.id {
                guard ordered[index] != alarm else { return false }
                ordered[index] = alarm
            } else {
                ordered.insert(alarm, at: index)
            }
            return true
        case .remove(let id):
            let index = position(of: id)
            guard index < ordered.count, ordered[index].id == id else { return false }
            ordered.remove(at: index)
            return true
        }
    }

    /// Where the alarm with `id` is, or would go, in `ordered` (binary search).
    private func position(of id: UUID) -> Int {
        var low = 0
        var high = ordered.count
        while low < high {
            let middle = (low + high) / 2
            if ordered[middle].id.precedes(id) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// What an agent's `AlarmsChanged` says, in order: the alarms it removed, then those it
    /// changed (a transaction's alarms, each in one of the two); `nil` for any other signal or a
    /// malformed one.
    static func changes(in message: DBusMessage) -> [Change]? {
        let arguments = message.arguments
        guard message.member == "AlarmsChanged", message.interface == AgentClient.managerInterface,
            message.path == AgentClient.managerPath, arguments.count == 2,
            let alarms = arguments[0].arrayValue, let removed = arguments[1].arrayValue
        else { return nil }
        var changes: [Change] = []
        changes.reserveCapacity(alarms.count + removed.count)
        for value in removed {
            guard let id = value.stringValue.flatMap({ UUID(text: $0) }) else { return nil }
            changes.append(.remove(id))
        }
        guard let decoded = try? AlarmWire.decodeAlarms(alarms) else { return nil }
        changes.append(contentsOf: decoded.map(Change.set))
        return changes
    }
}

/// An `AlarmListMirror` shared between the tasks that feed it and the reader of `updates()`,
/// which is handed a list only when it asks and something changed since the last one.
///
/// While changes stream in, lists come at most once per `interval` (a display frame): a reader
/// that is back for the next list sooner waits out the rest of it, then gets the newest list. A
/// burst of ten thousand changes thus costs each reader about sixty lists a second, not one per
/// change, however fast it reads; a change after a quiet spell is handed over at once.
final class AlarmListFeed: Sendable {
    private struct State {
        var mirror = AlarmListMirror()
        /// Counts changes; `shown` is the count the reader last saw.
        var version = 0
        var shown = 0
        var reader: CheckedContinuation<[AlarmWire.RemoteAlarm]?, Never>?
        var finished = false
        /// When the reader was last handed a list.
        var handedAt: ContinuousClock.Instant?
    }
    private let state = Mutex(State())
    /// The shortest time between two lists.
    let interval: Duration
    /// The time now; the tests' clock jumps.
    private let now: @Sendable () -> ContinuousClock.Instant

    /// A feed that hands out lists at most once per `interval`.
    init(interval: Duration = .milliseconds(16), now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.interval = interval
        self.now = now
    }

    /// Changes the mirror; `body` returns whether the list changed.
    func update(_ body: (inout AlarmListMirror) -> Bool) {
        let handed: (CheckedContinuation<[AlarmWire.RemoteAlarm]?, Never>, [AlarmWire.RemoteAlarm])? = state.withLock { state in
            guard body(&state.mirror), state.mirror.hasList else { return nil }
            state.version += 1
            guard let reader = state.reader else { return nil }
            state.reader = nil
            state.shown = state.version
            state.handedAt = now()
            return (reader, state.mirror.list)
        }
        if let (reader, list) = handed { reader.resume(returning: list) }
    }

    /// The list, once it differs from the one the reader saw last, and at least `interval`
    /// after the last one; `nil` once finished.
    func next() async -> [AlarmWire.RemoteAlarm]? {
        if let handedAt = state.withLock({ $0.handedAt }), case let wait = handedAt + interval - now(), wait > .zero {
            // One timer, only when the reader is back within a frame; cancelling it ends the wait.
            try? await Task.sleep(for: wait)
        }
        return await withCheckedContinuation { continuation in
            let ready: [AlarmWire.RemoteAlarm]?? = state.withLock { state in
                if state.finished { return .some(nil) }
                guard state.version > state.shown else {
                    state.reader = continuation
                    return nil
                }
                state.shown = state.version
                state.handedAt = now()
                return .some(state.mirror.list)
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Ends the stream: the reader gets `nil`.
    func finish() {
        let reader = state.withLock { state in
            state.finished = true
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(returning: nil)
    }
}

/// Runs `end` once the last reference to it goes (or when called): the end of a stream's tasks.
final class StreamLifetime: Sendable {
    let end: @Sendable () -> Void

    init(end: @escaping @Sendable () -> Void) { self.end = end }

    deinit { end() }
}
