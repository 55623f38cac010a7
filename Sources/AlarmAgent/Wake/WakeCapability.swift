import AlarmCore
import Foundation

/// Whether alarms can wake this machine from suspend, and why not: what `reveille status` tells.
///
/// A suspended machine is woken for an alarm when the agent's timers are the kernel's wake timers
/// (`CLOCK_REALTIME_ALARM`, `CLOCK_BOOTTIME_ALARM`, which need `CAP_WAKE_ALARM`) and the machine
/// has a real-time clock that can wake it (one under `/sys/class/rtc` with a `wakealarm`): the
/// kernel programs it for the earliest wake timer as the machine suspends. Otherwise an alert that
/// came due while the machine slept rings on resume when it is no later than the grace window.
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
    }

    /// Looks at the real-time clocks in `rtcClassDirectory` and at the agent's timers: whether they
    /// are wake timers (`wakeTimers`), and whether the person turned waking off (`declined`).
    static func assess(
        rtcClassDirectory: String = defaultRTCClassDirectory, wakeTimers: Bool, declined: Bool,
        executable: String = runningExecutable, graceWindow: TimeInterval
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
        if declined {
            obstacles.append(.declined)
        } else if !wakeTimers {
            obstacles.append(.noCapability(executable: executable))
        }
        guard let first = obstacles.first else {
            let clock = "\(rtcClassDirectory)/\(waking ?? "rtc0")"
            return WakeCapability(
                canWake: true,
                explanation: "yes: alarms are wake timers (CLOCK_REALTIME_ALARM), and \(clock) wakes the machine for them")
        }
        var reasons = [first.sentence]
        reasons += obstacles.dropFirst().map { "and " + $0.sentence }
        let missed = graceWindow > 0
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
        }
    }
}
