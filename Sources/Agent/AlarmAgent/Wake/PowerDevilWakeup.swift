import DBus
import FoundationEssentials
import Logging
import Synchronization

/// Route 3 of waking the machine: KDE Plasma's power manager, PowerDevil, wakes it
/// (`org.kde.Solid.PowerManagement.scheduleWakeup` on the session bus), where Plasma runs.
///
/// `scheduleWakeup(s service, o path, t timestamp)` takes the instant in seconds since the epoch
/// and returns a cookie; `clearWakeup(i cookie)` takes it back. On waking the machine PowerDevil
/// calls `org.kde.PowerManagement.wakeupCallback(i cookie)` on the service and path it was given:
/// the agent answers it (`callbackPath`) and does nothing more, its own timers ring the alarm. The
/// instant is rounded down to the second, so the machine is awake by the deadline.
final class PowerDevilWakeup: WakeRoute {
    /// PowerDevil's bus name.
    static let busName = "org.kde.Solid.PowerManagement"
    /// Its object.
    static let objectPath = "/org/kde/Solid/PowerManagement"
    /// Its interface.
    static let interface = "org.kde.Solid.PowerManagement"
    /// The interface of the callback PowerDevil calls when it wakes the machine.
    static let callbackInterface = "org.kde.PowerManagement"
    /// Where the agent answers that callback.
    static let callbackPath = "/io/github/reveille/Wake"

    let name = "KDE's PowerDevil"
    var inUseSentence: String { "KDE's PowerDevil wakes the machine (scheduleWakeup)" }

    private let connection: DBusConnection
    private let serviceName: String
    private let logger: Logger
    /// The cookie of the wake-up armed now.
    private let cookie = Mutex<UInt32?>(nil)

    /// A route through PowerDevil on `connection` (the session bus), whose callbacks come to
    /// `serviceName` (the agent's bus name) at `callbackPath`, exported here.
    init(connection: DBusConnection, serviceName: String, logger: Logger) throws(DBusError) {
        self.connection = connection
        self.serviceName = serviceName
        self.logger = logger
        try connection.export(
            path: Self.callbackPath,
            interfaces: [
                DBusInterface(
                    name: Self.callbackInterface,
                    methods: [
                        DBusMethod(name: "wakeupCallback", inArguments: [.init(name: "cookie", signature: "i")]) { call in
                            logger.info("PowerDevil woke the machine", metadata: ["cookie": "\(call.arguments.first?.integerValue ?? -1)"])
                            return []
                        }
                    ])
            ])
    }

    func arm(at instant: Date) async throws(WakeRouteError) {
        await disarm()
        let seconds = UInt64(max(0, instant.timeIntervalSince1970.rounded(.down)))
        do {
            let reply = try await connection.call(
                destination: Self.busName, path: Self.objectPath, interface: Self.interface, method: "scheduleWakeup",
                arguments: [.string(serviceName), .objectPath(Self.callbackPath), .uint64(seconds)], timeout: .seconds(10))
            guard case .uint32(let value)? = reply.first?.unwrapped else {
                throw WakeRouteError.refused("KDE's PowerDevil answered scheduleWakeup without a cookie")
            }
            cookie.withLock { $0 = value }
            logger.info("KDE's PowerDevil wakes the machine for the next deadline", metadata: ["at": "\(seconds)", "cookie": "\(value)"])
        } catch let error as WakeRouteError {
            throw error
        } catch let error as DBusError {
            switch error.name {
            case DBusError.serviceUnknown, "org.freedesktop.DBus.Error.NameHasNoOwner":
                throw .unavailable("KDE's PowerDevil is not running (no \(Self.busName) on the session bus)")
            case DBusError.unknownMethod, DBusError.unknownObject, DBusError.unknownInterface:
                throw .refused("this PowerDevil cannot schedule wake-ups (it has no scheduleWakeup)")
            case "org.kde.PowerDevil.Core.Wakeup.InvalidTime":
                throw .unavailable("KDE's PowerDevil did not schedule the wake-up: \(seconds) has passed")
            case "org.kde.PowerDevil.Core.Wakeup.Unsupported":
                throw .refused("KDE's PowerDevil cannot wake this machine: \(error)")
            default:
                throw .unavailable("KDE's PowerDevil did not schedule the wake-up: \(error)")
            }
        } catch {
            throw .unavailable("KDE's PowerDevil did not schedule the wake-up: \(error)")
        }
    }

    func disarm() async {
        guard
            let armed = cookie.withLock({ value -> UInt32? in
                defer { value = nil }; return value
            })
        else { return }
        do {
            _ = try await connection.call(
                destination: Self.busName, path: Self.objectPath, interface: Self.interface, method: "clearWakeup",
                arguments: [.int32(Int32(bitPattern: armed))], timeout: .seconds(10))
        } catch {
            logger.notice("Could not clear PowerDevil's wake-up", metadata: ["cookie": "\(armed)", "error": "\(error)"])
        }
    }
}
