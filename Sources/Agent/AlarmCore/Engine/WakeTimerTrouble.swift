import AlarmModel
import FoundationEssentials

/// Why the engine's wake-up could not be armed (its timers could not be made), while it cannot:
/// the engine tries again, less and less often, and `reveille status` says so.
package struct WakeTimerTrouble: Hashable, Sendable {
    /// The error, as the clock gave it.
    package var reason: String
    /// When the first attempt failed.
    package var since: Date
    /// How many attempts failed.
    package var attempts: Int

    /// Creates a description of the trouble.
    package init(reason: String, since: Date, attempts: Int) {
        self.reason = reason
        self.since = since
        self.attempts = attempts
    }

    /// What `reveille status` says: "not armed: <reason>; trying again (3 attempts in 2 s)".
    package func sentence(at now: Date) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(since).rounded()))
        return "not armed: \(reason); trying again (\(attempts) attempt\(attempts == 1 ? "" : "s") in \(seconds) s)"
    }

    /// How long to wait before trying again: 50 ms, doubling to at most 1 s, so that a deadline
    /// that passed meanwhile rings at most a second late once the timers can be made again.
    package static func retryDelay(attempt: Int) -> Duration {
        .milliseconds(min(1_000, 50 << min(max(attempt - 1, 0), 5)))
    }
}
