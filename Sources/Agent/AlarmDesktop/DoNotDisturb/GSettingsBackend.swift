import DBus

/// The do-not-disturb of a desktop that keeps it in GSettings: GNOME
/// (`org.gnome.desktop.notifications show-banners`, false is do-not-disturb), Cinnamon
/// (`org.cinnamon.desktop.notifications display-notifications`, false is do-not-disturb) and MATE
/// (`org.mate.NotificationDaemon do-not-disturb`, true is do-not-disturb).
///
/// GNOME shows critical notifications during do-not-disturb, but a locked screen shows no banners
/// and lights up for a new notification only while banners are on (GNOME Shell 43's lock screen,
/// checked with the real shell): the lock is read from `org.gnome.ScreenSaver` (`GetActive`,
/// watched through `ActiveChanged`) when a connection is given. Cinnamon drops notifications during do-not-disturb and MATE closes them,
/// critical ones too.
package final class GSettingsBackend: DoNotDisturbBackend {
    /// Where one desktop keeps its do-not-disturb.
    package struct Key: Sendable, Hashable {
        /// The schema id.
        package var schema: String
        /// The boolean key.
        package var key: String
        /// The key's value that means do-not-disturb is on.
        package var onWhen: Bool

        /// GNOME's `show-banners`.
        package static let gnome = Key(schema: "org.gnome.desktop.notifications", key: "show-banners", onWhen: false)
        /// Cinnamon's `display-notifications`.
        package static let cinnamon = Key(schema: "org.cinnamon.desktop.notifications", key: "display-notifications", onWhen: false)
        /// MATE's `do-not-disturb`.
        package static let mate = Key(schema: "org.mate.NotificationDaemon", key: "do-not-disturb", onWhen: true)

        /// The key of a desktop that keeps its do-not-disturb in GSettings, or `nil`.
        package static func of(_ desktop: NotificationDesktop) -> Key? {
            switch desktop {
            case .gnome: .gnome
            case .cinnamon: .cinnamon
            case .mate: .mate
            default: nil
            }
        }
    }

    package let desktop: NotificationDesktop
    /// The key.
    package let key: Key
    private let setting: GSettingsSwitch
    private let screenLock: ScreenLock?
    private let ticks = SignalTicks()

    /// A backend for `desktop`'s key; `nil` when its schema is not installed (looked up first, so a
    /// missing schema never aborts the agent). GNOME watches its screen lock on `connection`.
    package init?(desktop: NotificationDesktop, connection: DBusConnection?) {
        guard let key = Key.of(desktop), let setting = GSettingsSwitch(schema: key.schema, key: key.key) else { return nil }
        self.desktop = desktop
        self.key = key
        self.setting = setting
        screenLock = desktop == .gnome ? connection.map(ScreenLock.init) : nil
    }

    package var settingName: String { "\(key.schema) \(key.key)" }

    package func read() async throws -> DoNotDisturbReading {
        let value = await setting.read()
        let isOn = value == key.onWhen
        switch desktop {
        case .gnome:
            let locked = await screenLock?.isLocked() ?? false
            return DoNotDisturbReading(
                value: .flag(value), isOn: isOn, criticalShown: !locked,
                detail: locked
                    ? "the screen is locked: GNOME shows no banners there and, while do-not-disturb is on, does not light it up for an alarm"
                    : nil)
        default:
            return DoNotDisturbReading(value: .flag(value), isOn: isOn, criticalShown: false)
        }
    }

    package func watch() async throws -> AsyncStream<Void> {
        let changes = await setting.changes()
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let forward = Task {
            for await _ in changes { continuation.yield() }
        }
        var lockTicks: AsyncStream<Void>?
        if let screenLock { lockTicks = try? await ticks.start(on: screenLock.connection, rules: [ScreenLock.rule]) }
        let forwardLock = Task {
            guard let lockTicks else { return }
            for await _ in lockTicks { continuation.yield() }
        }
        continuation.onTermination = { _ in
            forward.cancel()
            forwardLock.cancel()
        }
        return stream
    }

    package func liftedValue(from value: DoNotDisturbValue) -> DoNotDisturbValue? { .flag(!key.onWhen) }

    package func write(_ value: DoNotDisturbValue) async throws {
        guard case .flag(let flag) = value else { throw DoNotDisturbError("\(settingName) is a switch") }
        guard await setting.write(flag) else { throw DoNotDisturbError("\(settingName) is not writable") }
    }

    package func stop() {
        ticks.stop()
        setting.stop()
    }
}

/// GNOME's screen lock: `org.gnome.ScreenSaver.GetActive()` at `/org/gnome/ScreenSaver`, and its
/// `ActiveChanged(b)` signal. With no screen saver on the bus the screen counts as unlocked.
struct ScreenLock: Sendable {
    static let name = "org.gnome.ScreenSaver"
    static let path = "/org/gnome/ScreenSaver"
    static let rule = MatchRule(sender: name, path: path, interface: name, member: "ActiveChanged")
    let connection: DBusConnection

    func isLocked() async -> Bool {
        let reply = try? await connection.call(
            destination: Self.name, path: Self.path, interface: Self.name, method: "GetActive", timeout: .seconds(2))
        return reply?.first?.boolValue ?? false
    }
}
