import CLibNotify
import FoundationEssentials

/// A countdown's notification, updated in place each time its displayed second changes.
extension PresenterState {
    /// Shows a countdown's time left and schedules the next update, when its displayed second changes.
    func showCountdown(_ posted: Posted) {
        if let tick = posted.tick {
            thread?.cancel(tick)
            posted.tick = nil
        }
        let paused = posted.countdownEnd == nil
        let remaining =
            posted.countdownEnd.map { max(0, (ContinuousClock.now.duration(to: $0)).timeInterval) }
            ?? posted.pausedRemaining ?? 0
        guard
            let content = NotificationContent.countdown(
                posted.record, remaining: remaining, duration: posted.duration, paused: paused,
                hasActions: owner != nil && hasActions, images: images, tintImages: tintImages)
        else { return }
        if content != posted.lastContent || posted.notification == nil {
            show(posted, content)
        }
        // Wake when the displayed second changes (display refresh). Updates stay at least
        // `minimumRefresh` apart: a boundary sooner than that after this update is skipped, so the
        // first update after posting 3.5 s before the end shows 0:02 at 2.0 s, and from then on
        // each update falls on a boundary (timer jitter makes those 0.99x s apart).
        // Without a server there is nothing to refresh: a server that appears is sent every
        // countdown again (`repostForNewOwner`), and the ticks start from there.
        guard !paused, remaining > 0, owner != nil else { return }
        var wait = remaining - remaining.rounded(.up) + 1  // (0, 1]
        if wait < Self.minimumRefresh { wait += 1 }
        // No update in the last half second: the alert replaces the countdown then, and a Notify
        // call in flight at that moment would hold the alert back.
        guard remaining - wait > 0.5 else { return }
        let milliseconds = UInt32(max(1, (wait * 1000).rounded(.up)))
        posted.tick = thread?.after(milliseconds: milliseconds) { [weak self, weak posted] in
            guard let self, let posted else { return }
            if let tick = posted.tick { g_source_unref(tick) }
            posted.tick = nil
            self.showCountdown(posted)
        }
    }
}
