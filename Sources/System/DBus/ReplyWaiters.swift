import CDBus
import LinuxSystem
import Synchronization

/// The method calls a connection sent and is waiting to hear back from, by serial, with their
/// time limits on one kernel timer (`timerfd_create(CLOCK_MONOTONIC)`, set with `timerfd_settime`
/// to the earliest deadline; deadlines are `DBusMainLoop.now()` nanoseconds).
///
/// A calling thread adds its call as it sends it; the loop thread takes the call back when the
/// reply comes or the timer fires. Whichever thread changes the earliest deadline sets the timer
/// itself, so a call never wakes the loop to be sent, and with no call waiting the timer is off:
/// an idle connection never wakes.
final class ReplyWaiters: Sendable {
    /// The timer, for the loop's `poll()`: readable once the earliest deadline has passed.
    let timerDescriptor: FileDescriptor
    private let table = Mutex(Table())

    private struct Table {
        var waiting: [UInt32: Entry] = [:]
        /// The deadline the timer is set for; `nil` when it is off.
        var armed: UInt64?
        var open = true
    }

    private struct Entry {
        let reply: PendingReply
        let deadline: UInt64?
    }

    /// Makes the timer (`timerfd_create`).
    init() throws(DBusError) {
        do {
            timerDescriptor = try FileDescriptor.timer(clock: .monotonic)
        } catch {
            throw DBusError(name: DBusError.failed, message: "timerfd_create failed with errno \(error.rawValue)")
        }
    }

    deinit { try? timerDescriptor.close() }

    /// Sends a call and adds it, both under the table's lock, so that its reply, however soon it
    /// comes, finds it here. `send` sends the message and returns its serial, or `nil` when it
    /// was not sent; `earlierSerial` is the message's serial before (0 for a message never sent).
    /// A reply already finished (its call cancelled) is not sent.
    ///
    /// Returns the error to finish the reply with when the call was not sent: the connection is
    /// closed, or the same message is still waiting for its reply.
    func add(
        _ reply: PendingReply, earlierSerial: UInt32, timeout: UInt64?, sending send: () -> UInt32?
    ) -> DBusError? {
        table.withLock { table in
            guard table.open else { return DBusError.connectionClosed() }
            guard !reply.isFinished else { return nil }
            guard earlierSerial == 0 || table.waiting[earlierSerial] == nil else {
                return DBusError(name: DBusError.failed, message: "The message is already waiting for its reply")
            }
            guard let serial = send() else { return DBusError.connectionClosed() }
            let deadline = timeout.map { DBusMainLoop.now() + $0 }
            table.waiting[serial] = Entry(reply: reply, deadline: deadline)
            if let deadline, deadline < table.armed ?? .max { arm(&table, at: deadline) }
            return nil
        }
    }

    /// Takes the call that `serial` answers (a reply's `dbus_message_get_reply_serial`), if it
    /// is waiting here.
    func take(answering serial: UInt32) -> PendingReply? {
        table.withLock { table in take(serial, from: &table) }
    }

    /// Drops a call that was cancelled, if it is waiting (it may not be sent yet, or answered).
    func remove(_ reply: PendingReply) {
        table.withLock { table in
            guard let serial = table.waiting.first(where: { $0.value.reply === reply })?.key else { return }
            _ = take(serial, from: &table)
        }
    }

    /// Takes a call out of the table, and turns the timer off when no call is left.
    private func take(_ serial: UInt32, from table: inout Table) -> PendingReply? {
        guard let entry = table.waiting.removeValue(forKey: serial) else { return nil }
        if table.waiting.isEmpty, table.armed != nil { arm(&table, at: nil) }
        return entry.reply
    }

    /// Takes the calls whose time is up, and sets the timer for the next deadline: when the
    /// timer fires, on the loop thread. Reads the timer (clearing its readiness) first.
    func takeExpired() -> [PendingReply] {
        _ = try? timerDescriptor.readExpirations()
        return table.withLock { table in
            let now = DBusMainLoop.now()
            var expired: [PendingReply] = []
            var next: UInt64?
            for (serial, entry) in table.waiting {
                guard let deadline = entry.deadline else { continue }
                if deadline <= now {
                    expired.append(entry.reply)
                    table.waiting[serial] = nil
                } else {
                    next = min(next ?? deadline, deadline)
                }
            }
            arm(&table, at: next)
            return expired
        }
    }

    /// Closes the table and takes every call in it: later calls are not sent.
    func close() -> [PendingReply] {
        table.withLock { table in
            table.open = false
            let replies = table.waiting.values.map(\.reply)
            table.waiting.removeAll()
            arm(&table, at: nil)
            return replies
        }
    }

    /// How many calls wait, and when the timer fires as the kernel has it (`timerfd_gettime`;
    /// `nil` when it is off): for tests.
    var status: (waiting: Int, firesIn: Duration?) {
        table.withLock { table in
            (table.waiting.count, (try? timerDescriptor.timerRemaining()) ?? nil)
        }
    }

    /// Sets the timer to fire at `deadline`, or turns it off (`timerfd_settime`, absolute).
    private func arm(_ table: inout Table, at deadline: UInt64?) {
        if let deadline {
            // Zero would turn the timer off: a deadline at the clock's zero fires at once anyway.
            let nanoseconds = max(deadline, 1)
            try? timerDescriptor.armTimer(
                atSeconds: Int64(nanoseconds / 1_000_000_000), nanoseconds: Int64(nanoseconds % 1_000_000_000))
        } else {
            try? timerDescriptor.disarmTimer()
        }
        table.armed = deadline
    }
}

/// One method call waiting for its reply: what to do with the answer, done once.
final class PendingReply: Sendable {
    /// The closure in a struct: a closure stored in a `Mutex` directly is wrapped in more
    /// reabstraction thunks each time it crosses `withLock`.
    private struct Completion {
        let run: @Sendable (Result<DBusMessage, any Error>) -> Void
    }

    private let completion: Mutex<Completion?>

    init(completion: @escaping @Sendable (Result<DBusMessage, any Error>) -> Void) {
        self.completion = Mutex(Completion(run: completion))
    }

    /// Whether the call has its outcome: answered, failed or cancelled.
    var isFinished: Bool { completion.withLock { $0 == nil } }

    /// Runs the completion with the call's outcome, the first time only.
    func finish(_ result: Result<DBusMessage, any Error>) {
        let completion = self.completion.withLock { $0.take() }
        completion?.run(result)
    }
}
