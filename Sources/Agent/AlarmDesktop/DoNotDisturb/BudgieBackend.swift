import DBus

/// Budgie's do-not-disturb (Raven's switch): budgie-daemon keeps it in memory, not in GSettings,
/// and offers it as `org.buddiesofbudgie.budgie.Dispatcher` on `org.budgie_desktop.Notifications`
/// at `/org/budgie_desktop/Notifications`: `GetDoNotDisturb() -> b`, `ToggleDoNotDisturb()`, and
/// the signal `DoNotDisturbChanged(b)` (budgie-desktop 10.7's `src/daemon/notifications/dbus.vala`;
/// the 10.7 package's schemas have no do-not-disturb key). Budgie shows urgent (critical)
/// notifications during it, so an alert gets through with nothing changed.
package final class BudgieBackend: DoNotDisturbBackend {
    static let name = "org.budgie_desktop.Notifications"
    static let path = "/org/budgie_desktop/Notifications"
    static let interface = "org.buddiesofbudgie.budgie.Dispatcher"

    package let desktop = NotificationDesktop.budgie
    package let settingName = "Budgie GetDoNotDisturb"
    private let connection: DBusConnection
    private let ticks = SignalTicks()

    /// A backend over `connection`.
    package init(connection: DBusConnection) { self.connection = connection }

    package func read() async throws -> DoNotDisturbReading {
        let value = try await current()
        return DoNotDisturbReading(value: .flag(value), isOn: value, criticalShown: true)
    }

    private func current() async throws -> Bool {
        let reply = try await connection.call(
            destination: Self.name, path: Self.path, interface: Self.interface, method: "GetDoNotDisturb", timeout: .seconds(5))
        guard let value = reply.first?.boolValue else { throw DoNotDisturbError("Budgie's GetDoNotDisturb answered \(reply)") }
        return value
    }

    package func watch() async throws -> AsyncStream<Void> {
        try await ticks.start(
            on: connection,
            rules: [
                MatchRule(sender: Self.name, path: Self.path, interface: Self.interface, member: "DoNotDisturbChanged")
            ])
    }

    package func liftedValue(from value: DoNotDisturbValue) -> DoNotDisturbValue? { .flag(false) }

    /// Budgie only toggles: the switch is read first and toggled when it differs.
    package func write(_ value: DoNotDisturbValue) async throws {
        guard case .flag(let flag) = value else { throw DoNotDisturbError("Budgie's do-not-disturb is a switch") }
        guard try await current() != flag else { return }
        _ = try await connection.call(
            destination: Self.name, path: Self.path, interface: Self.interface, method: "ToggleDoNotDisturb", timeout: .seconds(5))
    }

    package func stop() { ticks.stop() }
}
