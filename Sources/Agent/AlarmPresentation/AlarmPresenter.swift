import AlarmModel
import AlarmRecords
import FoundationEssentials

/// What a person sees and hears of alarms; the engine tells it what to show, it decides nothing.
///
/// Calls arrive on the engine's actor after each change is stored; an implementation hands the
/// work to its own thread and returns at once.
package protocol AlarmPresenter: Sendable {
    /// Carries out one presentation effect.
    func perform(_ effect: PresentationEffect)
}

/// One thing to show, update or take away.
package enum PresentationEffect: Hashable, Sendable {
    /// Show the alert and ring.
    case alert(AlarmRecord)
    /// End an alarm's alert (silence it, take the notification away).
    case endAlert(UUID, AlertOutcome)
    /// Show or update a countdown (running or paused).
    case countdown(AlarmRecord)
    /// Take a countdown away.
    case endCountdown(UUID)
    /// Tell the person that an alarm's alerts were missed.
    case missed(AlarmRecord, count: Int)
}

/// A presenter that says when each alert is shown, for what acts on an alert only after a person
/// was shown it (so that it does not compete with the notification).
package protocol AlertShowing: AlarmPresenter {
    /// Hears each alert once it is shown; an alert that ends before is never heard.
    func onAlertShown(_ handler: @escaping @Sendable (UUID) -> Void)
}
