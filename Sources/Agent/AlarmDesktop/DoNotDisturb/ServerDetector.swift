import DBus
import FoundationEssentials

/// Finds which notification server runs and makes the backend for its do-not-disturb.
///
/// `org.freedesktop.Notifications.GetServerInformation` names the server; when the name is not
/// one Reveille knows, the interfaces it offers decide: dunst's `org.dunstproject.cmd0` at
/// `/org/freedesktop/Notifications`, Plasma's `Inhibited` property, the bus names
/// `fr.emersion.Mako` and `org.erikreider.swaync.cc`.
package struct ServerDetector: Sendable {
    /// A running notification server.
    package struct Server: Sendable, Hashable {
        /// Its unique bus name.
        package var owner: String
        /// `GetServerInformation`'s name, such as `dunst`.
        package var name: String
        /// `GetServerInformation`'s vendor, such as `KDE`.
        package var vendor: String
        /// `GetServerInformation`'s version.
        package var version: String
        /// The desktop whose do-not-disturb applies.
        package var desktop: NotificationDesktop

        /// The name and version, as `reveille status` shows them.
        package var description: String { name.isEmpty ? "an unnamed server" : name + (version.isEmpty ? "" : " " + version) }
    }

    static let notifications = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"

    let connection: DBusConnection
    let configHome: URL

    /// A detector asking over `connection`; Plasma's configuration is read from `configHome`.
    package init(connection: DBusConnection, configHome: URL) {
        self.connection = connection
        self.configHome = configHome
    }

    /// The server that owns `org.freedesktop.Notifications` now, or `nil`.
    package func detect() async throws -> Server? {
        guard let owner = try await connection.nameOwner(Self.notifications) else { return nil }
        let info = try await connection.call(
            destination: owner, path: Self.path, interface: Self.notifications, method: "GetServerInformation",
            timeout: .seconds(5))
        let strings = info.map { $0.stringValue ?? "" }
        let name = strings.first ?? ""
        let vendor = strings.count > 1 ? strings[1] : ""
        let version = strings.count > 2 ? strings[2] : ""
        var desktop = NotificationDesktop.from(serverName: name, vendor: vendor)
        if desktop == nil { desktop = try await byInterfaces(owner: owner) }
        return Server(owner: owner, name: name, vendor: vendor, version: version, desktop: desktop ?? .other)
    }

    /// The desktop from what the server offers, for a server whose name says nothing.
    private func byInterfaces(owner: String) async throws -> NotificationDesktop {
        if try await connection.nameOwner(MakoBackend.name) == owner { return .mako }
        if try await connection.nameOwner(SwayncBackend.name) == owner { return .swaync }
        let xml =
            (try? await connection.call(
                destination: owner, path: Self.path, interface: "org.freedesktop.DBus.Introspectable", method: "Introspect",
                timeout: .seconds(5)))?.first?.stringValue ?? ""
        if xml.contains(DunstBackend.interface) { return .dunst }
        if xml.contains("name=\"Inhibited\"") { return .plasma }
        return .other
    }

    /// The backend for `desktop`'s do-not-disturb, or `nil` when it has none Reveille can read
    /// (an unknown server, a GSettings desktop whose schema is not installed).
    package func backend(for desktop: NotificationDesktop) async -> (any DoNotDisturbBackend)? {
        switch desktop {
        case .dunst: await DunstBackend(connection: connection)
        case .xfce: XfconfBackend(connection: connection)
        case .plasma: PlasmaBackend(connection: connection, configHome: configHome)
        case .mako: MakoBackend(connection: connection)
        case .swaync: SwayncBackend(connection: connection)
        case .budgie: BudgieBackend(connection: connection)
        case .gnome, .cinnamon, .mate: GSettingsBackend(desktop: desktop, connection: connection)
        case .other: nil
        }
    }

    /// Whether `desktop` shows an alert (a critical notification) during its do-not-disturb when
    /// nothing else is known (an unknown server: assumed so).
    package static func criticalShownByDefault(_ desktop: NotificationDesktop) -> Bool {
        switch desktop {
        case .dunst, .mako, .cinnamon, .mate: false
        case .gnome, .plasma, .xfce, .swaync, .budgie, .other: true
        }
    }
}
