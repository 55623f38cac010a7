import AlarmCore
import AlarmModel
import AlarmPresentation
import Foundation
import Synchronization

/// A presenter that keeps every effect the engine asks of it, for tests to read.
package final class RecordingPresenter: AlarmPresenter {
    private let log = Mutex<[PresentationEffect]>([])

    /// Creates an empty recorder.
    package init() {}

    /// Records the effect.
    package func perform(_ effect: PresentationEffect) {
        log.withLock { $0.append(effect) }
    }

    /// Every effect so far, in order.
    package var effects: [PresentationEffect] { log.withLock { $0 } }

    /// The ids of alarms whose alert was presented, in order.
    package var alerted: [UUID] {
        effects.compactMap { if case .alert(let record) = $0 { record.id } else { nil } }
    }

    /// Forgets every effect so far.
    package func reset() {
        log.withLock { $0.removeAll() }
    }
}
