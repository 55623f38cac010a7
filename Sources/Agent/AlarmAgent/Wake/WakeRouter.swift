import FoundationEssentials
import Logging
import Synchronization

/// Keeps one wake-up armed at the earliest deadline through the first route that works, for an
/// agent that may not set the kernel's wake timers itself, and says which route that is.
///
/// The clock (`WakingClock`) tells it each deadline the engine waits for; the newest request
/// wins, and requests are carried out one at a time, in order, on a task of the router's own.
/// Each wake-up is tried on the routes in order (the systemd user manager, then KDE's
/// PowerDevil); one that works takes it, and the route that held the wake-up before lets go. A
/// route that refused (it cannot wake this machine) is not asked again; one that was not offered
/// is asked again at the next change. With no deadline the wake-up is taken back; before the
/// first deadline the routes are tried with a wake-up a day ahead, taken back at once, so that
/// `status` can say from the start whether alarms will wake the machine.
final class WakeRouter: Sendable {
    /// What `status` says about the routes.
    struct Report: Sendable, Hashable {
        /// The sentence of the route that armed the last wake-up (or would: the last that worked).
        var inUse: String?
        /// Why each route tried before it (or every route, when none works) did not work.
        var failures: [String]
        /// Whether the first try is still under way.
        var checking: Bool
    }

    private let routes: [any WakeRoute]
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        /// The newest request: the instant to wake at, or nil for none.
        var desired: Date?
        /// Whether any request came.
        var requested = false
        /// What is armed now, and on which route; nil when nothing is.
        var armed: (instant: Date, route: Int)?
        /// The route that armed the last wake-up.
        var working: Int?
        /// Why routes did not work, by index.
        var failures: [Int: WakeRouteError] = [:]
        /// Whether the routes have been tried once.
        var tried = false
        /// The instant last tried, armed or not.
        var attempted: Date?
        /// Whether the armed wake-up must be armed again even if the instant is the same.
        var stale = false
        /// The task carrying out requests, while one runs.
        var worker: Task<Void, Never>?
        var stopped = false
    }

    /// A router over `routes`, in order of preference.
    init(routes: [any WakeRoute], logger: Logger) {
        self.routes = routes
        self.logger = logger
    }

    /// The engine waits for `instant` next (nil: for nothing): the wake-up moves there.
    func request(_ instant: Date?) {
        state.withLock { state in
            state.desired = instant
            state.requested = true
        }
        startWorker()
    }

    /// Arms the current wake-up again (after a resume from suspend or a clock set).
    func recheck() {
        state.withLock { $0.stale = true }
        startWorker()
    }

    /// The instant a route armed the wake-up for, or `nil` while none has (none works, or the
    /// request is still being carried out).
    var armedInstant: Date? { state.withLock { $0.armed?.instant } }

    /// What `status` says.
    var report: Report {
        state.withLock { state in
            let last = state.working ?? routes.count
            let failures = (0..<last).compactMap { state.failures[$0]?.reason }
            return Report(inUse: state.working.map { routes[$0].inUseSentence }, failures: failures, checking: !state.tried)
        }
    }

    /// Stops carrying out requests and takes back the armed wake-up, so no unit or wake-up is left
    /// behind the agent.
    func stop() async {
        let worker = state.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            return state.worker
        }
        await worker?.value
        let armed = state.withLock { state -> Int? in
            defer { state.armed = nil }
            return state.armed?.route
        }
        if let armed { await routes[armed].disarm() }
    }

    // MARK: - Carrying out requests

    private func startWorker() {
        state.withLock { state in
            guard state.worker == nil, !state.stopped else { return }
            state.worker = Task { [weak self] in await self?.work() }
        }
    }

    /// What to do next: arm at an instant, take the wake-up back, probe the routes, or nothing.
    private enum Step {
        case arm(Date)
        case probe
        case disarm(route: Int)
    }

    private func work() async {
        while let step = nextStep() {
            switch step {
            case .arm(let instant): await arm(at: instant, probing: false)
            case .probe: await arm(at: Date().addingTimeInterval(86_400), probing: true)
            case .disarm(let route):
                await routes[route].disarm()
                logger.debug("No deadline: the wake-up was taken back", metadata: ["route": "\(routes[route].name)"])
            }
        }
    }

    /// The next step, taken off the state; ends the worker when there is none.
    private func nextStep() -> Step? {
        state.withLock { state -> Step? in
            guard !state.stopped, state.requested else {
                state.worker = nil
                return nil
            }
            if let desired = state.desired {
                if let attempted = state.attempted, abs(attempted.timeIntervalSince(desired)) < 0.001, !state.stale {
                    state.worker = nil
                    return nil
                }
                state.stale = false
                state.attempted = desired
                return .arm(desired)
            }
            state.stale = false
            state.attempted = nil
            if let armed = state.armed {
                state.armed = nil
                return .disarm(route: armed.route)
            }
            if !state.tried { return .probe }
            state.worker = nil
            return nil
        }
    }

    /// Tries the routes in order until one arms the wake-up; the route that held it before lets
    /// go. A probe's wake-up is taken back at once.
    private func arm(at instant: Date, probing: Bool) async {
        let previous = state.withLock { $0.armed?.route }
        // A deadline due within the second needs no wake-up: the machine cannot suspend that fast
        // (the kernel refuses with a wake timer so close), and the agent's own timer fires.
        guard instant.timeIntervalSinceNow >= 1 else {
            state.withLock { $0.armed = nil }
            if let previous { await routes[previous].disarm() }
            return
        }
        var taken: Int?
        for (index, route) in routes.enumerated() {
            if case .refused? = state.withLock({ $0.failures[index] }) { continue }
            do {
                try await route.arm(at: instant)
                taken = index
                break
            } catch {
                let first = state.withLock { state -> Bool in
                    defer { state.failures[index] = error }
                    return state.failures[index] != error
                }
                if first {
                    logger.notice(
                        "A way of waking the machine does not work", metadata: ["route": "\(route.name)", "reason": "\(error.reason)"])
                }
            }
        }
        if let previous, previous != taken { await routes[previous].disarm() }
        if probing, let taken { await routes[taken].disarm() }
        state.withLock { state in
            state.tried = true
            if let taken {
                state.working = taken
                state.failures[taken] = nil
            } else {
                state.working = nil
            }
            state.armed = probing ? nil : taken.map { (instant, $0) }
        }
        if taken == nil, !probing {
            logger.notice("Nothing can wake the machine for the next deadline", metadata: ["at": "\(instant)"])
        }
    }
}
