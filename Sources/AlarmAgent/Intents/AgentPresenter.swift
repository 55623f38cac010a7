import AlarmCore
import Foundation
import Synchronization

/// The presenter the engine talks to: it runs the apps' intents, and hands every effect on to the
/// desktop presenter (notifications and sound), when there is one.
public final class AgentPresenter: AlarmPresenter {
    private let desktop: (any AlarmPresenter)?
    private let intents: IntentRunner
    /// The alerts ringing now, to know whose intent to run when one ends.
    private let ringing = Mutex<[UUID: AlarmRecord]>([:])

    /// Creates the presenter over the desktop presenter and the intent runner.
    public init(desktop: (any AlarmPresenter)?, intents: IntentRunner) {
        self.desktop = desktop
        self.intents = intents
    }

    /// Runs the stop intent when an alert is stopped, and hands the effect on.
    public func perform(_ effect: PresentationEffect) {
        switch effect {
        case .alert(let record):
            ringing.withLock { $0[record.id] = record }
        case .endAlert(let id, let outcome):
            let record = ringing.withLock { $0.removeValue(forKey: id) }
            if outcome == .stopped, let record, let action = record.definition.stopIntent {
                let intents = self.intents
                Task { await intents.run(action, for: record) }
            }
        case .countdown, .endCountdown, .missed:
            break
        }
        desktop?.perform(effect)
    }

    /// Runs the secondary intent of a ringing alarm whose secondary button is `.custom` (the
    /// notification's "open" action): its `secondaryIntent`, or opening the app.
    public func runSecondaryIntent(of id: UUID) {
        guard let record = ringing.withLock({ $0[id] }) else { return }
        let action = record.definition.secondaryIntent ?? ApplicationActionName.activate
        let intents = self.intents
        Task { await intents.run(action, for: record) }
    }
}
