import AgentRuntime
import AlarmModel
import AlarmPresentation
import AlarmRecords
import CLibNotify
import FoundationEssentials
import Localization
import Logging
import Synchronization

/// Everything the presenter keeps; touched only on its GLib thread.
final class PresenterState: @unchecked Sendable {  // confined to the presenter's GLib thread (GLibThread)
    static let serverName = "org.freedesktop.Notifications"
    /// The shortest time between two countdown updates, in seconds.
    static let minimumRefresh: TimeInterval = 0.9

    let clock: @Sendable () -> ClockReading
    let suppressionWindow: Duration
    let timeZone: ZoneRules?
    /// The snooze lengths offered on alerts, where the server shows them.
    let snoozeChoices: SnoozeChoices
    let logger: Logger
    /// Whether a call that waits for the server may be made (see `NotificationPresenter.init`).
    let room: @Sendable () -> Bool
    let onAction: NotificationPresenter.ActionHandler
    /// The thread; set before it starts.
    var thread: GLibThread?

    /// The current owner of `org.freedesktop.Notifications`, or `nil`.
    var owner: String?
    /// Whether the bus watch reported the name's first state: until then work waits in `pending`.
    var resolved = false
    var pending: [() -> Void] = []
    /// Whether the current server has the `actions` capability.
    var hasActions = false
    /// Whether the current server shows the app an alarm came from (`x-kde-origin-name`: Plasma).
    var showsOrigin = false
    /// What the current server does with an image (`image-data`, `image-path`).
    var images = NotificationContent.ImageSupport.none
    /// The alarms' tint images, drawn before they are shown (and written as files in the
    /// runtime folder); prepared from any thread.
    let tintImages = TintImageCache(folder: TintImageCache.runtimeFolder())
    /// The current server's desktop, from its `GetServerInformation` name and vendor
    /// (`NotificationDesktop.from`, as `ServerDetector` reads them); `nil` when not known.
    var desktop: NotificationDesktop?
    /// When posting with no server (which tries D-Bus activation) last failed.
    var activationFailedAt: ContinuousClock.Instant?
    /// How long after a failed activation posting with no server is not tried again.
    static let activationRetry: Duration = .seconds(60)
    /// What `NotificationPresenter.server` reports; written on the thread, read anywhere.
    let server = Mutex(NotificationServerStatus.unknown)
    /// `NotificationPresenter.onAlertPosted`'s handler; set from any thread.
    let alertPosted = CallbackSlot<UUID>()
    var watchID: guint = 0

    var alerts: [UUID: Posted] = [:]
    var countdowns: [UUID: Posted] = [:]
    var others: [Posted] = []

    init(
        clock: @escaping @Sendable () -> ClockReading, suppressionWindow: Duration, timeZone: ZoneRules?,
        snoozeChoices: SnoozeChoices, logger: Logger, room: @escaping @Sendable () -> Bool,
        onAction: @escaping NotificationPresenter.ActionHandler
    ) {
        self.clock = clock
        self.suppressionWindow = suppressionWindow
        self.timeZone = timeZone
        self.snoozeChoices = snoozeChoices
        self.logger = logger
        self.room = room
        self.onAction = onAction
    }

    /// The zone alert times are shown in now: the one given, else the clock's.
    var shownZone: ZoneRules { timeZone ?? clock().timeZone }

    // MARK: Life

    /// `notify_init` and `g_bus_watch_name`, on the thread.
    func start() {
        _ = notify_init(NotificationContent.appName)
        let context = Unmanaged.passRetained(WeakState(self)).toOpaque()
        watchID = g_bus_watch_name(
            G_BUS_TYPE_SESSION, Self.serverName, G_BUS_NAME_WATCHER_FLAGS_NONE,
            { connection, _, owner, data in
                defer { PresenterState.settleReplyTimeout(on: connection) }
                guard let state = Unmanaged<WeakState>.fromOpaque(data!).takeUnretainedValue().state else { return }
                state.serverAppeared(owner.map { String(cString: $0) })
            },
            { connection, _, data in
                defer { PresenterState.settleReplyTimeout(on: connection) }
                guard let state = Unmanaged<WeakState>.fromOpaque(data!).takeUnretainedValue().state else { return }
                state.serverVanished()
            },
            context,
            { data in Unmanaged<WeakState>.fromOpaque(data!).release() })
    }

    /// Waits until GDBus has removed the reply timeout of the call whose answer is being handled,
    /// so that the thread does not wake for it later.
    ///
    /// The name watcher learns the owner with an asynchronous `GetNameOwner` call, which arms a
    /// 25-second timeout on this thread's context. GDBus's worker thread hands the reply to this
    /// thread (which wakes and runs the callback) and only then destroys the timeout, under the
    /// connection's lock; destroying a source does not wake a context. When this thread gets
    /// back to `poll()` first, it sleeps until the dead timeout's instant: one wake-up 25 s after
    /// start (or after the server comes or goes) for nothing. `g_dbus_connection_get_last_serial`
    /// takes that lock, so once it returns the timeout is gone, and the loop's next `poll()`
    /// leaves it out.
    static func settleReplyTimeout(on connection: OpaquePointer?) {
        guard let connection else { return }
        _ = g_dbus_connection_get_last_serial(connection)
    }

    /// Closes everything, `g_bus_unwatch_name`, `notify_uninit`; on the thread, after the loop.
    func finish() {
        for posted in Array(alerts.values) + Array(countdowns.values) + others { close(posted) }
        alerts = [:]
        countdowns = [:]
        others = []
        if watchID != 0 { g_bus_unwatch_name(watchID) }
        watchID = 0
        notify_uninit()
    }

    func whenReady(_ work: @escaping () -> Void) {
        if resolved { work() } else { pending.append(work) }
    }

    /// Marks the server's first state known and runs the work that waited for it.
    func resolve() {
        guard !resolved else { return }
        resolved = true
        let work = pending
        pending = []
        for item in work { item() }
    }

    // MARK: Effects

    /// Carries out one presentation effect, once the server's first state is known.
    func perform(_ effect: PresentationEffect, reading: ClockReading?) {
        guard resolved else {
            pending.append { [weak self] in self?.perform(effect, reading: reading) }
            return
        }
        switch effect {
        case .alert(let record):
            // The alert goes out first; the countdown it replaces is closed after (both calls wait
            // for the server's reply).
            defer { if let countdown = countdowns.removeValue(forKey: record.id) { close(countdown) } }
            if let existing = alerts[record.id] {
                existing.record = record
                existing.answered = false
                if existing.postedTo != owner || owner == nil { discard(existing) }
                postAlert(existing)
            } else {
                let posted = Posted(alarmID: record.id, record: record, role: .alert)
                alerts[record.id] = posted
                postAlert(posted)
            }
        case .endAlert(let id, let outcome):
            guard let posted = alerts.removeValue(forKey: id) else { return }
            close(posted)
            if outcome == .timedOut {
                let note = Posted(alarmID: id, record: posted.record, role: .missed)
                others.append(note)
                show(note, NotificationContent.timedOut(posted.record, timeZone: shownZone, timeStyle: DesktopTimeStyle.current()))
            }
        case .countdown(let record):
            if let alert = alerts.removeValue(forKey: record.id) { close(alert) }
            let reading = reading ?? clock()
            let posted = countdowns[record.id] ?? Posted(alarmID: record.id, record: record, role: .countdown)
            posted.record = record
            switch record.phase {
            case .countdown(let running):
                let left = max(0, running.endsAt.remaining(from: reading))
                posted.countdownEnd = .now + .seconds(left)
                posted.pausedRemaining = nil
                posted.duration = running.duration
            case .paused(let paused):
                posted.countdownEnd = nil
                posted.pausedRemaining = paused.remaining
                posted.duration = paused.duration
            case .scheduled, .alerting:
                return
            }
            countdowns[record.id] = posted
            posted.hidden = false
            if posted.postedTo != owner || owner == nil { discard(posted) }
            showCountdown(posted)
        case .endCountdown(let id):
            if let posted = countdowns.removeValue(forKey: id) { close(posted) }
        case .missed(let record, let count):
            let posted = Posted(alarmID: record.id, record: record, role: .missed)
            others.append(posted)
            show(posted, NotificationContent.missed(record, count: count))
        }
    }

    // MARK: Alerts

    /// Posts (or posts again) an alert's notification and tells `onAlertPosted`.
    func postAlert(_ posted: Posted) {
        let content = NotificationContent.alert(
            posted.record, hasActions: owner != nil && hasActions, timeZone: shownZone, timeStyle: DesktopTimeStyle.current(),
            images: images, snoozeChoices: snoozeChoices, desktop: desktop, tintImages: tintImages)
        posted.postedAt = .now
        show(posted, content)
        alertPosted.call(posted.alarmID)
    }

}

/// The state, weakly, for the bus watch's callbacks.
private final class WeakState {
    weak var state: PresenterState?
    init(_ state: PresenterState) { self.state = state }
}
