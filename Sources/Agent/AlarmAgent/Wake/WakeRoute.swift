import FoundationEssentials

/// One way of having a suspended machine woken at an instant, for agents that may not set the
/// kernel's wake timers themselves: the systemd user manager's `WakeSystem` timer, or KDE
/// PowerDevil's `scheduleWakeup`.
///
/// A route only wakes the machine: the agent's own timers ring the alarm once it is awake.
/// `WakeRouter` tries the routes in order and keeps one wake-up armed, on the first that works.
protocol WakeRoute: Sendable {
    /// The route in a few words, for logs and `status`: `the systemd user manager`.
    var name: String { get }

    /// What `status` says while this route wakes the machine: `the systemd user manager wakes it
    /// (a WakeSystem timer, reveille-wake.timer)`.
    var inUseSentence: String { get }

    /// Has the machine woken at `instant` (wall clock), replacing whatever this route armed
    /// before; returns once the route has confirmed it.
    func arm(at instant: Date) async throws(WakeRouteError)

    /// Takes back what this route armed, if anything; failures are only logged.
    func disarm() async
}

/// Why a route could not arm a wake-up.
enum WakeRouteError: Error, Hashable, Sendable {
    /// The route is not offered now (its service is not on the bus, or did not answer): it is
    /// tried again at the next change. The clause says why, for `status`.
    case unavailable(String)
    /// The route is offered but cannot wake this machine (the service refused): it is not tried
    /// again while the agent runs. The clause says why and what would make it work.
    case refused(String)

    /// The clause for `status`.
    var reason: String {
        switch self {
        case .unavailable(let reason), .refused(let reason): reason
        }
    }
}
