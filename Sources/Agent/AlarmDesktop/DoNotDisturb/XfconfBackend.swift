import DBus

/// XFCE's do-not-disturb: xfconf channel `xfce4-notifyd`, property `/do-not-disturb`
/// (`org.xfce.Xfconf.GetProperty`; a property never set is off), watched through xfconfd's
/// `PropertyChanged` and `PropertyRemoved`. xfce4-notifyd shows critical notifications during
/// do-not-disturb, so nothing is ever lifted here.
package final class XfconfBackend: DoNotDisturbBackend {
    static let name = "org.xfce.Xfconf"
    static let path = "/org/xfce/Xfconf"
    static let interface = "org.xfce.Xfconf"
    static let channel = "xfce4-notifyd"
    static let property = "/do-not-disturb"

    package let desktop = NotificationDesktop.xfce
    package let settingName = "xfconf xfce4-notifyd /do-not-disturb"
    private let connection: DBusConnection
    private let ticks = SignalTicks()

    /// A backend over `connection`.
    package init(connection: DBusConnection) { self.connection = connection }

    package func read() async throws -> DoNotDisturbReading {
        let value: Bool
        do {
            let reply = try await connection.call(
                destination: Self.name, path: Self.path, interface: Self.interface, method: "GetProperty",
                arguments: [.string(Self.channel), .string(Self.property)], timeout: .seconds(5))
            value = reply.first?.boolValue ?? false
        } catch let error as DBusError where error.name.hasPrefix("org.xfce.Xfconf.Error") {
            value = false  // never set: the default, off
        }
        return DoNotDisturbReading(value: .flag(value), isOn: value, criticalShown: true)
    }

    package func watch() async throws -> AsyncStream<Void> {
        try await ticks.start(
            on: connection,
            rules: ["PropertyChanged", "PropertyRemoved"].map {
                MatchRule(sender: Self.name, path: Self.path, interface: Self.interface, member: $0, arg0: Self.channel)
            })
    }

    package func liftedValue(from value: DoNotDisturbValue) -> DoNotDisturbValue? { .flag(false) }

    package func write(_ value: DoNotDisturbValue) async throws {
        guard case .flag(let flag) = value else { throw DoNotDisturbError("xfce4-notifyd's do-not-disturb is a switch") }
        _ = try await connection.call(
            destination: Self.name, path: Self.path, interface: Self.interface, method: "SetProperty",
            arguments: [.string(Self.channel), .string(Self.property), .variant(.boolean(flag))], timeout: .seconds(5))
    }

    package func stop() { ticks.stop() }
}
