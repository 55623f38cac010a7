import DBus
import FoundationEssentials
import Synchronization
import LinuxSystem

/// The system bus's news that make the agent check its deadlines again: logind's
/// `PrepareForSleep` (the machine suspends, or has resumed) and timedate1's `Timezone` property
/// changing.
///
/// Only signals from the current owners of `org.freedesktop.login1` and
/// `org.freedesktop.timedate1` count (the connection follows their owners). Nothing is asked of
/// either service, so neither needs to run, and timedate1 may be started later by bus activation.
package final class SystemEvents: Sendable {
    /// What happened.
    package enum Event: Sendable, Hashable {
        /// The machine is about to suspend (`PrepareForSleep(true)`).
        case goingToSleep
        /// The machine has resumed from suspend (`PrepareForSleep(false)`).
        case resumed
        /// timedate1's `Timezone` changed; the new name when the signal carried it.
        case timeZoneChanged(String?)
    }

    /// logind's bus name.
    package static let login1 = "org.freedesktop.login1"
    /// timedate1's bus name.
    package static let timedate1 = "org.freedesktop.timedate1"

    /// The signals, in order. It finishes when the system bus goes away or `close()` is called.
    package let events: AsyncStream<Event>
    /// The connection to the system bus.
    package let connection: DBusConnection
    private let forwarding: Task<Void, Never>

    /// Connects to the system bus at `address` (see `DBusConnection.systemBusAddress`) and
    /// subscribes to both signals; returns once the bus has accepted the
    /// subscriptions, so that any later signal is delivered. The connection is made on a thread of
    /// its own (it blocks until the bus answers). Throws the bus's error when it cannot be reached.
    package static func watch(address: String) async throws -> SystemEvents {
        let connection = try await withCheckedThrowingContinuation { continuation in
            Threads.start(named: "system-bus") {
                continuation.resume(with: Result { try DBusConnection.connect(address: address) })
            }
        }
        do {
            let sleep = try await connection.subscribe(
                MatchRule(
                    sender: login1, path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
                    member: "PrepareForSleep"))
            let properties = try await connection.subscribe(
                MatchRule(
                    sender: timedate1, path: "/org/freedesktop/timedate1", interface: "org.freedesktop.DBus.Properties",
                    member: "PropertiesChanged", arg0: timedate1))
            return SystemEvents(connection: connection, sleep: sleep, properties: properties)
        } catch {
            connection.close()
            throw error
        }
    }

    private init(connection: DBusConnection, sleep: AsyncStream<DBusMessage>, properties: AsyncStream<DBusMessage>) {
        self.connection = connection
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        self.events = events
        forwarding = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await signal in sleep {
                        guard let sleeping = signal.arguments.first?.boolValue else { continue }
                        continuation.yield(sleeping ? .goingToSleep : .resumed)
                    }
                }
                group.addTask {
                    for await signal in properties {
                        if let zone = Self.timeZoneChange(in: signal) { continuation.yield(.timeZoneChanged(zone.isEmpty ? nil : zone)) }
                    }
                }
            }
            continuation.finish()
        }
    }

    /// Whether a `PropertiesChanged` of timedate1 is about `Timezone`: `nil` when not, else the
    /// new name (empty when the property was only invalidated).
    static func timeZoneChange(in signal: DBusMessage) -> String? {
        let arguments = signal.arguments
        guard arguments.count == 3, arguments[0].stringValue == timedate1 else { return nil }
        if let zone = arguments[1].dictionaryValue?["Timezone"] { return zone.stringValue ?? "" }
        if arguments[2].arrayValue?.contains(where: { $0.stringValue == "Timezone" }) == true { return "" }
        return nil
    }

    /// Stops watching and closes the connection; `events` finishes.
    package func close() {
        connection.close()
        forwarding.cancel()
    }

    deinit { close() }
}
