import DBus
import FoundationEssentials
import AlarmModel

/// KDE Plasma's do-not-disturb: the read-only `Inhibited` property of the notification server
/// (`org.freedesktop.Notifications` at `/org/freedesktop/Notifications`), watched through
/// `PropertiesChanged`. Whether critical notifications show during it is Plasma's
/// `CriticalInDndMode` (true unless the person turned it off), read from `plasmanotifyrc` at each
/// reading. `Inhibited` cannot be changed from outside: where critical notifications are hidden,
/// the alert still sounds, and `reveille status` says so.
package final class PlasmaBackend: DoNotDisturbBackend {
    static let name = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"
    static let interface = "org.freedesktop.Notifications"

    package let desktop = NotificationDesktop.plasma
    package let settingName = "Plasma Inhibited"
    private let connection: DBusConnection
    private let configuration: URL
    private let ticks = SignalTicks()

    /// A backend over `connection`, reading `plasmanotifyrc` from `configHome` (`XDG_CONFIG_HOME`).
    package init(connection: DBusConnection, configHome: URL) {
        self.connection = connection
        configuration = configHome.appendingPathComponent("plasmanotifyrc")
    }

    package func read() async throws -> DoNotDisturbReading {
        let inhibited = try await connection.readProperty("Inhibited", of: Self.interface, at: Self.path, on: Self.name)
        guard let value = inhibited.boolValue else { throw DoNotDisturbError("Plasma's Inhibited is \(inhibited.signature)") }
        let critical = Self.criticalInDndMode(in: (try? String(contentsOf: configuration, encoding: .utf8)) ?? "")
        return DoNotDisturbReading(
            value: .flag(value), isOn: value, criticalShown: critical,
            detail: critical ? nil : "Plasma's \"Show critical notifications\" in do-not-disturb is off")
    }

    /// `CriticalInDndMode` from the text of `plasmanotifyrc`: true unless a line sets it false.
    static func criticalInDndMode(in text: String) -> Bool {
        for line in text.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace(newlines: false) }
            if parts.count == 2, parts[0] == "CriticalInDndMode" { return parts[1].lowercased() != "false" }
        }
        return true
    }

    package func watch() async throws -> AsyncStream<Void> {
        try await ticks.start(on: connection, rules: [propertiesChangedRule(sender: Self.name, path: Self.path, interface: Self.interface)])
    }

    package func liftedValue(from value: DoNotDisturbValue) -> DoNotDisturbValue? { nil }

    package func write(_ value: DoNotDisturbValue) async throws {
        throw DoNotDisturbError("Plasma's do-not-disturb cannot be changed from outside")
    }

    package func stop() { ticks.stop() }
}
