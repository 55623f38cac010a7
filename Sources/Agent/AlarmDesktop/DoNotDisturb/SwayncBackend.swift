import DBus

/// SwayNotificationCenter's do-not-disturb: `org.erikreider.swaync.cc.GetDnd()` at
/// `/org/erikreider/swaync/cc`, watched through its `SubscribeV2(u count, b dnd, b visible, b inhibited)`
/// signal. swaync shows critical notifications (and any with `SWAYNC_BYPASS_DND`, which alerts
/// carry) during do-not-disturb, so nothing is ever lifted here.
package final class SwayncBackend: DoNotDisturbBackend {
    static let name = "org.erikreider.swaync.cc"
    static let path = "/org/erikreider/swaync/cc"
    static let interface = "org.erikreider.swaync.cc"

    package let desktop = NotificationDesktop.swaync
    package let settingName = "swaync dnd"
    private let connection: DBusConnection
    private let ticks = SignalTicks()

    /// A backend over `connection`.
    package init(connection: DBusConnection) { self.connection = connection }

    package func read() async throws -> DoNotDisturbReading {
        let reply = try await connection.call(
            destination: Self.name, path: Self.path, interface: Self.interface, method: "GetDnd", timeout: .seconds(5))
        guard let value = reply.first?.boolValue else { throw DoNotDisturbError("swaync's GetDnd answered \(reply)") }
        return DoNotDisturbReading(value: .flag(value), isOn: value, criticalShown: true)
    }

    package func watch() async throws -> AsyncStream<Void> {
        try await ticks.start(
            on: connection,
            rules: [
                MatchRule(sender: Self.name, path: Self.path, interface: Self.interface, member: "SubscribeV2"),
                MatchRule(sender: Self.name, path: Self.path, interface: Self.interface, member: "Subscribe"),
            ])
    }

    package func liftedValue(from value: DoNotDisturbValue) -> DoNotDisturbValue? { .flag(false) }

    package func write(_ value: DoNotDisturbValue) async throws {
        guard case .flag(let flag) = value else { throw DoNotDisturbError("swaync's do-not-disturb is a switch") }
        _ = try await connection.call(
            destination: Self.name, path: Self.path, interface: Self.interface, method: "SetDnd",
            arguments: [.boolean(flag)], timeout: .seconds(5))
    }

    package func stop() { ticks.stop() }
}
