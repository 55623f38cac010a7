import AlarmCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Whether alarms can wake this machine from suspend, and why not: what `reveille status` tells.
///
/// Waking a suspended machine at a given time takes the real-time clock's wake alarm
/// (`/sys/class/rtc/rtc0/wakealarm`, which only root may write; logind offers users no timed
/// wake-up). The agent runs as the person, never sets it, and says so; an alert that came due while
/// the machine slept rings on resume when it is no later than the grace window.
struct WakeCapability: Sendable, Hashable {
    /// Whether an alarm wakes the machine from suspend.
    var canWake: Bool
    /// One sentence for the person, starting with `yes:` or `no:`.
    var explanation: String

    /// The first real-time clock, whose `wakealarm` would wake the machine.
    static let defaultRTCDirectory = "/sys/class/rtc/rtc0"

    /// Looks at the real-time clock in `rtcDirectory`: there or not, with a wake alarm or not,
    /// writable by this process or not.
    static func assess(rtcDirectory: String = defaultRTCDirectory, graceWindow: TimeInterval) -> WakeCapability {
        let wakeAlarm = rtcDirectory + "/wakealarm"
        let manager = FileManager.default
        let why: String
        if !manager.fileExists(atPath: rtcDirectory) {
            why = "this machine has no real-time clock that could wake it (\(rtcDirectory) is missing)"
        } else if !manager.fileExists(atPath: wakeAlarm) {
            why = "this machine's real-time clock cannot wake it (\(wakeAlarm) is missing)"
        } else if access(wakeAlarm, W_OK) != 0 {
            why = "waking from suspend needs the RTC wake alarm (\(wakeAlarm)), which only root may set"
        } else {
            why = "the RTC wake alarm (\(wakeAlarm)) is writable here, but the agent does not set it: "
                + "it is the machine's only wake-up, shared with system services"
        }
        let missed = graceWindow > 0
            ? "alarms missed while asleep ring on resume if no more than \(DurationFormat.units(graceWindow)) late"
            : "alarms missed while asleep are recorded as missed on resume"
        return WakeCapability(canWake: false, explanation: "no: \(why); \(missed)")
    }
}
