import AlarmCore
import AlarmModel
import AlarmPresentation
import AlarmRecords
import FoundationEssentials
import Synchronization

/// Something that acts while alarms ring, beside the desktop presenter: the sleep and idle
/// inhibitors, the screen waker, the media player.
package protocol RingingObserver: Sendable {
    /// An alert started ringing.
    func alertStarted(_ id: UUID)
    /// An alert that began ringing at `startedAt` is ringing: just now, or, when the agent
    /// starts, since before it started. By default the same as `alertStarted(_:)`.
    func alertStarted(_ id: UUID, startedAt: Date)
    /// The alarm `record` started ringing (or rings since before the agent started), for an
    /// observer that shows what rings. By default `alertStarted(_:startedAt:)` with the instant
    /// it began, or `alertStarted(_:)` for a record that is not ringing.
    func alertStarted(_ record: AlarmRecord)
    /// An alert stopped ringing (stopped, snoozed, repeated as a countdown, timed out, cancelled).
    func alertEnded(_ id: UUID)
}

extension RingingObserver {
    /// What is ringing matters, not since when: `alertStarted(_:)`.
    package func alertStarted(_ id: UUID, startedAt: Date) { alertStarted(id) }

    /// Which alarm rings and since when matter, not what it shows.
    package func alertStarted(_ record: AlarmRecord) {
        if case .alerting(let ringing) = record.phase {
            alertStarted(record.id, startedAt: ringing.startedAt)
        } else {
            alertStarted(record.id)
        }
    }
}

extension SleepInhibitor: RingingObserver {}
extension ScreenWaker: RingingObserver {}
extension IdleInhibitor: RingingObserver {}
extension MediaPlayer: RingingObserver {}

/// The presenter the engine talks to: it runs the apps' intents, and hands every effect on to the
/// desktop presenter (notifications and sound), when there is one.
///
/// What acts while alarms ring comes in two kinds. The observers told at the instant
/// (`observers`: the descriptor reserve and the sleep inhibitor, which the sound and the wake need
/// at once) are told right after the desktop presenter. The others (`onceShown`: the screen
/// waker, the idle inhibitor, the media player, the phone backup) wait until the desktop presenter
/// has shown the alert, so that their bus calls and tasks do not compete with the `Notify` and the
/// first sound; without a desktop presenter they are told at the instant too. Each observer hears
/// an alert's end only after its start, and never a start after the end.
package final class AgentPresenter: AlarmPresenter {
    private let desktop: (any AlertShowing)?
    private let intents: IntentRunner
    /// What acts at the instant an alert rings (keeps descriptors free, keeps the machine awake).
    private let observers: [any RingingObserver]
    /// What acts once an alert is shown (wakes the screen and keeps it lit, shows the media
    /// player, rings the phones later).
    private let onceShown: [any RingingObserver]
    private let state = Mutex(State())
    /// The alerts `onceShown` was told of; held while they are told, so that a start and an end
    /// of the same alert reach them in that order.
    private let toldOnceShown = Mutex<Set<UUID>>([])

    private struct State {
        /// The alerts ringing now, to know whose intent to run when one ends.
        var ringing: [UUID: AlarmRecord] = [:]
        /// Alerts ended through their custom secondary button: their stop intent is not run.
        var endedBySecondary: Set<UUID> = []
        /// Alerts whose `onceShown` observers wait for the desktop presenter to show them.
        var awaitingShown: [UUID: AlarmRecord] = [:]
        /// Alerts that started and have not ended (by an end or a countdown that replaced them).
        var sounding: Set<UUID> = []
    }

    /// Creates the presenter over the desktop presenter, the intent runner, what acts at the
    /// instant an alert rings (`observers`) and what acts once it is shown (`onceShown`).
    package init(
        desktop: (any AlertShowing)?, intents: IntentRunner, observers: [any RingingObserver] = [],
        onceShown: [any RingingObserver] = []
    ) {
        self.desktop = desktop
        self.intents = intents
        self.observers = observers
        self.onceShown = onceShown
        desktop?.onAlertShown { [weak self] id in self?.alertShown(id) }
    }

    /// Hands the effect to the desktop presenter first (the notification and the sound, or their
    /// end, are what a person waits for), then tells the observers and runs the stop intent when an
    /// alert is stopped: what they start (bus calls, tasks) does not compete with the `Notify`.
    package func perform(_ effect: PresentationEffect) {
        if case .alert(let record) = effect {
            // Before the desktop presenter, which may say at once that it is shown.
            state.withLock { state in
                state.ringing[record.id] = record
                state.sounding.insert(record.id)
                if desktop != nil { state.awaitingShown[record.id] = record }
            }
        }
        desktop?.perform(effect)
        switch effect {
        case .alert(let record):
            for observer in observers { observer.alertStarted(record) }
            if desktop == nil { tellOnceShown(record) }
        case .endAlert(let id, let outcome):
            let (record, bySecondary) = state.withLock { state in
                state.awaitingShown[id] = nil
                state.sounding.remove(id)
                return (state.ringing.removeValue(forKey: id), state.endedBySecondary.remove(id) != nil)
            }
            ended(id)
            if outcome == .stopped, !bySecondary, let record, let action = record.definition.stopIntent {
                run(action, for: record)
            }
        case .countdown(let record):
            // A countdown that replaces an alert (snooze, repeat) ends its ringing.
            state.withLock { state in
                state.awaitingShown[record.id] = nil
                state.sounding.remove(record.id)
            }
            ended(record.id)
        case .endCountdown, .missed:
            break
        }
    }

    /// The desktop presenter showed the alert `id`: tells `onceShown`, unless it ended meanwhile.
    private func alertShown(_ id: UUID) {
        guard let record = state.withLock({ $0.awaitingShown.removeValue(forKey: id) }) else { return }
        tellOnceShown(record)
    }

    /// Tells `onceShown` that `record` rings, unless it ended first.
    private func tellOnceShown(_ record: AlarmRecord) {
        toldOnceShown.withLock { told in
            guard state.withLock({ $0.sounding.contains(record.id) }) else { return }
            told.insert(record.id)
            for observer in onceShown { observer.alertStarted(record) }
        }
    }

    /// An alert ended: tells the observers, `onceShown` only when it was told of the start.
    private func ended(_ id: UUID) {
        for observer in observers { observer.alertEnded(id) }
        toldOnceShown.withLock { told in
            guard told.remove(id) != nil else { return }
            for observer in onceShown { observer.alertEnded(id) }
        }
    }

    /// Runs the secondary intent of a ringing alarm whose secondary button is `.custom` (the
    /// notification's "open" action): its `secondaryIntent`, or opening the app. The stop that
    /// follows does not run the stop intent as well.
    package func runSecondaryIntent(of id: UUID) {
        guard
            let record = state.withLock({ state -> AlarmRecord? in
                guard let record = state.ringing[id] else { return nil }
                state.endedBySecondary.insert(id)
                return record
            })
        else { return }
        run(record.definition.secondaryIntent ?? ApplicationActionName.activate, for: record)
    }

    /// Opens the app a ringing alarm belongs to (a click on its bubble); the person's own alarms
    /// have no app to open.
    package func activateApp(of id: UUID) {
        guard let record = state.withLock({ $0.ringing[id] }), record.owner != AlarmCaller.user.ownerName else { return }
        run(ApplicationActionName.activate, for: record)
    }

    private func run(_ action: String, for record: AlarmRecord) {
        let intents = self.intents
        Task { await intents.run(action, for: record) }
    }
}
