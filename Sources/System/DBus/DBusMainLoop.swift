import CDBus
import LinuxSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Work run on a connection's loop thread, given the `DBusConnection*`.
typealias LoopJob = @Sendable (OpaquePointer) -> Void

/// The main loop of one libdbus connection: a dedicated thread that `poll()`s the enabled watch
/// file descriptors plus an eventfd, and sleeps until the nearest enabled libdbus timeout (forever
/// when there is none, so an idle connection never wakes up).
///
/// libdbus is driven through its main-loop hooks: `dbus_connection_set_watch_functions`,
/// `_set_timeout_functions`, `_set_dispatch_status_function` and `_set_wakeup_main_function`.
/// Ready watches go to `dbus_watch_handle`, due timeouts to `dbus_timeout_handle`, and incoming
/// messages are dispatched with `dbus_connection_dispatch` while it reports
/// `DBUS_DISPATCH_DATA_REMAINS`; they reach Swift through one filter (`dbus_connection_add_filter`).
///
/// Every libdbus call on the connection happens on this thread once it runs, but sending: other
/// threads queue a `LoopJob` with `perform` (which writes the eventfd), except that `sendNow` and
/// `call` send a message from the calling thread (libdbus locks the connection), so that a
/// reply, a signal or a method call costs no wake-up of the loop. Replies are matched to their
/// calls here, by serial, not with libdbus's pending calls, whose time-outs the loop would have
/// to be woken to add (`ReplyWaiters`). The connection is opened and registered on the caller's
/// thread before the loop starts, and the thread's creation orders that before everything the
/// loop does.
final class DBusMainLoop: @unchecked Sendable {  // safe: used on its loop thread; sends under a lock
    // In full: the connection and handlers are used only on the loop thread (or before it starts), but for
    // `sendNow`'s and `call`'s `dbus_connection_send`, made under the `directSends` lock that `finish` takes before it drops the
    // connection (libdbus locks the connection itself); the job queue and the watch and timeout tables are Mutexes, counters are Atomics,
    // and eventFD is immutable
    /// The `DBusConnection*`, owning one reference; used only on the loop thread.
    let connection: OpaquePointer
    /// Wakes `poll()` for queued jobs and libdbus wake-up requests; closed in `deinit`.
    private let eventFD: FileDescriptor
    private let queue = Mutex(JobQueue())
    private let iterationCount = Atomic<Int>(0)
    private let threadID = Atomic<UInt>(0)
    private let running = Atomic<Bool>(false)

    private struct JobQueue {
        var jobs: [LoopJob] = []
        /// Jobs queued and not yet finished: `sendNow` queues behind them, so that a thread's
        /// messages leave in the order it sent them.
        var unfinished = 0
        var accepting = true
    }

    /// The calls sent and waiting for their replies.
    private let waiters: ReplyWaiters

    /// Held by `sendNow` and `call` around `dbus_connection_send` and by `finish` to close: no
    /// thread sends on a connection the loop has dropped. `false` once closed.
    private let directSends = Mutex(true)
    /// The thread inside `sendNow`, whose libdbus callbacks need not wake the loop: it checks
    /// afterwards whether anything is left for the loop to do.
    private let directSender = Atomic<UInt>(0)

    /// The watches and timeouts libdbus asked for. Normally only the loop thread changes them,
    /// but libdbus may toggle a watch from the thread that frees a received message (when the
    /// incoming-size limit is crossed), so they are locked and an outside change wakes the loop.
    /// The lock is never held across a call into libdbus that can call back.
    private let sources = Mutex(Sources())

    /// The tables hold `DBusWatch*` and `DBusTimeout*` as `Handle`s, which are Sendable.
    private struct Sources {
        var watches: [(id: Int, watch: Handle)] = []
        var timeouts: [(id: Int, timeout: Handle, deadline: UInt64?)] = []
        var nextID = 0
    }

    /// A libdbus object pointer as a plain address.
    private struct Handle: Equatable, Sendable {
        let address: UInt
        init(_ pointer: OpaquePointer) { address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(pointer))) }
        var pointer: OpaquePointer { OpaquePointer(bitPattern: address)! }
    }

    // Loop-thread state.
    private var onMessage: (@Sendable (DBusMessage) -> Bool)?
    private var onDisconnect: (@Sendable () -> Void)?
    private var disconnectReported = false

    /// Takes over one reference to an open, registered connection.
    init(connection: OpaquePointer) throws(DBusError) {
        self.connection = connection
        do {
            eventFD = try FileDescriptor.eventCounter()
        } catch {
            throw DBusError(name: DBusError.failed, message: "eventfd failed with errno \(error.rawValue)")
        }
        do {
            waiters = try ReplyWaiters()
        } catch {
            try? eventFD.close()
            throw error
        }
    }

    deinit { try? eventFD.close() }

    /// How many times `poll()` has returned: a loop that is idle must not count up.
    var iterations: Int { iterationCount.load(ordering: .relaxed) }

    /// How many calls wait for their replies, and when the reply timer fires (`nil`: off).
    var replyTimer: (waiting: Int, firesIn: Duration?) { waiters.status }

    /// Whether the loop thread is still running.
    var isRunning: Bool { running.load(ordering: .acquiring) }

    var isOnLoopThread: Bool {
        let loop = threadID.load(ordering: .acquiring)
        return loop != 0 && pthread_equal(pthread_self(), pthread_t(loop)) != 0
    }

    /// Starts the loop thread. `onMessage` sees every incoming message on the loop thread and
    /// returns whether it handled it; `onDisconnect` runs once, on the loop thread, when the
    /// connection is closed or lost.
    func start(
        onMessage: @escaping @Sendable (DBusMessage) -> Bool, onDisconnect: @escaping @Sendable () -> Void
    ) throws(DBusError) {
        self.onMessage = onMessage
        self.onDisconnect = onDisconnect
        running.store(true, ordering: .releasing)
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { context in
                let loop = Unmanaged<DBusMainLoop>.fromOpaque(context!).takeRetainedValue()
                loop.run()
                return nil
            }, context)
        guard result == 0 else {
            Unmanaged<DBusMainLoop>.fromOpaque(context).release()
            running.store(false, ordering: .releasing)
            throw DBusError(name: DBusError.failed, message: "Could not start the D-Bus loop thread (\(result))")
        }
        pthread_detach(thread)
    }

    /// Queues work for the loop thread and wakes it; false once the loop has stopped.
    @discardableResult
    func perform(_ job: @escaping LoopJob) -> Bool {
        let accepted = queue.withLock { state in
            guard state.accepting else { return false }
            state.jobs.append(job)
            state.unfinished += 1
            return true
        }
        if accepted && !isOnLoopThread { wakeUp() }
        return accepted
    }

    /// Sends `message` from the calling thread (`dbus_connection_send`, which writes to the
    /// socket at once when it can), or queues it behind jobs this connection has not finished;
    /// false once the loop has stopped. The loop is woken only when libdbus left bytes to write
    /// or messages to dispatch.
    func sendNow(_ message: DBusMessage) -> Bool {
        sendingNow { [self] in send(message) }
    }

    /// Sends a method call from the calling thread, as `sendNow` sends, and finishes `reply`
    /// with its answer on the loop thread, in order with the other incoming messages; with
    /// `NoReply` when none came within `timeout` nanoseconds (`nil`: no limit), and with
    /// `Disconnected` when the connection is or becomes closed.
    func call(_ message: DBusMessage, timeout: UInt64?, reply: PendingReply) {
        let sent = sendingNow { [self] in
            let error = waiters.add(reply, earlierSerial: dbus_message_get_serial(message.pointer), timeout: timeout) {
                var serial: dbus_uint32_t = 0
                let sent = message.lock.withLock { _ in dbus_connection_send(connection, message.pointer, &serial) }
                return sent != 0 ? serial : nil
            }
            if let error { reply.finish(.failure(error)) }
        }
        if !sent { reply.finish(.failure(DBusError.connectionClosed())) }
    }

    /// Ends a call without its reply: it finishes with `CancellationError`, and a reply that
    /// comes later is dropped. Any thread.
    func cancel(_ reply: PendingReply) {
        // Finished first: a call being added meanwhile is then either found here or not sent.
        reply.finish(.failure(CancellationError()))
        waiters.remove(reply)
    }

    /// Runs `send` on the calling thread, under the `directSends` lock (or at once on the loop
    /// thread), or queues it behind jobs this connection has not finished, so that a thread's
    /// messages leave in the order it sent them; false once the loop has stopped. Wakes the loop
    /// only when libdbus left bytes to write or messages to dispatch.
    private func sendingNow(_ send: @escaping @Sendable () -> Void) -> Bool {
        if isOnLoopThread {
            send()
            return true
        }
        let behindJobs = queue.withLock { state -> Bool? in state.accepting ? state.unfinished > 0 : nil }
        guard let behindJobs else { return false }
        if behindJobs { return perform { _ in send() } }
        return directSends.withLock { open in
            guard open else { return false }
            directSender.store(UInt(pthread_self()), ordering: .releasing)
            send()
            directSender.store(0, ordering: .releasing)
            if dbus_connection_has_messages_to_send(connection) != 0
                || dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS
            {
                wakeUp()
            }
            return true
        }
    }

    /// Wakes the loop for a libdbus callback made on another thread than the loop's or `sendNow`'s.
    private func wakeUpFromOutside() {
        guard !isOnLoopThread, directSender.load(ordering: .acquiring) != UInt(pthread_self()) else { return }
        wakeUp()
    }

    /// Makes `poll()` return (writes the eventfd).
    private func wakeUp() {
        try? eventFD.signalEvent()
    }

    // MARK: - The loop

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        Threads.nameCurrentThread("dbus-loop")
        install()
        while true {
            settle()
            if dbus_connection_get_is_connected(connection) == 0 { break }
            if !pollOnce() { break }
        }
        finish()
    }

    /// Installs the main-loop hooks and the message filter; each hook holds a retained `self` as
    /// its user data, released by libdbus through the free function.
    private func install() {
        let retained = { Unmanaged.passRetained(self).toOpaque() }
        let release: DBusFreeFunction = { data in Unmanaged<DBusMainLoop>.fromOpaque(data!).release() }
        dbus_connection_set_watch_functions(
            connection,
            { watch, data in Unmanaged<DBusMainLoop>.fromOpaque(data!).takeUnretainedValue().addWatch(watch!) },
            { watch, data in Unmanaged<DBusMainLoop>.fromOpaque(data!).takeUnretainedValue().removeWatch(watch!) },
            { _, data in
                // Enablement is read from each watch before every poll: wake the loop to re-read.
                Unmanaged<DBusMainLoop>.fromOpaque(data!).takeUnretainedValue().wakeUpFromOutside()
            },
            retained(), release)
        dbus_connection_set_timeout_functions(
            connection,
            { timeout, data in Unmanaged<DBusMainLoop>.fromOpaque(data!).takeUnretainedValue().addTimeout(timeout!) },
            { timeout, data in
                Unmanaged<DBusMainLoop>.fromOpaque(data!).takeUnretainedValue().removeTimeout(timeout!)
            },
            { timeout, data in
                Unmanaged<DBusMainLoop>.fromOpaque(data!).takeUnretainedValue().toggleTimeout(timeout!)
            },
            retained(), release)
        dbus_connection_set_dispatch_status_function(
            connection,
            { _, status, data in
                // On the loop thread the loop dispatches before it polls again anyway.
                if status == DBUS_DISPATCH_DATA_REMAINS {
                    Unmanaged<DBusMainLoop>.fromOpaque(data!).takeUnretainedValue().wakeUpFromOutside()
                }
            },
            retained(), release)
        dbus_connection_set_wakeup_main_function(
            connection,
            { data in Unmanaged<DBusMainLoop>.fromOpaque(data!).takeUnretainedValue().wakeUpFromOutside() },
            retained(), release)
        dbus_connection_add_filter(
            connection,
            { _, message, data in
                Unmanaged<DBusMainLoop>.fromOpaque(data!).takeUnretainedValue().filter(message!)
            },
            retained(), release)
    }

    /// Runs queued jobs, dispatches incoming messages and writes out what libdbus holds, until
    /// there is nothing left to run or dispatch.
    ///
    /// The writing is what keeps a message from being stranded. `dbus_connection_send` on another
    /// thread writes only if it can take libdbus's I/O path at once; while this thread holds it
    /// (`_dbus_connection_acquire_io_path` drops and retakes the connection lock with the path
    /// marked taken, and reading keeps it), the message is only queued, and neither the send nor
    /// the read turns the write watch on. Polling then would wait without `POLLOUT` until some
    /// later send happened to flush the queue. So before every poll, whatever is still queued is
    /// written here (`dbus_connection_read_write` without waiting), which also turns the write
    /// watch on if the socket cannot take it all. A send that queues after this check wakes the
    /// loop (`sendingNow`), which comes back here before it polls again.
    private func settle() {
        while true {
            let jobs = queue.withLock { state in
                let jobs = state.jobs
                state.jobs.removeAll()
                return jobs
            }
            for job in jobs { job(connection) }
            if !jobs.isEmpty { queue.withLock { $0.unfinished -= jobs.count } }
            var dispatched = false
            while dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS {
                dbus_connection_dispatch(connection)
                dispatched = true
            }
            if dbus_connection_has_messages_to_send(connection) != 0 {
                _ = dbus_connection_read_write(connection, 0)
            }
            if jobs.isEmpty && !dispatched
                && dbus_connection_get_dispatch_status(connection) != DBUS_DISPATCH_DATA_REMAINS
            {
                return
            }
        }
    }

    /// Waits for a ready watch, the eventfd or the nearest timeout, and handles what is ready.
    /// Returns false when `poll()` fails for good (a signal only makes it wait again, for what is
    /// left of the timeout).
    private func pollOnce() -> Bool {
        var fds = [
            PollDescriptor(eventFD, events: .readable),
            PollDescriptor(waiters.timerDescriptor, events: .readable),
        ]
        var watchIDs: [Int] = []
        sources.withLock { sources in
            for entry in sources.watches where dbus_watch_get_enabled(entry.watch.pointer) != 0 {
                let watch = entry.watch.pointer
                let flags = dbus_watch_get_flags(watch)
                var events: PollEvents = []
                if flags & DBUS_WATCH_READABLE.rawValue != 0 { events.insert(.readable) }
                if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events.insert(.writable) }
                fds.append(PollDescriptor(FileDescriptor(rawValue: dbus_watch_get_unix_fd(watch)), events: events))
                watchIDs.append(entry.id)
            }
        }
        let polled = Result { () throws(Errno) in try FileDescriptor.poll(&fds, timeoutMilliseconds: nextTimeoutMilliseconds()) }
        iterationCount.add(1, ordering: .relaxed)
        guard case .success = polled else { return false }
        if !fds[0].returnedEvents.isEmpty {
            _ = try? eventFD.takeEvents()
        }
        if !fds[1].returnedEvents.isEmpty {
            for reply in waiters.takeExpired() {
                reply.finish(.failure(DBusError(name: DBusError.noReply, message: "No reply came within the call's time limit")))
            }
        }
        for (index, id) in watchIDs.enumerated() where !fds[index + 2].returnedEvents.isEmpty {
            // A handled watch may remove others: look each one up again.
            let found = sources.withLock { sources in
                sources.watches.first(where: { $0.id == id && dbus_watch_get_enabled($0.watch.pointer) != 0 })?.watch
            }
            guard let watch = found else { continue }
            let revents = fds[index + 2].returnedEvents
            var flags: UInt32 = 0
            if revents.contains(.readable) { flags |= DBUS_WATCH_READABLE.rawValue }
            if revents.contains(.writable) { flags |= DBUS_WATCH_WRITABLE.rawValue }
            if revents.contains(.error) { flags |= DBUS_WATCH_ERROR.rawValue }
            if revents.contains(.hangUp) { flags |= DBUS_WATCH_HANGUP.rawValue }
            if revents.contains(.invalid) { flags |= DBUS_WATCH_ERROR.rawValue }
            dbus_watch_handle(watch.pointer, flags)
        }
        handleDueTimeouts()
        return true
    }

    /// Tears down on the loop thread: reports the disconnection, fails queued work and pending
    /// calls, and drops the connection (`dbus_connection_close`, `dbus_connection_unref`).
    private func finish() {
        directSends.withLock { $0 = false }
        dbus_connection_close(connection)
        reportDisconnect()
        let remaining = queue.withLock { state in
            state.accepting = false
            let jobs = state.jobs
            state.jobs.removeAll()
            return jobs
        }
        // The connection is closed: sends are dropped and calls fail at once.
        for job in remaining { job(connection) }
        for reply in waiters.close() { reply.finish(.failure(DBusError.connectionClosed())) }
        onMessage = nil
        onDisconnect = nil
        running.store(false, ordering: .releasing)
        dbus_connection_unref(connection)
    }

    private func reportDisconnect() {
        guard !disconnectReported else { return }
        disconnectReported = true
        onDisconnect?()
    }

    // MARK: - Watches and timeouts (called by libdbus, normally on the loop thread)

    private func addWatch(_ pointer: OpaquePointer) -> dbus_bool_t {
        let watch = Handle(pointer)
        sources.withLock { sources in
            sources.nextID += 1
            sources.watches.append((sources.nextID, watch))
        }
        if !isOnLoopThread { wakeUp() }
        return 1
    }

    private func removeWatch(_ pointer: OpaquePointer) {
        let watch = Handle(pointer)
        sources.withLock { $0.watches.removeAll { $0.watch == watch } }
    }

    /// Now on `CLOCK_MONOTONIC`, in nanoseconds: the clock of libdbus's time-outs and of the
    /// calls' deadlines (`ReplyWaiters`).
    static func now() -> UInt64 {
        ClockID.monotonic.nanoseconds
    }

    /// When an enabled timeout fires if (re)started at `now` (`dbus_timeout_get_interval`).
    private static func deadline(for timeout: OpaquePointer, from now: UInt64) -> UInt64? {
        guard dbus_timeout_get_enabled(timeout) != 0 else { return nil }
        return now + UInt64(max(0, dbus_timeout_get_interval(timeout))) * 1_000_000
    }

    private func addTimeout(_ pointer: OpaquePointer) -> dbus_bool_t {
        let timeout = Handle(pointer)
        let deadline = Self.deadline(for: pointer, from: Self.now())
        sources.withLock { sources in
            sources.nextID += 1
            sources.timeouts.append((sources.nextID, timeout, deadline))
        }
        if !isOnLoopThread { wakeUp() }
        return 1
    }

    private func removeTimeout(_ pointer: OpaquePointer) {
        let timeout = Handle(pointer)
        sources.withLock { $0.timeouts.removeAll { $0.timeout == timeout } }
    }

    /// A timeout enabled again starts its interval afresh.
    private func toggleTimeout(_ pointer: OpaquePointer) {
        let timeout = Handle(pointer)
        let deadline = Self.deadline(for: pointer, from: Self.now())
        sources.withLock { sources in
            guard let index = sources.timeouts.firstIndex(where: { $0.timeout == timeout }) else { return }
            sources.timeouts[index].deadline = deadline
        }
        if !isOnLoopThread { wakeUp() }
    }

    /// Milliseconds until the nearest enabled timeout, rounded up; -1 (forever) when none.
    private func nextTimeoutMilliseconds() -> Int32 {
        let now = Self.now()
        let nearest: UInt64? = sources.withLock { sources in
            var nearest: UInt64?
            for index in sources.timeouts.indices {
                let timeout = sources.timeouts[index].timeout.pointer
                guard dbus_timeout_get_enabled(timeout) != 0 else {
                    sources.timeouts[index].deadline = nil
                    continue
                }
                let deadline = sources.timeouts[index].deadline ?? Self.deadline(for: timeout, from: now)!
                sources.timeouts[index].deadline = deadline
                nearest = min(nearest ?? deadline, deadline)
            }
            return nearest
        }
        guard let nearest else { return -1 }
        guard nearest > now else { return 0 }
        let milliseconds = (nearest - now + 999_999) / 1_000_000
        return Int32(min(milliseconds, UInt64(Int32.max)))
    }

    /// Runs every due timeout once (`dbus_timeout_handle`); libdbus timeouts repeat, so each
    /// gets its next deadline first.
    private func handleDueTimeouts() {
        let now = Self.now()
        let due = sources.withLock { sources in
            sources.timeouts.filter { ($0.deadline ?? .max) <= now }.map(\.id)
        }
        for id in due {
            let found: Handle? = sources.withLock { sources in
                guard let index = sources.timeouts.firstIndex(where: { $0.id == id }) else { return nil }
                let timeout = sources.timeouts[index].timeout
                guard dbus_timeout_get_enabled(timeout.pointer) != 0 else { return nil }
                sources.timeouts[index].deadline = Self.deadline(for: timeout.pointer, from: now)
                return timeout
            }
            if let timeout = found { dbus_timeout_handle(timeout.pointer) }
        }
    }

    // MARK: - Messages

    private func filter(_ message: OpaquePointer) -> DBusHandlerResult {
        let type = DBusMessage.MessageType(code: dbus_message_get_type(message))
        if type == .methodReturn || type == .error, let reply = waiters.take(answering: dbus_message_get_reply_serial(message)) {
            // The answer to a call sent here.
            reply.finish(.success(DBusMessage(referencing: message)))
            return DBUS_HANDLER_RESULT_HANDLED
        }
        let wrapped = DBusMessage(referencing: message)
        if wrapped.type == .signal && wrapped.interface == "org.freedesktop.DBus.Local"
            && wrapped.member == "Disconnected"
        {
            reportDisconnect()
            return DBUS_HANDLER_RESULT_HANDLED
        }
        return onMessage?(wrapped) == true ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }

    /// Sends a message (`dbus_connection_send`). On the loop thread, or in `sendNow`.
    func send(_ message: DBusMessage) {
        message.lock.withLock { _ in _ = dbus_connection_send(connection, message.pointer, nil) }
    }
}
