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
package final class AgentPresenter: AlarmPresenter {
    private let desktop: (any AlarmPresenter)?
    private let intents: IntentRunner
    /// What acts while alarms ring (keeps the machine awake and the screen lit, wakes the screen,
    /// shows the media player).
    private let observers: [any RingingObserver]
    private let state = Mutex(State())

    private struct State {
        /// The alerts ringing now, to know whose intent to run when one ends.
        var ringing: [UUID: AlarmRecord] = [:]
        /// Alerts ended through their custom secondary button: their stop intent is not run.
        var endedBySecondary: Set<UUID> = []
    }

    /// Creates the presenter over the desktop presenter, the intent runner and what acts while
    /// alarms ring.
    package init(desktop: (any AlarmPresenter)?, intents: IntentRunner, observers: [any RingingObserver] = []) {
        self.desktop = desktop
        self.intents = intents
        self.observers = observers
    }

    /// Hands the effect to the desktop presenter first (the notification and the sound, or their
    /// end, are what a person waits for), then tells the observers and runs the stop intent when an
    /// alert is stopped: what they start (bus calls, tasks) does not compete with the `Notify`.
    package func perform(_ effect: PresentationEffect) {
        desktop?.perform(effect)
        switch effect {
        case .alert(let record):
            state.withLock { $0.ringing[record.id] = record }
            for observer in observers { observer.alertStarted(record) }
        case .endAlert(let id, let outcome):
            let (record, bySecondary) = state.withLock { state in
                (state.ringing.removeValue(forKey: id), state.endedBySecondary.remove(id) != nil)
            }
            for observer in observers { observer.alertEnded(id) }
            if outcome == .stopped, !bySecondary, let record, let action = record.definition.stopIntent {
                run(action, for: record)
            }
        case .countdown(let record):
            // A countdown that replaces an alert (snooze, repeat) ends its ringing.
            for observer in observers { observer.alertEnded(record.id) }
        case .endCountdown, .missed:
            break
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
