import AlarmRecords
import CLibNotify
import FoundationEssentials

/// One notification the presenter shows (an alert, a countdown, a missed-alarm note).
final class Posted {
    enum Role { case alert, countdown, missed }

    let alarmID: UUID
    var record: AlarmRecord
    let role: Role
    var notification: UnsafeMutablePointer<NotifyNotification>?
    var closedHandler: gulong = 0
    var lastContent: NotificationContent?
    /// The server's unique name it was posted to, or `nil` when it is not shown.
    var postedTo: String?
    var postedAt: ContinuousClock.Instant = .now
    /// An action was taken (or it was dismissed): its closes are ignored, it is not posted again.
    var answered = false
    /// We closed it: ignore the close that follows.
    var closingByUs = false
    // Countdown
    var countdownEnd: ContinuousClock.Instant?
    var pausedRemaining: TimeInterval?
    var duration: TimeInterval = 0
    var tick: UnsafeMutablePointer<GSource>?
    /// A person closed the countdown's bubble: not shown again until the next countdown effect.
    var hidden = false

    init(alarmID: UUID, record: AlarmRecord, role: Role) {
        self.alarmID = alarmID
        self.record = record
        self.role = role
    }
}
