import DBus

/// dunst's do-not-disturb: `paused` on `org.dunstproject.cmd0` at `/org/freedesktop/Notifications`,
/// or `pauseLevel` (dunst 1.10+, 0 to 100; 0 is not paused) where it exists, watched through
/// `PropertiesChanged`. A paused dunst holds every notification back, critical ones too, and shows
/// them all when it is resumed.
package final class DunstBackend: DoNotDisturbBackend {
    static let name = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"
    static let interface = "org.dunstproject.cmd0"

    package let desktop = NotificationDesktop.dunst
    private let connection: DBusConnection
    private let usesLevel: Bool
    private let ticks = SignalTicks()

    /// A backend over `connection`; asks dunst once whether it has `pauseLevel`.
    package init(connection: DBusConnection) async {
        self.connection = connection
        let level = try? await connection.readProperty("pauseLevel", of: Self.interface, at: Self.path, on: Self.name)
        usesLevel = level?.integerValue != nil
    }

    package var settingName: String { usesLevel ? "dunst pauseLevel" : "dunst paused" }

    package func read() async throws -> DoNotDisturbReading {
        if usesLevel {
            let level = try await connection.readProperty("pauseLevel", of: Self.interface, at: Self.path, on: Self.name)
            guard let number = level.integerValue, let value = UInt32(exactly: number) else {
                throw DoNotDisturbError("dunst's pauseLevel is \(level.signature), not a number")
            }
            return DoNotDisturbReading(value: .level(value), isOn: value > 0, criticalShown: false)
        }
        let paused = try await connection.readProperty("paused", of: Self.interface, at: Self.path, on: Self.name)
        guard let value = paused.boolValue else { throw DoNotDisturbError("dunst's paused is \(paused.signature), not a boolean") }
        return DoNotDisturbReading(value: .flag(value), isOn: value, criticalShown: false)
    }

    package func watch() async throws -> AsyncStream<Void> {
        try await ticks.start(on: connection, rules: [propertiesChangedRule(sender: Self.name, path: Self.path, interface: Self.interface)])
    }

    package func liftedValue(from value: DoNotDisturbValue) -> DoNotDisturbValue? {
        switch value {
        case .flag: .flag(false)
        case .level: .level(0)
        case .modes, .output: nil
        }
    }

    package func write(_ value: DoNotDisturbValue) async throws {
        switch value {
        case .flag(let paused):
            try await connection.writeProperty("paused", of: Self.interface, at: Self.path, on: Self.name, .boolean(paused))
        case .level(let level):
            try await connection.writeProperty("pauseLevel", of: Self.interface, at: Self.path, on: Self.name, .uint32(level))
        case .modes, .output:
            throw DoNotDisturbError("dunst's do-not-disturb is a switch or a level")
        }
    }

    package func stop() { ticks.stop() }
}
