import Synchronization

/// One subscription (`signals(_:)`, `handleSignals(_:onEnd:_:)`): its rule and where matching
/// signals go.
struct Subscription {
    let rule: MatchRule
    /// Takes each matching signal, on the loop thread, in order.
    let deliver: @Sendable (DBusMessage) -> Void
    /// Runs once, when the connection goes away.
    let end: @Sendable () -> Void

    /// A subscription feeding an `AsyncStream`.
    init(rule: MatchRule, continuation: AsyncStream<DBusMessage>.Continuation) {
        self.init(rule: rule, deliver: { continuation.yield($0) }, end: { continuation.finish() })
    }

    init(rule: MatchRule, deliver: @escaping @Sendable (DBusMessage) -> Void, end: @escaping @Sendable () -> Void) {
        self.rule = rule
        self.deliver = deliver
        self.end = end
    }
}

/// A subscription made with `DBusConnection.handleSignals(_:onEnd:_:)`: its handler is called
/// until `cancel()`, or until the connection goes away.
package final class SignalSubscription: Sendable {
    private let cancelling: @Sendable () -> Void
    private let cancelled = Atomic<Bool>(false)

    init(cancel: @escaping @Sendable () -> Void) { cancelling = cancel }

    /// Stops the handler (`RemoveMatch`); safe to call more than once, from any thread. A signal
    /// being handled at that moment finishes.
    package func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        cancelling()
    }
}

/// A well-known name used as a signal sender, with its current owner.
struct TrackedName {
    var owner: String?
    var references: Int
}

extension DBusConnection {
    /// Signals matching `rule`, as they arrive, in order. Sends `org.freedesktop.DBus.AddMatch`
    /// (without waiting for the answer) and `RemoveMatch` when the stream ends; signals are also
    /// filtered here by the rule's fields, so a stream never sees another subscription's signals.
    /// A well-known `sender` matches signals from its current owner, tracked with
    /// `NameOwnerChanged`. The stream finishes when the connection goes away; it buffers
    /// without limit, so keep reading it.
    ///
    /// The match is active on the bus only once the bus has read `AddMatch`: use `subscribe(_:)`
    /// to wait for that (and to learn about a rule the bus refuses).
    package func signals(_ rule: MatchRule) -> AsyncStream<DBusMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: DBusMessage.self)
        guard let id = addSubscription(Subscription(rule: rule, continuation: continuation)) else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in self?.removeSubscription(id) }
        sendAddMatch(rule)
        return stream
    }

    /// Calls `handler` with each signal matching `rule` (filtered as `signals(_:)` filters), on the
    /// connection's own thread, in order, until the subscription is cancelled; `onEnd` runs once if
    /// the connection goes away first. Sends `AddMatch` without waiting for the answer.
    ///
    /// The handler must return at once (it holds up every message of the connection), but it
    /// costs no task switch per signal, as a stream's reader does: for a client that applies many
    /// small signals to a value it keeps (AlarmKit's list of alarms).
    package func handleSignals(
        _ rule: MatchRule, onEnd: @escaping @Sendable () -> Void = {}, _ handler: @escaping @Sendable (DBusMessage) -> Void
    ) -> SignalSubscription {
        guard let id = addSubscription(Subscription(rule: rule, deliver: handler, end: onEnd)) else {
            onEnd()
            return SignalSubscription(cancel: {})
        }
        sendAddMatch(rule)
        return SignalSubscription { [weak self] in self?.removeSubscription(id) }
    }

    /// Asks the bus for `rule`'s signals without waiting for its answer.
    private func sendAddMatch(_ rule: MatchRule) {
        if let addMatch = try? Self.busCall("AddMatch", [.string(rule.ruleString)]) {
            addMatch.setNoReply()
            try? send(addMatch)
        }
    }

    /// Like `signals(_:)`, but returns once the bus has accepted the match rule
    /// (`org.freedesktop.DBus.AddMatch` answered), so signals sent after this returns are
    /// delivered. Throws the bus's error for a rule it refuses.
    package func subscribe(_ rule: MatchRule) async throws -> AsyncStream<DBusMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: DBusMessage.self)
        guard let id = addSubscription(Subscription(rule: rule, continuation: continuation)) else { throw DBusError.connectionClosed() }
        continuation.onTermination = { [weak self] _ in self?.removeSubscription(id) }
        do {
            _ = try await callBus("AddMatch", [.string(rule.ruleString)])
        } catch {
            removeSubscription(id, sendRemoveMatch: false)
            continuation.finish()
            throw error
        }
        return stream
    }

    /// Registers a subscription and starts tracking its well-known sender; nil when closed.
    private func addSubscription(_ subscription: Subscription) -> Int? {
        let rule = subscription.rule
        let result: (id: Int, startTracking: Bool)? = state.withLock { state in
            guard !state.isClosed else { return nil }
            let id = state.makeID()
            state.subscriptions[id] = subscription
            guard rule.hasWellKnownSender, let sender = rule.sender else { return (id, false) }
            if state.trackedNames[sender] != nil {
                state.trackedNames[sender]!.references += 1
                return (id, false)
            }
            state.trackedNames[sender] = TrackedName(owner: nil, references: 1)
            return (id, true)
        }
        guard let result else { return nil }
        if result.startTracking, let sender = rule.sender { startTracking(sender) }
        return result.id
    }

    /// Follows the owner of a well-known name: a `NameOwnerChanged` match, then `GetNameOwner`,
    /// whose answer is read on the loop thread before any signal sent after it.
    private func startTracking(_ name: String) {
        if let addMatch = try? Self.busCall("AddMatch", [.string(Self.ownerRule(name).ruleString)]) {
            addMatch.setNoReply()
            try? send(addMatch)
        }
        guard let getOwner = try? Self.busCall("GetNameOwner", [.string(name)]) else { return }
        callOnLoop(getOwner) { [weak self] result in
            guard let self, case .success(let reply) = result else { return }
            let owner = reply.type == .methodReturn ? reply.arguments.first?.stringValue : nil
            state.withLock { state in
                if state.trackedNames[name] != nil { state.trackedNames[name]!.owner = owner }
            }
        }
    }

    private static func ownerRule(_ name: String) -> MatchRule {
        MatchRule(
            sender: BusNames.bus, path: BusNames.busPath, interface: BusNames.bus, member: "NameOwnerChanged",
            arg0: name)
    }

    /// Forgets a subscription, sending `RemoveMatch` for it (and for its sender's tracking when
    /// that was the last use).
    private func removeSubscription(_ id: Int, sendRemoveMatch: Bool = true) {
        let removed: (rule: MatchRule, stopTracking: Bool)? = state.withLock { state in
            guard let subscription = state.subscriptions.removeValue(forKey: id) else { return nil }
            let rule = subscription.rule
            guard rule.hasWellKnownSender, let sender = rule.sender, state.trackedNames[sender] != nil else {
                return (rule, false)
            }
            state.trackedNames[sender]!.references -= 1
            guard state.trackedNames[sender]!.references == 0 else { return (rule, false) }
            state.trackedNames[sender] = nil
            return (rule, true)
        }
        guard let removed, isConnected else { return }
        var rules: [MatchRule] = []
        if sendRemoveMatch { rules.append(removed.rule) }
        if removed.stopTracking, let sender = removed.rule.sender { rules.append(Self.ownerRule(sender)) }
        for rule in rules {
            if let removeMatch = try? Self.busCall("RemoveMatch", [.string(rule.ruleString)]) {
                removeMatch.setNoReply()
                try? send(removeMatch)
            }
        }
    }

    /// Hands a received signal to the matching subscriptions; on the loop thread, in order.
    func deliver(_ message: DBusMessage) {
        let isOwnerChange =
            message.sender == BusNames.bus && message.interface == BusNames.bus && message.member == "NameOwnerChanged"
        let targets: [@Sendable (DBusMessage) -> Void] = state.withLock { state in
            if isOwnerChange, message.arguments.count == 3, case .string(let name) = message.arguments[0],
                case .string(let newOwner) = message.arguments[2], state.trackedNames[name] != nil
            {
                state.trackedNames[name]!.owner = newOwner.isEmpty ? nil : newOwner
            }
            return state.subscriptions.sorted { $0.key < $1.key }.compactMap { _, subscription in
                let owner = subscription.rule.sender.flatMap { state.trackedNames[$0]?.owner }
                return subscription.rule.matches(message, senderOwner: owner) ? subscription.deliver : nil
            }
        }
        for deliver in targets { deliver(message) }
    }

    /// Emits a signal (`dbus_message_new_signal`, `dbus_connection_send`): broadcast, or only to
    /// `destination` when given (a unicast signal, `dbus_message_set_destination`).
    package func emitSignal(
        path: String, interface: String, name: String, arguments: [DBusValue], destination: String? = nil
    ) throws(DBusError) {
        try send(
            DBusMessage.signal(path: path, interface: interface, name: name, arguments: arguments, destination: destination))
    }

    /// Emits one signal to each of `destinations`, unicast: the message is built (validated and
    /// marshalled) once and copied for each (`DBusMessage.copy(to:)`). Nothing is sent for none.
    package func emitSignal(
        path: String, interface: String, name: String, arguments: [DBusValue], destinations: [String]
    ) throws(DBusError) {
        guard !destinations.isEmpty else { return }
        let message = try DBusMessage.signal(path: path, interface: interface, name: name, arguments: arguments)
        for destination in destinations { try send(message.copy(to: destination)) }
    }
}
