import DBus
import FoundationEssentials
import Logging
import Synchronization

/// Wakes a blanked screen each time an alarm starts ringing, so the person sees what rings and its
/// Stop button, as a touch of the mouse would: a second alarm that starts while the first rings
/// wakes it again, for the screen may have gone dark meanwhile (where nothing keeps it lit, see
/// `IdleInhibitor`).
///
/// Asks each session service that offers it, when it runs (`NameHasOwner` first: none is started
/// for this): the freedesktop screen saver's `SimulateUserActivity` (KDE Plasma's screen locker,
/// Xfce, MATE and Cinnamon screen savers) and KDE PowerDevil's `wakeup`. GNOME Shell offers no
/// such call: it wakes the screen itself for a critical notification (not while do-not-disturb
/// hides banners, which Reveille lifts for an alarm that breaks through). Nothing is unlocked.
package final class ScreenWaker: Sendable {
    /// A session service that can wake the screen: its bus name, object, interface and method.
    package struct Service: Sendable, Hashable {
        /// The service's bus name.
        package var name: String
        /// Its object.
        package var path: String
        /// The method's interface.
        package var interface: String
        /// The method, which takes no arguments.
        package var method: String
    }

    /// The services asked, in order.
    package static let services = [
        Service(
            name: "org.freedesktop.ScreenSaver", path: "/org/freedesktop/ScreenSaver",
            interface: "org.freedesktop.ScreenSaver", method: "SimulateUserActivity"),
        Service(
            name: "org.kde.Solid.PowerManagement", path: "/org/kde/Solid/PowerManagement",
            interface: "org.kde.Solid.PowerManagement", method: "wakeup"),
    ]

    private let connection: DBusConnection
    private let logger: Logger
    /// The alerts ringing now: the screen is woken when one starts that was not ringing.
    private let ringing = Mutex<Set<UUID>>([])

    /// Creates the waker on the session bus connection.
    package init(connection: DBusConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// An alert started ringing: wakes the screen, unless that alert was ringing already (shown
    /// again, as when the notification server restarts).
    package func alertStarted(_ id: UUID) {
        let new = ringing.withLock { $0.insert(id).inserted }
        if new { Task { await wake() } }
    }

    /// An alert ended.
    package func alertEnded(_ id: UUID) {
        _ = ringing.withLock { $0.remove(id) }
    }

    /// Asks every service that runs now to wake the screen.
    func wake() async {
        for service in Self.services {
            do {
                let owned = try await connection.call(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                    method: "NameHasOwner", arguments: [.string(service.name)], timeout: .seconds(5))
                guard owned.first?.boolValue == true else { continue }
                _ = try await connection.call(
                    destination: service.name, path: service.path, interface: service.interface, method: service.method,
                    timeout: .seconds(5))
                logger.info("Woke the screen for the alarm", metadata: ["service": "\(service.name)"])
            } catch {
                logger.notice("The screen could not be woken", metadata: ["service": "\(service.name)", "error": "\(error)"])
            }
        }
    }
}
