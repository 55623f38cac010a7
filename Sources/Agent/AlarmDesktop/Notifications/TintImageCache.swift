import AlarmPresentation
import AlarmRecords
import FoundationEssentials
import Synchronization

/// The tint images of the alarms the agent keeps, drawn ahead of time, so that an alert's
/// notification takes its image from here instead of drawing it at the instant it must go out.
///
/// `prepare(_:)` hears each stored change (from the engine's change observer, which must be
/// quick): it counts which images the alarms will need (`NotificationContent.tintImageKeys`) and
/// draws the missing ones on a task of its own, off the engine and off the presenter's thread; an
/// image no alarm needs any more is dropped. `image(for:)` answers from the drawn images, and
/// draws one that is not there yet (an alarm due the moment it was set) itself.
package final class TintImageCache: Sendable {
    private struct State {
        /// The images each alarm needs.
        var keys: [UUID: Set<TintImage.Key>] = [:]
        /// How many alarms need each image.
        var uses: [TintImage.Key: Int] = [:]
        /// The images drawn, of those needed.
        var images: [TintImage.Key: NotificationImage] = [:]
        /// Whether a task is drawing the missing ones.
        var drawing = false

        /// An image needed and not drawn yet.
        var missing: TintImage.Key? { uses.keys.first { images[$0] == nil } }
    }

    private let state = Mutex(State())

    /// An empty cache.
    package init() {}

    /// Notes what `changes` need, and starts drawing what is missing; returns at once.
    package func prepare(_ changes: [AlarmChange]) {
        let startsDrawing = state.withLock { state -> Bool in
            for change in changes {
                let (id, needed): (UUID, Set<TintImage.Key>) =
                    switch change {
                    case .updated(let record): (record.id, NotificationContent.tintImageKeys(for: record))
                    case .removed(let record): (record.id, [])
                    }
                let before = state.keys[id] ?? []
                guard needed != before else { continue }
                state.keys[id] = needed.isEmpty ? nil : needed
                for key in needed.subtracting(before) { state.uses[key, default: 0] += 1 }
                for key in before.subtracting(needed) {
                    let left = (state.uses[key] ?? 1) - 1
                    state.uses[key] = left > 0 ? left : nil
                    if left <= 0 { state.images[key] = nil }
                }
            }
            guard !state.drawing, state.missing != nil else { return false }
            state.drawing = true
            return true
        }
        if startsDrawing { Task.detached(priority: .utility) { [self] in drawMissing() } }
    }

    /// The image for `key`: the one drawn ahead, or drawn now.
    package func image(for key: TintImage.Key) -> NotificationImage {
        if let image = state.withLock({ $0.images[key] }) { return image }
        let image = key.draw()
        state.withLock { state in
            if state.uses[key] != nil { state.images[key] = image }
        }
        return image
    }

    /// Whether every image the alarms need is drawn (for tests).
    package var isComplete: Bool { state.withLock { $0.missing == nil } }

    /// Draws the missing images one by one, outside the lock, until none is missing.
    private func drawMissing() {
        while let key = state.withLock({ state -> TintImage.Key? in
            guard let key = state.missing else {
                state.drawing = false
                return nil
            }
            return key
        }) {
            let image = key.draw()
            state.withLock { state in
                if state.uses[key] != nil { state.images[key] = image }
            }
        }
    }
}
