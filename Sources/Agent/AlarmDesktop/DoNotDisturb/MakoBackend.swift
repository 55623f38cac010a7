import DBus

/// mako's do-not-disturb: a mode, usually `do-not-disturb`, among those `fr.emersion.Mako.ListModes()`
/// lists at `/fr/emersion/Mako`; `SetModes(as)` changes them. mako 1.10+ announces changes with
/// `PropertiesChanged` on `Modes`; an older mako announces nothing, and its modes are read when an
/// alert rings (never polled). mako's default configuration hides every notification in that mode,
/// critical ones too, so the mode is taken off while an alert rings.
package final class MakoBackend: DoNotDisturbBackend {
    static let name = "fr.emersion.Mako"
    static let path = "/fr/emersion/Mako"
    static let interface = "fr.emersion.Mako"

    package let desktop = NotificationDesktop.mako
    /// The mode that means do-not-disturb.
    package let mode: String
    private let connection: DBusConnection
    private let ticks = SignalTicks()

    /// A backend over `connection`, taking `mode` as the do-not-disturb mode.
    package init(connection: DBusConnection, mode: String = "do-not-disturb") {
        self.connection = connection
        self.mode = mode
    }

    package var settingName: String { "mako mode \(mode)" }

    package func read() async throws -> DoNotDisturbReading {
        let reply = try await connection.call(
            destination: Self.name, path: Self.path, interface: Self.interface, method: "ListModes", timeout: .seconds(5))
        guard let modes = reply.first?.arrayValue?.compactMap(\.stringValue) else {
            throw DoNotDisturbError("mako's ListModes answered \(reply)")
        }
        return DoNotDisturbReading(value: .modes(modes), isOn: modes.contains(mode), criticalShown: false)
    }

    package func watch() async throws -> AsyncStream<Void> {
        try await ticks.start(on: connection, rules: [propertiesChangedRule(sender: Self.name, path: Self.path, interface: Self.interface)])
    }

    package func liftedValue(from value: DoNotDisturbValue) -> DoNotDisturbValue? {
        guard case .modes(let modes) = value else { return nil }
        return .modes(modes.filter { $0 != mode })
    }

    package func write(_ value: DoNotDisturbValue) async throws {
        guard case .modes(let modes) = value else { throw DoNotDisturbError("mako's do-not-disturb is a mode") }
        _ = try await connection.call(
            destination: Self.name, path: Self.path, interface: Self.interface, method: "SetModes",
            arguments: [.strings(modes)], timeout: .seconds(5))
    }

    package func stop() { ticks.stop() }
}
