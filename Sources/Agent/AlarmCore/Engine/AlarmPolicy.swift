import AlarmModel
import FoundationEssentials

/// The engine's settings: how late an alert may still ring, how long it rings, how many alarms.
package struct AlarmPolicy: Hashable, Sendable {
    /// An alert whose instant passed while nothing ran still rings if it is at most this late
    /// (seconds); later ones are recorded as missed. Default 10 minutes.
    package var graceWindow: TimeInterval
    /// An unanswered alert ends as timed out after ringing this long (seconds); `nil` rings until
    /// answered. Default 10 minutes.
    package var ringTimeout: TimeInterval?
    /// The most alarms one owner may have. Default 1000.
    package var maximumAlarmsPerOwner: Int
    /// How long a snooze lasts (seconds) for an alarm whose snooze button (a secondary button
    /// that counts down) has no `postAlert` duration of its own, as Apple's examples schedule
    /// one. Default 9 minutes, as the iPhone's Clock snoozes.
    package var defaultSnooze: TimeInterval

    /// The default snooze: 9 minutes.
    package static let nineMinutes: TimeInterval = 540

    /// Creates a policy; every parameter has the documented default.
    package init(
        graceWindow: TimeInterval = 600, ringTimeout: TimeInterval? = 600, maximumAlarmsPerOwner: Int = 1_000,
        defaultSnooze: TimeInterval = AlarmPolicy.nineMinutes
    ) {
        self.graceWindow = graceWindow
        self.ringTimeout = ringTimeout
        self.maximumAlarmsPerOwner = maximumAlarmsPerOwner
        self.defaultSnooze = defaultSnooze
    }
}
