import CLibNotify
import FoundationEssentials

/// A person's answers (actions and closes) on the presenter's notifications, as `NotificationResponse`s.
extension PresenterState {
    private func isCurrent(_ posted: Posted, _ notification: UnsafeMutablePointer<NotifyNotification>?) -> Bool {
        notification != nil && posted.notification == notification && posted.postedTo != nil && posted.postedTo == owner
    }

    /// An action on a notification: a response for the alarm, when the notification is current.
    func invoked(_ posted: Posted, key: String, notification: UnsafeMutablePointer<NotifyNotification>?) {
        guard isCurrent(posted, notification) else {
            logger.debug(
                "An action on a notification no longer current was ignored",
                metadata: [
                    "alarm": "\(posted.alarmID)", "action": "\(key)", "postedTo": "\(posted.postedTo ?? "none")",
                    "owner": "\(owner ?? "none")",
                ])
            return
        }
        logger.debug("Action invoked", metadata: ["alarm": "\(posted.alarmID)", "action": "\(key)", "role": "\(posted.role)"])
        switch posted.role {
        case .alert:
            guard !posted.answered, alerts[posted.alarmID] === posted else {
                logger.debug(
                    "An action on an alert already answered or replaced was ignored",
                    metadata: ["alarm": "\(posted.alarmID)", "action": "\(key)"])
                return
            }
            let response: NotificationResponse
            switch key {
            case "stop": response = .stop
            case "snooze", "repeat", "open": response = .secondary
            case _ where key.hasPrefix(SnoozeChoices.actionKeyPrefix):
                // libnotify hands on only keys this notification was posted with; still, a length
                // is taken only from the choices, never from the key alone.
                guard let seconds = snoozeChoices.seconds(forActionKey: key),
                    posted.lastContent?.actions.contains(where: { $0.key == key }) == true
                else {
                    logger.notice(
                        "A snooze action that is not one of the offered snooze choices was ignored",
                        metadata: ["alarm": "\(posted.alarmID)", "action": "\(key)"])
                    return
                }
                response = .snooze(seconds: seconds)
            case "default":
                // A click on the bubble is not an answer: the alarm rings on, so the alert comes
                // back (servers take a clicked bubble away) with Stop and Snooze.
                if let notification = posted.notification, room() {
                    posted.closingByUs = true
                    var error: UnsafeMutablePointer<GError>?
                    if notify_notification_close(notification, &error) == 0, let error { g_error_free(error) }
                }
                discard(posted)
                postAlert(posted)
                onAction(posted.alarmID, .default)
                return
            default: return
            }
            posted.answered = true
            // Close it ourselves (dunst leaves it on screen) and ignore the close that follows.
            if let notification = posted.notification, room() {
                posted.closingByUs = true
                var error: UnsafeMutablePointer<GError>?
                if notify_notification_close(notification, &error) == 0, let error { g_error_free(error) }
            }
            onAction(posted.alarmID, response)
        case .countdown:
            guard countdowns[posted.alarmID] === posted else { return }
            switch key {
            case "pause": onAction(posted.alarmID, .pause)
            case "resume": onAction(posted.alarmID, .resume)
            case "cancel": onAction(posted.alarmID, .cancel)
            default: return
            }
        case .missed:
            return
        }
    }

    /// A notification closed: suppressed, dismissed or put away, as the reason and timing say.
    func closed(_ posted: Posted, reason: Int32, notification: UnsafeMutablePointer<NotifyNotification>?) {
        guard isCurrent(posted, notification) else { return }
        logger.debug(
            "The server closed a notification",
            metadata: ["alarm": "\(posted.alarmID)", "role": "\(posted.role)", "reason": "\(reason)", "byUs": "\(posted.closingByUs)"])
        let byUs = posted.closingByUs
        posted.closingByUs = false
        let sincePosting = ContinuousClock.now - posted.postedAt
        // The server no longer shows it: a later change posts a new one.
        discard(posted)
        posted.postedTo = nil
        if !byUs, posted.role == .countdown {
            // A person put the countdown away: no new bubble each second until it changes.
            posted.hidden = true
            if let tick = posted.tick {
                thread?.cancel(tick)
                posted.tick = nil
            }
        }
        guard !byUs, !posted.answered, posted.role == .alert, alerts[posted.alarmID] === posted else { return }
        if sincePosting < suppressionWindow {
            onAction(posted.alarmID, .suppressed)
        } else if reason == 2 {
            posted.answered = true
            onAction(posted.alarmID, .dismissed)
        }
    }
}
