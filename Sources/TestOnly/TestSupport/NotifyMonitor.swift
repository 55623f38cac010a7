import Foundation
import Synchronization

/// Records what goes over the sandbox's bus to and from the notification server: every call on
/// `org.freedesktop.Notifications` (`Notify`, `CloseNotification`, …) with its arguments typed
/// exactly as sent, the replies to those calls (so the id `Notify` returned is known), the
/// server's signals (`ActionInvoked`, `NotificationClosed`), and changes of the name's owner.
///
/// It is a D-Bus monitor (`BecomeMonitor`) in this process, reading the wire format itself: strings
/// with newlines or quotes arrive intact and every value keeps its type. It is ready when the
/// initialiser returns: everything sent afterwards is recorded.
package final class NotifyMonitor: Sendable {
    private let connection: BusConnection
    private let recording: Recording

    /// The match rules: the interface's calls and signals, replies and errors (only those answering
    /// a recorded call are kept), and owner changes of the name.
    static let rules = [
        "interface='org.freedesktop.Notifications'",
        "type='method_return'",
        "type='error'",
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.freedesktop.Notifications'",
    ]

    private final class Recording: Sendable {
        let messages = Mutex<[BusMessage]>([])
        let failure = Mutex<String?>(nil)
    }

    /// Starts monitoring the bus at `address`.
    ///
    /// With `promptStamps`, the reading thread asks for real-time scheduling (`SCHED_FIFO`, when
    /// this process may have it), so that the time a message is stamped with is when the bus
    /// delivered it rather than when a busy machine next ran this thread: benchmarks time the
    /// agent's calls by these stamps. `alsoMatching` adds match rules (such as the property
    /// writes that pause a server), recorded in the same order the bus delivered everything.
    package init(address: String, promptStamps: Bool = false, alsoMatching extraRules: [String] = []) throws {
        connection = try BusConnection(address: address)
        recording = Recording()
        _ = try connection.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Monitoring", "BecomeMonitor",
            [.array(elementSignature: "s", (Self.rules + extraRules).map { .string($0) }), .uint32(0)])
        Thread.detachNewThread { [connection, recording] in
            if promptStamps {
                var parameters = sched_param(sched_priority: 10)
                _ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters)
            }
            var calls: Set<String> = []
            while true {
                let message: BusMessage
                do {
                    guard let next = try connection.receive(until: nil) else { continue }
                    message = next
                } catch {
                    recording.failure.withLock { $0 = "\(error)" }
                    return
                }
                switch message.kind {
                case .methodCall:
                    calls.insert("\(message.sender ?? "")/\(message.serial)")
                case .methodReturn, .error:
                    guard let replySerial = message.replySerial,
                        calls.contains("\(message.destination ?? "")/\(replySerial)")
                    else { continue }
                case .signal:
                    break
                }
                recording.messages.withLock { $0.append(message) }
            }
        }
    }

    deinit { connection.close() }

    /// Stops recording (what was recorded stays readable).
    package func stop() { connection.close() }

    // MARK: What was recorded

    /// Every recorded message, in the order the bus delivered them.
    package func messages() -> [BusMessage] { recording.messages.withLock { $0 } }

    /// Every `Notify` call, with the id the server returned when the reply has been seen.
    package func notifyCalls() -> [NotifyCall] {
        let messages = messages()
        var replies: [String: UInt32] = [:]
        for message in messages where message.kind == .methodReturn {
            if let id = message.body.first?.integer, let serial = message.replySerial {
                replies["\(message.destination ?? "")/\(serial)"] = UInt32(truncatingIfNeeded: id)
            }
        }
        return messages.compactMap { message in
            guard var call = NotifyCall(message) else { return nil }
            call.returnedID = replies["\(call.sender)/\(call.serial)"]
            return call
        }
    }

    /// The recorded signals named `member` of `org.freedesktop.Notifications`, such as
    /// `ActionInvoked` (arguments: id, action key) or `NotificationClosed` (id, reason).
    package func signals(_ member: String) -> [BusMessage] {
        messages().filter { $0.kind == .signal && $0.isMember("org.freedesktop.Notifications", member) }
    }

    // MARK: Waiting

    /// Waits for a `Notify` call that satisfies `predicate` (recorded earlier or later) and returns it.
    @discardableResult
    package func waitForNotify(
        matching predicate: (NotifyCall) -> Bool = { _ in true }, timeout: Duration = .seconds(30)
    ) async throws -> NotifyCall {
        try await Poll.until("a matching Notify call", timeout: timeout, detail: summary) {
            try checkFailure()
            return notifyCalls().first(where: predicate)
        }
    }

    /// Blocks until a `Notify` call satisfies `predicate` (recorded earlier or later) and returns it.
    @discardableResult
    package func waitForNotify(
        matching predicate: (NotifyCall) -> Bool = { _ in true }, timeout: Duration = .seconds(30)
    ) throws -> NotifyCall {
        try Poll.blocking("a matching Notify call", timeout: timeout, detail: summary) {
            try checkFailure()
            return notifyCalls().first(where: predicate)
        }
    }

    /// Waits for a recorded message that satisfies `predicate` and returns it.
    @discardableResult
    package func waitForMessage(
        matching predicate: (BusMessage) -> Bool, timeout: Duration = .seconds(30)
    ) async throws -> BusMessage {
        try await Poll.until("a matching bus message", timeout: timeout, detail: summary) {
            try checkFailure()
            return messages().first(where: predicate)
        }
    }

    /// Blocks until a recorded message satisfies `predicate` and returns it.
    @discardableResult
    package func waitForMessage(
        matching predicate: (BusMessage) -> Bool, timeout: Duration = .seconds(30)
    ) throws -> BusMessage {
        try Poll.blocking("a matching bus message", timeout: timeout, detail: summary) {
            try checkFailure()
            return messages().first(where: predicate)
        }
    }

    private func checkFailure() throws {
        if let failure = recording.failure.withLock({ $0 }) {
            throw SandboxError.failed("the bus monitor stopped: \(failure)")
        }
    }

    /// One line per recorded message, for failure messages.
    package func summary() -> String {
        let lines = messages().map { message -> String in
            switch message.kind {
            case .methodCall, .signal:
                "\(message.kind) \(message.sender ?? "?") \(message.member ?? "?")\(message.body.map(\.description))"
            case .methodReturn, .error:
                "\(message.kind) to \(message.destination ?? "?") \(message.errorName ?? "")\(message.body.map(\.description))"
            }
        }
        return lines.isEmpty ? "the monitor recorded nothing" : "recorded:\n" + lines.joined(separator: "\n")
    }
}

/// One `org.freedesktop.Notifications.Notify` call, as it went over the bus.
package struct NotifyCall: Sendable, Hashable {
    /// The caller's unique bus name.
    package let sender: String
    /// The call's serial (with `sender`, identifies the call).
    package let serial: UInt32
    /// `app_name`.
    package let appName: String
    /// `replaces_id`: 0 for a new notification, otherwise the id to replace.
    package let replacesID: UInt32
    /// `app_icon`.
    package let appIcon: String
    /// `summary`.
    package let summary: String
    /// `body`.
    package let body: String
    /// `actions`, flat: key, label, key, label, …
    package let actions: [String]
    /// `hints`, each the variant's content with its exact type: an urgency sent as a byte is
    /// `.byte(2)`, one sent as an int32 is `.int32(2)`.
    package let hints: [String: BusValue]
    /// `expire_timeout` in milliseconds: -1 for the server's default, 0 for never.
    package let expireTimeout: Int32
    /// The notification id the server returned, once its reply was seen.
    package var returnedID: UInt32?
    /// When the monitor read the call.
    package let receivedAt: ContinuousClock.Instant?

    /// Reads a `Notify` call; `nil` for any other message or a call with other argument types.
    package init?(_ message: BusMessage) {
        guard message.kind == .methodCall, message.isMember("org.freedesktop.Notifications", "Notify"),
            message.signature == "susssasa{sv}i", message.body.count == 8,
            case .string(let appName) = message.body[0], case .uint32(let replacesID) = message.body[1],
            case .string(let appIcon) = message.body[2], case .string(let summary) = message.body[3],
            case .string(let body) = message.body[4], let actions = message.body[5].stringArray,
            let hints = message.body[6].stringDictionary, case .int32(let expireTimeout) = message.body[7]
        else { return nil }
        sender = message.sender ?? ""
        serial = message.serial
        self.appName = appName
        self.replacesID = replacesID
        self.appIcon = appIcon
        self.summary = summary
        self.body = body
        self.actions = actions
        self.hints = hints
        self.expireTimeout = expireTimeout
        receivedAt = message.receivedAt
    }

    /// The action keys, in order (`default`, `stop`, `snooze`, …).
    package var actionKeys: [String] {
        stride(from: 0, to: actions.count - 1, by: 2).map { actions[$0] }
    }

    /// The label of each action key.
    package var actionLabels: [String: String] {
        Dictionary(stride(from: 0, to: actions.count - 1, by: 2).map { (actions[$0], actions[$0 + 1]) }) { first, _ in first }
    }

    /// The `urgency` hint with its type (`.byte(2)` for critical, as the specification asks).
    package var urgency: BusValue? { hints["urgency"] }
}
