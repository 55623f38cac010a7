import AlarmCore
import Foundation
import Synchronization

/// The presenter the engine talks to: it runs the apps' intents, and hands every effect on to the
/// desktop presenter (notifications and sound), when there is one.
public final class AgentPresenter: AlarmPresenter {
    private let desktop: (any AlarmPresenter)?
    private let intents: IntentRunner
    /// Keeps the machine awake while alarms ring, when given.
    private let sleepInhibitor: SleepInhibitor?
    private let state = Mutex(State())

    private struct State {
        /// The alerts ringing now, to know whose intent to run when one ends.
        var ringing: [UUID: AlarmRecord] = [:]
        /// Alerts ended through their custom secondary button: their stop intent is not run.
        var endedBySecondary: Set<UUID> = []
    }

    /// Creates the presenter over the desktop presenter, the intent runner and, when given, the
    /// inhibitor that keeps the machine awake while alarms ring.
    public init(desktop: (any AlarmPresenter)?, intents: IntentRunner, sleepInhibitor: SleepInhibitor? = nil) {
        self.desktop = desktop
        self.intents = intents
        self.sleepInhibitor = sleepInhibitor
    }

    /// Runs the stop intent when an alert is stopped, and hands the effect on.
    public func perform(_ effect: PresentationEffect) {
        switch effect {
        case .alert(let record):
            state.withLock { $0.ringing[record.id] = record }
            sleepInhibitor?.alertStarted(record.id)
        case .endAlert(let id, let outcome):
            let (record, bySecondary) = state.withLock { state in
                (state.ringing.removeValue(forKey: id), state.endedBySecondary.remove(id) != nil)
            }
            sleepInhibitor?.alertEnded(id)
            if outcome == .stopped, !bySecondary, let record, let action = record.definition.stopIntent {
                run(action, for: record)
            }
        case .countdown(let record):
            // A countdown that replaces an alert (snooze, repeat) ends its ringing.
            sleepInhibitor?.alertEnded(record.id)
        case .endCountdown, .missed:
            break
        }
        desktop?.perform(effect)
    }

    /// Runs the secondary intent of a ringing alarm whose secondary button is `.custom` (the
    /// notification's "open" action): its `secondaryIntent`, or opening the app. The stop that
    /// follows does not run the stop intent as well.
    public func runSecondaryIntent(of id: UUID) {
        guard let record = state.withLock({ state -> AlarmRecord? in
            guard let record = state.ringing[id] else { return nil }
            state.endedBySecondary.insert(id)
            return record
        }) else { return }
        run(record.definition.secondaryIntent ?? ApplicationActionName.activate, for: record)
    }

    /// Opens the app a ringing alarm belongs to (a click on its bubble); the person's own alarms
    /// have no app to open.
    public func activateApp(of id: UUID) {
        guard let record = state.withLock({ $0.ringing[id] }), record.owner != AlarmCaller.user.ownerName else { return }
        run(ApplicationActionName.activate, for: record)
    }

    private func run(_ action: String, for record: AlarmRecord) {
        let intents = self.intents
        Task { await intents.run(action, for: record) }
    }
}
