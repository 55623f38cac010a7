import AlarmKit
import DBus
import Foundation
import Synchronization

/// The floor's `AlarmsChanged`: one signal per group of `Schedule` calls to every caller of
/// `Watch`, as the agent sends one per group commit, so that the subscribers, the bus and libdbus
/// do against the floor the work they do against the agent, and nothing is stored.
///
/// The agent stores the calls that come while it writes in one transaction and announces each
/// transaction once; in the load benchmark its groups hold about five calls (10,000 calls, about
/// 2,000 `fdatasync`s: `perf stat -e syscalls:sys_enter_fdatasync -p <reveilled>`). The floor has
/// no transactions: it closes a group every `groupSize` calls and sends it before the reply to
/// the call that closed it, as the agent sends its signal before its replies. A group still open
/// `flushDelay` after it began is sent then, so that the subscribers see the last alarms.
final class FloorAnnouncer: Sendable {
    /// Calls per group: the agent's mean group in the load benchmark.
    static let groupSize = 5
    /// How long an unfinished group waits for the calls that would close it.
    static let flushDelay = DispatchTimeInterval.milliseconds(20)

    private struct State {
        /// The callers of `Watch`, each once.
        var watchers: [String] = []
        /// The alarms of the group not sent yet, as `List` shows them.
        var group: [DBusValue] = []
        /// Counts the groups sent: a flush sends the open group only if it is still the one it
        /// was queued for.
        var sentGroups = 0
    }

    private let state = Mutex(State())
    private let connection: DBusConnection

    init(connection: DBusConnection) {
        self.connection = connection
    }

    /// Whether anyone called `Watch`: without watchers the floor encodes nothing more.
    var isWatched: Bool { state.withLock { !$0.watchers.isEmpty } }

    /// Notes a caller of `Watch`; it is sent every group from now on.
    func watch(_ sender: String) {
        state.withLock { state in
            if !state.watchers.contains(sender) { state.watchers.append(sender) }
        }
    }

    /// Adds a scheduled alarm (its summary) to the open group; sends the group when it is full.
    func add(_ alarm: DBusValue) {
        let (full, opened): ([DBusValue], Int?) = state.withLock { state in
            state.group.append(alarm)
            guard state.group.count < Self.groupSize else {
                defer {
                    state.group = []
                    state.sentGroups += 1
                }
                return (state.group, nil)
            }
            return ([], state.group.count == 1 ? state.sentGroups : nil)
        }
        send(full)
        // A group that began now is sent in `flushDelay` if it is not full by then.
        guard let opened else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.flushDelay) { [self] in
            send(
                state.withLock { state in
                    guard state.sentGroups == opened, !state.group.isEmpty else { return [] }
                    defer {
                        state.group = []
                        state.sentGroups += 1
                    }
                    return state.group
                })
        }
    }

    /// Sends one `AlarmsChanged` with these alarms to every watcher (one message, copied).
    private func send(_ alarms: [DBusValue]) {
        guard !alarms.isEmpty else { return }
        let watchers = state.withLock { $0.watchers }
        try? connection.emitSignal(
            path: AgentClient.managerPath, interface: AgentClient.managerInterface, name: "AlarmsChanged",
            arguments: [.array(elementSignature: "a{sv}", alarms), .array(elementSignature: "s", [])], destinations: watchers)
    }
}
