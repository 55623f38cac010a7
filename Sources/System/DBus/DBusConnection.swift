import Dispatch
import CDBus
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `dbus_threads_init_default()`, run once before any connection is opened.
private let threadsInitialized: Bool = dbus_threads_init_default() != 0

/// A private connection to a message bus (`dbus_connection_open_private` + `dbus_bus_register`),
/// driven by its own loop thread (see `DBusMainLoop`).
///
/// Exit-on-disconnect is off: when the bus goes away, `disconnected` fires, signal streams finish
/// and calls fail. Call `close()` when done; dropping the last reference closes it too.
package final class DBusConnection: Sendable {
    /// The connection's unique bus name, such as `:1.42` (`dbus_bus_get_unique_name`).
    package let uniqueName: String
    /// Whether the connection passes Unix file descriptors (type `h`), which libdbus negotiates
    /// with the bus as it authenticates (`dbus_connection_can_send_type`): on a Unix socket it
    /// does. A message carrying one cannot be sent where it does not (`NotSupported`).
    package let canPassFileDescriptors: Bool
    let loop: DBusMainLoop
    let state = Mutex(ConnectionState())

    /// What the connection keeps for exported objects, signal subscriptions and waiters.
    struct ConnectionState {
        /// `close()` was called or the connection was lost.
        var isClosed = false
        /// The loop reported the disconnection.
        var isDisconnected = false
        var nextID = 0
        var subscriptions: [Int: Subscription] = [:]
        var disconnectWaiters: [Int: AsyncStream<Void>.Continuation] = [:]
        /// Owners of well-known names used as signal senders, kept by `NameOwnerChanged`.
        var trackedNames: [String: TrackedName] = [:]
        var objects: [String: [DBusInterface]] = [:]
        var managers: Set<String> = []
        /// For object managers that choose who sees what: the visibility test, by manager path.
        var managerVisibility: [String: ObjectVisibility] = [:]
        /// The last queued ObjectManager signal, so that they go out in order.
        var managerSignals: Task<Void, Never>?

        mutating func makeID() -> Int {
            nextID += 1
            return nextID
        }
    }

    private init(pointer: OpaquePointer, uniqueName: String) throws(DBusError) {
        self.uniqueName = uniqueName
        canPassFileDescriptors = dbus_connection_can_send_type(pointer, TypeCode.unixFD) != 0
        loop = try DBusMainLoop(connection: pointer)
        try loop.start(
            onMessage: { [weak self] message in self?.route(message) ?? false },
            onDisconnect: { [weak self] in self?.handleDisconnect() })
    }

    deinit {
        loop.perform { dbus_connection_close($0) }
        let (subscriptions, waiters) = state.withLock { state in
            defer {
                state.subscriptions.removeAll()
                state.disconnectWaiters.removeAll()
            }
            return (Array(state.subscriptions.values), Array(state.disconnectWaiters.values))
        }
        for subscription in subscriptions { subscription.end() }
        for waiter in waiters { waiter.finish() }
    }

    /// Connects to the bus at `address` (`dbus_connection_open_private`), registers with it
    /// (`dbus_bus_register`, a blocking round trip) and starts the loop thread.
    package static func connect(address: String) throws(DBusError) -> DBusConnection {
        guard threadsInitialized else {
            throw DBusError(name: DBusError.failed, message: "dbus_threads_init_default failed")
        }
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        guard let pointer = dbus_connection_open_private(address, &error) else {
            throw DBusError.take(&error)
                ?? DBusError(name: DBusError.noServer, message: "Could not connect to \(address)")
        }
        dbus_connection_set_exit_on_disconnect(pointer, 0)
        guard dbus_bus_register(pointer, &error) != 0, let name = dbus_bus_get_unique_name(pointer) else {
            let failure =
                DBusError.take(&error) ?? DBusError(name: DBusError.failed, message: "Could not register with \(address)")
            dbus_connection_close(pointer)
            dbus_connection_unref(pointer)
            throw failure
        }
        let uniqueName = String(cString: name)
        do {
            return try DBusConnection(pointer: pointer, uniqueName: uniqueName)
        } catch {
            dbus_connection_close(pointer)
            dbus_connection_unref(pointer)
            throw error
        }
    }

    /// Connects to the session bus named by `DBUS_SESSION_BUS_ADDRESS`. Throws
    /// `org.freedesktop.DBus.Error.NoServer` when it is unset: this never autolaunches a bus.
    package static func session() throws(DBusError) -> DBusConnection {
        guard let address = getenv("DBUS_SESSION_BUS_ADDRESS").map({ String(cString: $0) }), !address.isEmpty else {
            throw DBusError(
                name: DBusError.noServer,
                message: "DBUS_SESSION_BUS_ADDRESS is not set, so there is no session bus to connect to")
        }
        return try connect(address: address)
    }

    // MARK: - State

    /// Whether the connection is still usable: not closed and not lost.
    package var isConnected: Bool { state.withLock { !$0.isClosed } }

    /// How many times the loop thread has woken from `poll()`; for tests of idleness.
    package var loopIterations: Int { loop.iterations }

    /// How many calls wait for their replies, and when the timer for their time limits fires
    /// (`nil`: it is off); for tests.
    package var replyTimer: (waiting: Int, firesIn: Duration?) { loop.replyTimer }

    /// Whether the loop thread is still running; for tests.
    package var isLoopRunning: Bool { loop.isRunning }

    func checkOpen() throws(DBusError) {
        if state.withLock({ $0.isClosed }) { throw DBusError.connectionClosed() }
    }

    /// Throws `NotSupported` for a message carrying file descriptors on a connection that cannot
    /// pass them (libdbus would drop it without a word).
    func checkCanCarry(_ message: DBusMessage) throws(DBusError) {
        if message.containsFileDescriptors && !canPassFileDescriptors {
            throw DBusError(
                name: DBusError.notSupported,
                message: "This connection cannot pass Unix file descriptors (type h), which the message carries")
        }
    }

    /// One event, then the end, when the connection is closed or the bus goes away (the
    /// `org.freedesktop.DBus.Local.Disconnected` signal). Each access makes a new stream; a
    /// stream made after the disconnection delivers its event at once.
    package var disconnected: AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        let id: Int? = state.withLock { state in
            guard !state.isDisconnected else { return nil }
            let id = state.makeID()
            state.disconnectWaiters[id] = continuation
            return id
        }
        guard let id else {
            continuation.yield()
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.disconnectWaiters.removeValue(forKey: id) }
        }
        return stream
    }

    /// How many bytes of received messages may be alive at once before libdbus stops reading the
    /// socket (`dbus_connection_get/set_max_received_size`; libdbus's default is 63 MiB). Every
    /// message a handler still holds counts: a service whose handlers may wait (on a person, say)
    /// raises it above the most those handlers can hold, so it always reads the message that
    /// would release them.
    package var maximumReceivedBytes: Int {
        get { Int(dbus_connection_get_max_received_size(loop.connection)) }
        set { dbus_connection_set_max_received_size(loop.connection, max(newValue, 0)) }
    }

    /// Closes the connection (`dbus_connection_close`, on the loop thread). Calls then fail with
    /// `org.freedesktop.DBus.Error.Disconnected`; `disconnected` fires; signal streams finish.
    package func close() {
        state.withLock { $0.isClosed = true }
        loop.perform { dbus_connection_close($0) }
    }

    /// Runs on the loop thread when the connection is gone: finishes every stream.
    private func handleDisconnect() {
        let (subscriptions, waiters, chain) = state.withLock { state in
            state.isClosed = true
            state.isDisconnected = true
            defer {
                state.subscriptions.removeAll()
                state.disconnectWaiters.removeAll()
                state.trackedNames.removeAll()
                state.managerSignals = nil
            }
            return (Array(state.subscriptions.values), Array(state.disconnectWaiters.values), state.managerSignals)
        }
        chain?.cancel()
        for subscription in subscriptions { subscription.end() }
        for waiter in waiters {
            waiter.yield()
            waiter.finish()
        }
    }

    /// Sees each incoming message on the loop thread; true when it was handled here.
    private func route(_ message: DBusMessage) -> Bool {
        switch message.type {
        case .signal:
            deliver(message)
            return false
        case .methodCall:
            handleMethodCall(message)
            return true
        default:
            return false
        }
    }

    // MARK: - Sending and calling

    /// Sends a message (`dbus_connection_send`, from the calling thread); does not wait for the
    /// socket to take it. Messages one thread sends, and calls it makes, leave in that order.
    package func send(_ message: DBusMessage) throws(DBusError) {
        try checkOpen()
        try checkCanCarry(message)
        guard loop.sendNow(message) else { throw DBusError.connectionClosed() }
    }

    /// Sends a method call and waits for its reply (`dbus_connection_send` from the calling
    /// thread; the reply is matched by its serial on the connection's thread). An error reply
    /// throws it as a `DBusError`; no reply within `timeout` throws
    /// `org.freedesktop.DBus.Error.NoReply`; a closed or lost connection throws
    /// `org.freedesktop.DBus.Error.Disconnected`, or the `NoReply` the bus sends when the callee
    /// leaves without answering. Cancelling the task ends the wait (a later reply is dropped) and
    /// throws `CancellationError`.
    package func call(_ message: DBusMessage, timeout: Duration = .seconds(25)) async throws -> DBusMessage {
        let reply = try await rawCall(message, timeout: timeout)
        if reply.type == .error {
            throw DBusError(name: reply.errorName ?? DBusError.failed, message: reply.errorMessage ?? "")
        }
        return reply
    }

    /// Calls a method and returns the arguments of its reply; see `call(_:timeout:)`.
    package func call(
        destination: String, path: String, interface: String, method: String, arguments: [DBusValue] = [],
        timeout: Duration = .seconds(25)
    ) async throws -> [DBusValue] {
        let message = try DBusMessage.methodCall(
            destination: destination, path: path, interface: interface, method: method, arguments: arguments)
        return try await call(message, timeout: timeout).decodedArguments()
    }

    /// The reply message, error replies included.
    private func rawCall(_ message: DBusMessage, timeout: Duration) async throws -> DBusMessage {
        try Task.checkCancellation()
        try checkOpen()
        try checkCanCarry(message)
        guard message.type == .methodCall else {
            throw DBusError.invalidArguments("Only a method call has a reply; use send(_:) for a \(message.type)")
        }
        let loop = self.loop
        let nanoseconds = Self.nanoseconds(timeout)
        let box = Mutex<PendingReply?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<DBusMessage, any Error>) in
                let reply = PendingReply { continuation.resume(with: $0) }
                let cancelledEarly = box.withLock { stored -> Bool in
                    if stored != nil { return true }  // The cancel handler ran first and left a marker.
                    stored = reply
                    return false
                }
                if cancelledEarly {
                    reply.finish(.failure(CancellationError()))
                    return
                }
                loop.call(message, timeout: nanoseconds, reply: reply)
            }
        } onCancel: {
            let reply = box.withLock { stored -> PendingReply? in
                if let stored { return stored }
                stored = PendingReply { _ in }  // Marker: cancelled before the call was made.
                return nil
            }
            if let reply { loop.cancel(reply) }
        }
    }

    /// Sends a method call and runs `completion` on the loop thread with the reply message
    /// (error replies included), in order with the other incoming messages.
    func callOnLoop(
        _ message: DBusMessage, timeout: Duration = .seconds(25),
        completion: @escaping @Sendable (Result<DBusMessage, any Error>) -> Void
    ) {
        do {
            try checkCanCarry(message)
        } catch {
            completion(.failure(error))
            return
        }
        loop.call(message, timeout: Self.nanoseconds(timeout), reply: PendingReply(completion: completion))
    }

    /// Sends a method call and waits for its reply, blocking the calling thread: for APIs that
    /// must be synchronous (AlarmKit's control calls). Error replies throw `DBusError`.
    ///
    /// The reply is received on the connection's own thread, so this never needs a Swift task to
    /// run and cannot starve the cooperative pool. Throws `Failed` when called on the connection's
    /// own thread (from a signal or reply callback), where waiting would wait for ever.
    package func callBlocking(_ message: DBusMessage, timeout: Duration = .seconds(25)) throws -> DBusMessage {
        guard !loop.isOnLoopThread else {
            throw DBusError(name: DBusError.failed, message: "a blocking call from the connection's own thread")
        }
        let outcome = Mutex<Result<DBusMessage, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        callOnLoop(message, timeout: timeout) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        let reply = try outcome.withLock { $0! }.get()
        if reply.type == .error {
            throw DBusError(name: reply.errorName ?? DBusError.failed, message: reply.errorMessage ?? "")
        }
        return reply
    }

    /// A call's time limit in nanoseconds; `nil` (no limit) from about 24.8 days up, the
    /// longest time-out libdbus takes (`INT32_MAX` milliseconds).
    static func nanoseconds(_ duration: Duration) -> UInt64? {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        guard seconds < Int64(Int32.max) / 1000 else { return nil }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }

    // MARK: - Bus names

    /// Flags for `requestName` (the `DBUS_NAME_FLAG_*` values).
    package struct RequestNameFlags: OptionSet, Sendable, Hashable {
        /// The flag bits.
        package let rawValue: UInt32
        /// Makes flags from their bits.
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        /// `DBUS_NAME_FLAG_ALLOW_REPLACEMENT`: another connection may take the name over.
        package static let allowReplacement = RequestNameFlags(rawValue: 1)
        /// `DBUS_NAME_FLAG_REPLACE_EXISTING`: take the name over if its owner allows it.
        package static let replaceExisting = RequestNameFlags(rawValue: 2)
        /// `DBUS_NAME_FLAG_DO_NOT_QUEUE`: fail instead of waiting in line for the name.
        package static let doNotQueue = RequestNameFlags(rawValue: 4)
    }

    /// The answer to `requestName` (the `DBUS_REQUEST_NAME_REPLY_*` values).
    package enum RequestNameReply: UInt32, Sendable, Hashable {
        /// The connection now owns the name.
        case primaryOwner = 1
        /// The name has an owner; the connection waits in line.
        case inQueue = 2
        /// The name has an owner and the connection did not queue.
        case exists = 3
        /// The connection already owned the name.
        case alreadyOwner = 4
    }

    /// The answer to `releaseName` (the `DBUS_RELEASE_NAME_REPLY_*` values).
    package enum ReleaseNameReply: UInt32, Sendable, Hashable {
        /// The connection owned the name and released it.
        case released = 1
        /// Nobody owned the name.
        case nonExistent = 2
        /// Someone else owns the name.
        case notOwner = 3
    }

    /// Asks the bus for a well-known name (`org.freedesktop.DBus.RequestName`, the call that
    /// `dbus_bus_request_name` makes, sent without blocking).
    package func requestName(_ name: String, flags: RequestNameFlags = [.doNotQueue]) async throws -> RequestNameReply {
        let reply = try await callBus("RequestName", [.string(name), .uint32(flags.rawValue)])
        guard case .uint32(let code)? = reply.first, let result = RequestNameReply(rawValue: code) else {
            throw DBusError(name: DBusError.failed, message: "RequestName answered \(reply)")
        }
        return result
    }

    /// Gives a well-known name back (`org.freedesktop.DBus.ReleaseName`, as `dbus_bus_release_name`).
    @discardableResult
    package func releaseName(_ name: String) async throws -> ReleaseNameReply {
        let reply = try await callBus("ReleaseName", [.string(name)])
        guard case .uint32(let code)? = reply.first, let result = ReleaseNameReply(rawValue: code) else {
            throw DBusError(name: DBusError.failed, message: "ReleaseName answered \(reply)")
        }
        return result
    }

    /// The unique name owning `name` (`org.freedesktop.DBus.GetNameOwner`), nil when it has none.
    package func nameOwner(_ name: String) async throws -> String? {
        do {
            return try await callBus("GetNameOwner", [.string(name)]).first?.stringValue
        } catch let error as DBusError where error.name == DBusError.nameHasNoOwner {
            return nil
        }
    }

    /// Calls a method of the bus itself (`org.freedesktop.DBus` at `/org/freedesktop/DBus`).
    func callBus(_ method: String, _ arguments: [DBusValue]) async throws -> [DBusValue] {
        try await call(
            destination: BusNames.bus, path: BusNames.busPath, interface: BusNames.bus, method: method,
            arguments: arguments)
    }

    /// A method call to the bus itself.
    static func busCall(_ method: String, _ arguments: [DBusValue]) throws(DBusError) -> DBusMessage {
        try DBusMessage.methodCall(
            destination: BusNames.bus, path: BusNames.busPath, interface: BusNames.bus, method: method,
            arguments: arguments)
    }
}

/// Standard names.
enum BusNames {
    static let bus = "org.freedesktop.DBus"
    static let busPath = "/org/freedesktop/DBus"
    static let properties = "org.freedesktop.DBus.Properties"
    static let introspectable = "org.freedesktop.DBus.Introspectable"
    static let peer = "org.freedesktop.DBus.Peer"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"
}
