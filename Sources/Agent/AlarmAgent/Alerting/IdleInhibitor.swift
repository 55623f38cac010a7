import DBus
import FoundationEssentials
import Logging
import Synchronization

/// Keeps the screen lit while alarms ring: the session's idle inhibitor, taken when the first
/// alert starts and given back when the last one ends (stopped, snoozed, timed out, cancelled) or
/// the agent stops.
///
/// A desktop blanks and locks the screen after some idle minutes; an alarm that rings longer must
/// not go dark with its notification. The session offers one of two calls, asked in this order
/// where the name has an owner (none is started for this):
///
/// - GNOME's session manager, `org.gnome.SessionManager.Inhibit(app_id, toplevel_xid, reason,
///   flags)` with the idle flag (8); GNOME Shell and gnome-settings-daemon's power plugin do not
///   blank or lock an idle session while one is held.
/// - The freedesktop screen saver, `org.freedesktop.ScreenSaver.Inhibit(application_name,
///   reason)`: KDE Plasma (PowerDevil), Xfce's power manager and screen saver, and, on GNOME,
///   gnome-settings-daemon's screensaver proxy, which hands it on to the session manager.
///
/// Both return a cookie that `Uninhibit` / `UnInhibit` gives back; both also drop the inhibitor of
/// a connection that leaves the bus, so an agent that dies holds nothing. Nothing is held on a
/// session that offers neither; alarms ring all the same.
package final class IdleInhibitor: Sendable {
    /// A session service that holds idle inhibitors.
    package enum Service: String, Sendable, CaseIterable {
        /// GNOME's session manager.
        case gnomeSession = "org.gnome.SessionManager"
        /// The freedesktop screen saver (Plasma, Xfce; GNOME's proxy).
        case screenSaver = "org.freedesktop.ScreenSaver"

        /// Its object.
        package var path: String {
            switch self {
            case .gnomeSession: "/org/gnome/SessionManager"
            case .screenSaver: "/org/freedesktop/ScreenSaver"
            }
        }

        /// The interface of its `Inhibit` and `Uninhibit` methods: the bus name.
        package var interface: String { rawValue }

        /// The method that gives the inhibitor back.
        package var uninhibitMethod: String {
            switch self {
            case .gnomeSession: "Uninhibit"
            case .screenSaver: "UnInhibit"
            }
        }

        /// The arguments of its `Inhibit` for `reason`.
        func inhibitArguments(reason: String) -> [DBusValue] {
            switch self {
            case .gnomeSession:
                [.string(IdleInhibitor.applicationID), .uint32(0), .string(reason), .uint32(IdleInhibitor.idleFlag)]
            case .screenSaver:
                [.string(IdleInhibitor.applicationID), .string(reason)]
            }
        }
    }

    /// An inhibitor held: the service and its cookie.
    package struct Inhibition: Sendable, Hashable {
        /// The service holding it.
        package var service: Service
        /// The cookie its `Inhibit` returned.
        package var cookie: UInt32
    }

    /// The application the inhibitor names (the desktop entry's id, which GNOME shows).
    package static let applicationID = "io.github.reveille.Reveille"
    /// The reason it gives.
    package static let reason = "An alarm is ringing"
    /// GNOME's inhibit flag for "the session is not idle" (`GSM_INHIBITOR_FLAG_IDLE`).
    package static let idleFlag: UInt32 = 8

    private let logger: Logger
    /// The alerts ringing now.
    private let ringing = Mutex<Set<UUID>>([])
    private let hold: RingingHold<Inhibition>

    /// Creates the inhibitor on the session bus connection; it holds nothing until an alert rings.
    package init(connection: DBusConnection, logger: Logger) {
        self.logger = logger
        hold = RingingHold(
            take: { await Self.inhibit(on: connection, logger: logger) },
            release: { await Self.uninhibit($0, on: connection, logger: logger) })
    }

    /// An alert started ringing: takes the inhibitor unless one is held.
    package func alertStarted(_ id: UUID) {
        ringing.withLock { _ = $0.insert(id) }
        hold.setNeeded(true)
    }

    /// An alert ended: gives the inhibitor back when none rings any more.
    package func alertEnded(_ id: UUID) {
        let anyRinging = ringing.withLock { ringing in
            ringing.remove(id)
            return !ringing.isEmpty
        }
        hold.setNeeded(anyRinging)
    }

    /// The inhibitor held now, if any.
    package var held: Inhibition? { hold.held }

    /// Gives the inhibitor back (the agent stops), and returns once it is given back.
    package func shutDown() async {
        await hold.close()
    }

    /// Asks the first service that runs for an idle inhibitor.
    private static func inhibit(on connection: DBusConnection, logger: Logger) async -> Inhibition? {
        for service in Service.allCases {
            do {
                guard try await connection.nameOwner(service.rawValue) != nil else { continue }
                let reply = try await connection.call(
                    destination: service.rawValue, path: service.path, interface: service.interface, method: "Inhibit",
                    arguments: service.inhibitArguments(reason: reason), timeout: .seconds(5))
                guard case .uint32(let cookie)? = reply.first else {
                    logger.notice("The idle inhibitor's answer carried no cookie", metadata: ["service": "\(service.rawValue)"])
                    continue
                }
                logger.info("Keeping the screen lit while alarms ring", metadata: ["service": "\(service.rawValue)"])
                return Inhibition(service: service, cookie: cookie)
            } catch {
                logger.notice("No idle inhibitor", metadata: ["service": "\(service.rawValue)", "error": "\(error)"])
            }
        }
        return nil
    }

    /// Gives an inhibitor back.
    private static func uninhibit(_ inhibition: Inhibition, on connection: DBusConnection, logger: Logger) async {
        let service = inhibition.service
        do {
            _ = try await connection.call(
                destination: service.rawValue, path: service.path, interface: service.interface, method: service.uninhibitMethod,
                arguments: [.uint32(inhibition.cookie)], timeout: .seconds(5))
            logger.info("Released the idle inhibitor: no alarm rings", metadata: ["service": "\(service.rawValue)"])
        } catch {
            // The service restarted, or went away: it holds nothing of ours any more.
            logger.notice("The idle inhibitor could not be given back", metadata: ["service": "\(service.rawValue)", "error": "\(error)"])
        }
    }
}
