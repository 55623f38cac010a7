import AlarmCore
import AlarmModel
import AlarmDesktop
import FoundationEssentials
import Logging
import Synchronization

/// Turns a person's answers to a notification, or to the media player a ringing alarm shows
/// (`MediaPlayer`: Pause, Play/Pause and Stop answer `stop`, Next answers `secondary`), into
/// engine requests, made as the person.
///
/// | answer | request |
/// |---|---|
/// | Stop, or the alert's bubble dismissed | `stop` |
/// | Snooze / Repeat (`.countdown`) | `countdown` |
/// | a snooze choice, "Snooze 5 min" (`snooze-300`) | `snooze` for that long |
/// | Open (`.custom`) | the secondary intent, then `stop` |
/// | a click on the bubble | the app's activate intent (app alarms); it rings on |
/// | the server hid the alert at once | nothing: it rings on |
/// | Pause, Resume, Cancel on a countdown | `pause`, `resume`, `cancel` |
///
/// A request the engine refuses (the alarm was stopped from the terminal a moment before, say) is
/// logged and dropped: the effects already on their way put the desktop right.
final class AlertResponder: Sendable {
    private let engine = Mutex<AlarmEngine?>(nil)
    private let presenter = Mutex<AgentPresenter?>(nil)
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Connects the responder to the engine and presenter, which are made after the notifications.
    func attach(engine: AlarmEngine, presenter: AgentPresenter) {
        self.engine.withLock { $0 = engine }
        self.presenter.withLock { $0 = presenter }
    }

    /// Carries out one answer (called on the notification thread; returns at once).
    func respond(_ id: UUID, _ response: NotificationResponse) {
        guard let engine = engine.withLock({ $0 }), let presenter = presenter.withLock({ $0 }) else { return }
        let logger = self.logger
        logger.debug("Notification answer", metadata: ["alarm": "\(id)", "answer": "\(response.rawValue)"])
        Task {
            do {
                switch response {
                case .stop, .dismissed:
                    try await engine.stop(id: id, caller: .user)
                case .secondary:
                    let record = try await engine.alarm(id: id, caller: .user)
                    if record.definition.presentation.alert.secondaryButtonBehavior == .custom {
                        presenter.runSecondaryIntent(of: id)
                        try await engine.stop(id: id, caller: .user)
                    } else {
                        try await engine.countdown(id: id, caller: .user)
                    }
                case .snooze(let seconds):
                    // The presenter delivers only the configured choices (`SnoozeChoices`).
                    try await engine.snooze(id: id, for: TimeInterval(seconds), caller: .user)
                case .default:
                    presenter.activateApp(of: id)
                case .suppressed:
                    logger.notice(
                        "The notification server hid an alert at once (do-not-disturb?); it rings on", metadata: ["alarm": "\(id)"])
                case .pause:
                    try await engine.pause(id: id, caller: .user)
                case .resume:
                    try await engine.resume(id: id, caller: .user)
                case .cancel:
                    try await engine.cancel(id: id, caller: .user)
                }
            } catch is AlertEndedNotStored {
                // Carried out (the alert is silent); the engine logged that it could not be stored.
            } catch {
                logger.info(
                    "A notification answer was not carried out",
                    metadata: ["alarm": "\(id)", "answer": "\(response.rawValue)", "reason": "\(error)"])
            }
        }
    }
}
