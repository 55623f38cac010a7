import AlarmModel
import AlarmPresentation
import AlarmRecords
import FoundationEssentials
import Synchronization

/// The desktop side of alerting: notifications (when there is a presenter for them), sound, and
/// the do-not-disturb guard, driven by the engine's presentation effects.
///
/// It decides nothing about an alarm's state: a person's answers reach `onResponse` (from the
/// notification presenter) and the agent turns them into engine requests, whose effects come back
/// here. An alert rings until its `endAlert`; a notification server that is missing or hides the
/// alert never silences it.
///
/// With a do-not-disturb guard, every notification effect goes through it, in order: an alert is
/// posted once do-not-disturb is lifted (where the desktop would hide it), and an alert without
/// breakthrough waits while do-not-disturb is on, ringing quietly or not at all.
///
/// The notification goes first: an alert's sound starts once the server has answered its
/// notification, or `notificationHeadStart` after the alert, whichever comes first. Opening the
/// sound device at the same instant would compete for the processor with posting the
/// notification, whose budget is the smaller (5 ms, against 30 ms for the first sound). What else
/// acts on an alert (the screen waker, the idle inhibitor, the media player) waits for the same
/// moment: `onAlertShown(_:)` hears it.
package final class DesktopPresenter: AlarmPresenter, AlertShowing {
    /// The notifications, or `nil` (no notifications at all).
    package let notifications: (any AlarmNotifying)?
    /// The alert sounds, or `nil` (silent: visual alerts only).
    package let sounds: AlertSounds?
    /// The do-not-disturb guard, or `nil` (do-not-disturb is not looked at).
    package let doNotDisturb: DoNotDisturbGuard?
    /// Silent mode: the output's mixer, read for the status and raised while alarms ring when
    /// the person opted in; `nil` without sound.
    package let silentMode: SilentModeGuard?

    /// The gain of an alert that waits for do-not-disturb to end, with `HeldSound.quiet` (-20 dB).
    package static let quietGain = 0.1

    /// The longest an alert's sound waits for the server to answer its notification.
    package static let notificationHeadStart: Duration = .milliseconds(5)

    /// Alert sounds that wait for their notification (or the head start to pass); `nil` once shut down.
    private let waitingSounds = Mutex<[UUID: AlarmRecord]?>([:])
    /// Told each alert once it is shown (`onAlertShown(_:)`).
    private let shownHandler = Mutex<(@Sendable (UUID) -> Void)?>(nil)

    /// Creates the presenter over its parts, and starts the guard.
    package init(
        notifications: (any AlarmNotifying)?, sounds: AlertSounds?, doNotDisturb: DoNotDisturbGuard? = nil,
        silentMode: SilentModeGuard? = nil
    ) {
        self.notifications = notifications
        self.sounds = sounds
        self.doNotDisturb = doNotDisturb
        self.silentMode = silentMode
        notifications?.onAlertPosted { [weak self] id in self?.startWaitingSound(id) }
        let heldSound = doNotDisturb?.configuration.heldSound ?? .quiet
        doNotDisturb?.start(
            outputs: .init(
                post: { [notifications] effect in notifications?.perform(effect) },
                hold: { [sounds] record in
                    if heldSound == .quiet { sounds?.start(record, maximumGain: Self.quietGain) }
                },
                release: { [notifications, sounds] record in
                    sounds?.stop(record.id)
                    sounds?.start(record)
                    notifications?.perform(.alert(record))
                }))
    }

    /// Hands an alert to the notifications, then starts its sound (an alert without breakthrough
    /// waits for the guard); on an end, silences the sound before the notification goes away.
    package func perform(_ effect: PresentationEffect) {
        switch effect {
        case .alert(let record):
            guard let sounds, doNotDisturb == nil || record.definition.breakthrough else {
                show(effect)
                return alertShown(record.id)
            }
            guard notifications != nil else {
                if record.definition.breakthrough { silentMode?.alertStarted(record.id) }
                sounds.start(record)
                return alertShown(record.id)
            }
            waitingSounds.withLock { $0?[record.id] = record }
            show(effect)
            Task { [weak self] in
                try? await Task.sleep(for: Self.notificationHeadStart)
                self?.startWaitingSound(record.id)
            }
            return
        case .endAlert(let id, _):
            waitingSounds.withLock { _ = $0?.removeValue(forKey: id) }
            sounds?.stop(id)
            silentMode?.alertEnded(id)
        case .countdown(let record):
            // A countdown that replaced an alert (snooze) is silent.
            waitingSounds.withLock { _ = $0?.removeValue(forKey: record.id) }
            sounds?.stop(record.id)
            silentMode?.alertEnded(record.id)
        case .endCountdown, .missed:
            break
        }
        show(effect)
    }

    /// Gets ready what the changed alarms will show (`AlarmNotifying.prepare(_:)`); called on the
    /// engine after each stored change, and returns at once.
    package func prepare(_ changes: [AlarmChange]) {
        notifications?.prepare(changes)
    }

    /// Hears each alert once it is shown: its notification answered or the head start passed
    /// (its sound has just started), or at once where nothing waits (no notifications, no sound,
    /// or an alert held by do-not-disturb). An alert that ends before is never heard. On whatever
    /// thread showed it; replaces an earlier handler.
    package func onAlertShown(_ handler: @escaping @Sendable (UUID) -> Void) {
        shownHandler.withLock { $0 = handler }
    }

    /// Starts the sound of an alert that waited for its notification, unless it started already
    /// (from the notification or the head start, whichever came second) or ended meanwhile; then
    /// says the alert is shown.
    private func startWaitingSound(_ id: UUID) {
        guard let record = waitingSounds.withLock({ $0?.removeValue(forKey: id) }) else { return }
        if record.definition.breakthrough { silentMode?.alertStarted(id) }
        sounds?.start(record)
        alertShown(id)
    }

    /// Tells the `onAlertShown(_:)` handler that the alert `id` is shown.
    private func alertShown(_ id: UUID) {
        shownHandler.withLock { $0 }?(id)
    }

    /// Hands the effect to the notifications, through the do-not-disturb guard when there is one.
    private func show(_ effect: PresentationEffect) {
        if let doNotDisturb {
            doNotDisturb.submit(effect)
        } else {
            notifications?.perform(effect)
        }
    }

    /// Silences everything, puts do-not-disturb back, and takes every notification away.
    package func shutDown() async {
        waitingSounds.withLock { $0 = nil }
        await sounds?.stopAll()
        silentMode?.shutDown()
        await doNotDisturb?.shutDown()
        notifications?.shutDown()
    }
}
