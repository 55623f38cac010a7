import AlarmCore
import Foundation

/// The desktop side of alerting: notifications (when there is a presenter for them) and sound,
/// driven by the engine's presentation effects.
///
/// It decides nothing about an alarm's state: a person's answers reach `onResponse` (from the
/// notification presenter) and the agent turns them into engine requests, whose effects come back
/// here. An alert rings until its `endAlert`; a notification server that is missing or hides the
/// alert never silences it.
public final class DesktopPresenter: AlarmPresenter {
    /// The notifications, or `nil` (no notifications at all).
    public let notifications: (any AlarmNotifying)?
    /// The alert sounds, or `nil` (silent: visual alerts only).
    public let sounds: AlertSounds?

    /// Creates the presenter over its two halves.
    public init(notifications: (any AlarmNotifying)?, sounds: AlertSounds?) {
        self.notifications = notifications
        self.sounds = sounds
    }

    /// Starts the sound before the notification on an alert, and silences it before the
    /// notification goes away on an end; everything else is the notifications' business.
    public func perform(_ effect: PresentationEffect) {
        switch effect {
        case .alert(let record):
            sounds?.start(record)
        case .endAlert(let id, _):
            sounds?.stop(id)
        case .countdown(let record):
            // A countdown that replaced an alert (snooze) is silent.
            sounds?.stop(record.id)
        case .endCountdown, .missed:
            break
        }
        notifications?.perform(effect)
    }

    /// Silences everything and takes every notification away.
    public func shutDown() async {
        await sounds?.stopAll()
        notifications?.shutDown()
    }
}
