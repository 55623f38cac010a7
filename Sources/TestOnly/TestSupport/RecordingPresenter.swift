import AlarmCore
import AlarmModel
import Foundation
import Synchronization

/// A presenter that keeps every effect the engine asks of it, for tests to read.
public final class RecordingPresenter: AlarmPresenter {
    private let log = Mutex<[PresentationEffect]>([])

    /// Creates an empty recorder.
    public init() {}

    /// Records the effect.
    public func perform(_ effect: PresentationEffect) {
        log.withLock { $0.append(effect) }
    }

    /// Every effect so far, in order.
    public var effects: [PresentationEffect] { log.withLock { $0 } }

    /// The ids of alarms whose alert was presented, in order.
    public var alerted: [UUID] {
        effects.compactMap { if case .alert(let record) = $0 { record.id } else { nil } }
    }

    /// Forgets every effect so far.
    public func reset() {
        log.withLock { $0.removeAll() }
    }
}
