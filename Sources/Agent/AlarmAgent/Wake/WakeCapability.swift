import AlarmModel
import FoundationEssentials

/// Whether alarms can wake this machine from suspend, how, and why not: what `reveille status` tells.
///
/// A suspended machine is woken through a real-time clock that can wake it (one under
/// `/sys/class/rtc` with a `wakealarm`): the kernel programs it for the earliest wake timer as the
/// machine suspends. The first route that works sets that timer: the agent's own timers, when they
/// are the kernel's wake timers (`CLOCK_REALTIME_ALARM`, `CLOCK_BOOTTIME_ALARM`, which need
/// `CAP_WAKE_ALARM`); otherwise the systemd user manager's `WakeSystem` timer or KDE's PowerDevil
/// (`WakeRouter`). With none, an alert that came due while the machine slept rings on resume when
/// it is no later than the grace window.
struct WakeCapability: Sendable, Hashable {
    /// Whether an alarm wakes the machine from suspend.
    var canWake: Bool
    /// One sentence for the person, starting with `yes:` or `no:`.
    var explanation: String

    /// Where the kernel lists real-time clocks.
    static let defaultRTCClassDirectory = "/sys/class/rtc"

    /// This program's file (`/proc/self/exe`), for the `setcap` command `status` suggests.
    static var runningExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "reveilled"
    }

    /// What stands between an alarm and a suspended machine waking for it.
    enum Obstacle: Sendable, Hashable {
        /// No real-time clock is listed in the folder.
        case noClock(folder: String)
        /// The real-time clocks cannot wake the machine (none has a `wakealarm`): the first one.
        case clockCannotWake(clock: String)
        /// The agent may not set wake timers (no `CAP_WAKE_ALARM`).
        case noCapability(executable: String)
        /// The agent was started with `--no-wake`.
        case declined
        /// A route besides the agent's own timers did not work: why.
        case routeFailed(String)
        /// The other routes are still being tried.
        case checking
    }

    /// Looks at the real-time clocks in `rtcClassDirectory`, at the agent's timers: whether they
    /// are wake timers (`wakeTimers`), at whether the person turned waking off (`declined`), and,
    /// without wake timers, at what the other routes did (`routes`).
    static func assess(
        rtcClassDirectory: String = defaultRTCClassDirectory, wakeTimers: Bool, declined: Bool,
        executable: String = runningExecutable, graceWindow: TimeInterval, routes: WakeRouter.Report? = nil
    ) -> WakeCapability {
        var obstacles: [Obstacle] = []
        let clocks = ((try? FileManager.default.contentsOfDirectory(atPath: rtcClassDirectory)) ?? [])
            .filter { $0.hasPrefix("rtc") }.sorted()
        let waking = clocks.first { FileManager.default.fileExists(atPath: "\(rtcClassDirectory)/\($0)/wakealarm") }
        if clocks.isEmpty {
            obstacles.append(.noClock(folder: rtcClassDirectory))
        } else if waking == nil {
            obstacles.append(.clockCannotWake(clock: "\(rtcClassDirectory)/\(clocks[0])"))
        }
        let clock = "\(rtcClassDirectory)/\(waking ?? "rtc0")"
        var routeInUse: String?
        if declined {
            obstacles.append(.declined)
        } else if !wakeTimers {
            if let inUse = routes?.inUse {
                routeInUse = inUse
            } else {
                obstacles.append(.noCapability(executable: executable))
                obstacles += (routes?.failures ?? []).map { .routeFailed($0) }
                if routes?.checking == true { obstacles.append(.checking) }
            }
        }
        guard let first = obstacles.first else {
            guard let routeInUse else {
                return WakeCapability(
                    canWake: true,
                    explanation: "yes: alarms are wake timers (CLOCK_REALTIME_ALARM), and \(clock) wakes the machine for them")
            }
            let others = (routes?.failures ?? []).map { "; " + $0 }.joined()
            return WakeCapability(
                canWake: true,
                explanation:
                    "yes: \(routeInUse) for the next alarm, through \(clock); the agent may not set wake timers itself (no CAP_WAKE_ALARM)\(others)"
            )
        }
        var reasons = [first.sentence]
        reasons += obstacles.dropFirst().map { "and " + $0.sentence }
        let missed =
            graceWindow > 0
            ? "alarms missed while asleep ring on resume if no more than \(DurationFormat.units(graceWindow)) late"
            : "alarms missed while asleep are recorded as missed on resume"
        return WakeCapability(canWake: false, explanation: "no: \(reasons.joined(separator: ", ")); \(missed)")
    }
}

extension WakeCapability.Obstacle {
    /// The obstacle as a clause for `status`.
    var sentence: String {
        switch self {
        case .noClock(let folder):
            "this machine has no real-time clock that could wake it (\(folder) lists none)"
        case .clockCannotWake(let clock):
            "this machine's real-time clock cannot wake it (\(clock)/wakealarm is missing)"
        case .noCapability(let executable):
            "the agent may not set wake timers: that takes CAP_WAKE_ALARM (sudo setcap cap_wake_alarm+ep \(executable))"
        case .declined:
            "the agent was started with --no-wake"
        case .routeFailed(let reason):
            reason
        case .checking:
            "the systemd user manager and KDE's PowerDevil are still being asked"
        }
    }
}
