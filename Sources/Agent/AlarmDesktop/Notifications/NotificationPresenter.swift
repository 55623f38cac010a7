import AlarmCore
import AlarmModel
import AlarmRecords
import CLibNotify
import Foundation
import Localization
import Logging
import Synchronization

/// Shows alarms as desktop notifications; decides nothing about alarm state.
package protocol AlarmNotifying: AnyObject, Sendable {
    /// Carries out one presentation effect (returns at once; the work happens on the presenter's thread).
    func perform(_ effect: PresentationEffect)
    /// Takes every notification away and ends the presenter's thread.
    func shutDown()
    /// The notification server, as last seen.
    var server: NotificationServerStatus { get }
    /// Calls `handler` with the alarm's id each time the server has answered an alert's
    /// notification, or it could not be posted (on the presenter's thread; hand the work on and return).
    func onAlertPosted(_ handler: @escaping @Sendable (UUID) -> Void)
}

/// Alarms as freedesktop notifications, through libnotify, on a thread of its own.
///
/// A dedicated thread runs its own `GMainContext` / `GMainLoop` (see `GLibThread`); `notify_init`,
/// every `notify_notification_*` call, and every callback happen there.
///
/// - Alerts: `notify_notification_new`, `notify_notification_set_urgency(NOTIFY_URGENCY_CRITICAL)`
///   (sent as the byte 2), `notify_notification_set_timeout(NOTIFY_EXPIRES_NEVER)`, the hints of
///   `NotificationContent.alert` through `notify_notification_set_hint`, and the actions `default`,
///   `stop`, and `snooze`/`repeat`/`open` through `notify_notification_add_action`, then one
///   `snooze-<seconds>` per snooze choice where the alarm snoozes and the server shows that many
///   actions (`NotificationContent.showsSnoozeChoices`, from the server's `GetServerInformation`
///   name, read with `notify_get_server_info` as for the status). When the server
///   lacks the `actions` capability (`notify_get_server_caps`) or there is no server, the body says
///   `reveille stop <id prefix>`.
/// - Responses: action callbacks and the `closed` signal (`g_signal_connect_data`; context through
///   `user_data`, released in the destroy notifier) become `onAction(alarmID, response)`. After an
///   action the presenter closes the notification itself (`notify_notification_close`) and ignores
///   the close that follows. A close within `suppressionWindow` of posting is `.suppressed`, never a
///   stop; a later close with reason 2 (dismissed) is `.dismissed`. A `snooze-<seconds>` action
///   is `.snooze(seconds:)` only when it is one of the snooze choices and was offered on that
///   notification; any other such key is logged and dropped.
/// - Only the current owner of `org.freedesktop.Notifications` is heard: libnotify receives
///   `ActionInvoked` / `NotificationClosed` through a `GDBusProxy` for the well-known name, and
///   GDBusProxy drops signals whose sender is not the name's current owner (gdbusproxy.c,
///   `on_signal_received`); on top of that the presenter ignores a callback for a notification
///   posted to an owner other than the current one.
/// - Server restarts: `g_bus_watch_name` on `org.freedesktop.Notifications`; when an owner appears
///   that did not receive an alert (or countdown) still shown, it is posted again, as a new
///   notification.
/// - Countdowns: one quiet notification per alarm (urgency low, transient, no sound), updated in
///   place (`notify_notification_update` + `notify_notification_show`, the same id) when the
///   displayed second changes, so at most once a second, with the progress hint `value`.
///
/// `onAction` is called on the presenter's thread: hand the work on and return.
package final class NotificationPresenter: AlarmNotifying {
    /// Receives a person's response for an alarm.
    package typealias ActionHandler = @Sendable (UUID, NotificationResponse) -> Void

    private let thread: GLibThread
    private let state: PresenterState

    /// Starts the presenter's thread and calls `notify_init("Reveille")` there.
    ///
    /// - Parameters:
    ///   - clock: reads the clocks, to turn a countdown's deadline into time left.
    ///   - suppressionWindow: a close this soon after posting means a server hid the alert.
    ///   - timeZone: the zone alert times are shown in.
    ///   - snoozeChoices: the snooze lengths offered on a ringing alarm's notification, where the
    ///     server shows them; none by default (Stop and Snooze only).
    ///   - logger: where dropped answers are noted.
    ///   - onAction: receives responses, on the presenter's thread.
    package init(
        clock: @escaping @Sendable () -> ClockReading,
        suppressionWindow: Duration = .seconds(1),
        timeZone: TimeZone = .current,
        snoozeChoices: SnoozeChoices = .none,
        logger: Logger = Logger(label: "reveille.notifications"),
        onAction: @escaping ActionHandler
    ) {
        let state = PresenterState(
            clock: clock, suppressionWindow: suppressionWindow, timeZone: timeZone, snoozeChoices: snoozeChoices,
            logger: logger, onAction: onAction)
        self.state = state
        let thread = GLibThread()
        state.thread = thread
        self.thread = thread
        thread.start(name: "reveille-notify", setUp: { state.start() }, tearDown: { state.finish() })
    }

    deinit { shutDown() }

    package func perform(_ effect: PresentationEffect) {
        let reading: ClockReading?
        switch effect {
        case .countdown: reading = state.clock()
        default: reading = nil
        }
        thread.invoke { [state] in state.perform(effect, reading: reading) }
    }

    /// The notification server as last seen (`notify_get_server_info`, `notify_get_server_caps`).
    package var server: NotificationServerStatus { state.server.withLock { $0 } }

    package func onAlertPosted(_ handler: @escaping @Sendable (UUID) -> Void) {
        state.alertPosted.set(handler)
    }

    /// Closes every notification, stops watching the bus, calls `notify_uninit` and ends the thread.
    package func shutDown() { thread.quit() }

    /// Waits until everything handed to the presenter so far has been carried out (for tests and
    /// orderly hand-offs).
    package func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            thread.invoke { [state] in state.whenReady { continuation.resume() } }
        }
    }
}

/// The notification server, as the presenter last saw it.
package enum NotificationServerStatus: Sendable, Equatable, CustomStringConvertible {
    /// Not looked up yet.
    case unknown
    /// Nobody owns `org.freedesktop.Notifications`: alerts ring, unseen.
    case missing
    /// A server runs: its name and version, and whether it draws actions (Stop, Snooze).
    case running(name: String, version: String, hasActions: Bool)

    package var description: String {
        switch self {
        case .unknown: "unknown"
        case .missing: "none (alerts ring; stop them with reveille stop)"
        case .running(let name, let version, let hasActions):
            "\(name.isEmpty ? "unnamed server" : name)\(version.isEmpty ? "" : " " + version)"
                + (hasActions ? "" : " (no action buttons; stop alerts with reveille stop)")
        }
    }
}

/// Everything the presenter keeps; touched only on its GLib thread.
final class PresenterState: @unchecked Sendable {  // confined to the presenter's GLib thread (GLibThread)
    static let serverName = "org.freedesktop.Notifications"
    /// The shortest time between two countdown updates, in seconds.
    static let minimumRefresh: TimeInterval = 0.9

    let clock: @Sendable () -> ClockReading
    let suppressionWindow: Duration
    let timeZone: TimeZone
    /// The snooze lengths offered on alerts, where the server shows them.
    let snoozeChoices: SnoozeChoices
    let logger: Logger
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
        clock: @escaping @Sendable () -> ClockReading, suppressionWindow: Duration, timeZone: TimeZone,
        snoozeChoices: SnoozeChoices, logger: Logger, onAction: @escaping NotificationPresenter.ActionHandler
    ) {
        self.clock = clock
        self.suppressionWindow = suppressionWindow
        self.timeZone = timeZone
        self.snoozeChoices = snoozeChoices
        self.logger = logger
        self.onAction = onAction
    }

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

    private func resolve() {
        guard !resolved else { return }
        resolved = true
        let work = pending
        pending = []
        for item in work { item() }
    }

    // MARK: The server

    func serverAppeared(_ newOwner: String?) {
        logger.debug("The notification server appeared", metadata: ["owner": "\(newOwner ?? "?")", "previous": "\(owner ?? "none")"])
        owner = newOwner
        activationFailedAt = nil
        let capabilities = Self.serverCapabilities()
        hasActions = capabilities.contains("actions")
        showsOrigin = capabilities.contains(NotificationContent.originHint)
        images = NotificationContent.ImageSupport(capabilities: capabilities)
        let (name, vendor, version) = Self.serverInformation()
        desktop = NotificationDesktop.from(serverName: name, vendor: vendor)
        server.withLock { $0 = .running(name: name, version: version, hasActions: hasActions) }
        guard resolved else { return resolve() }
        // Let libnotify's own proxy see the same owner change first, then post again.
        thread?.soon { [weak self] in self?.repostForNewOwner() }
    }

    func serverVanished() {
        logger.debug("The notification server went away", metadata: ["owner": "\(owner ?? "none")"])
        owner = nil
        hasActions = false
        showsOrigin = false
        images = .none
        desktop = nil
        server.withLock { $0 = .missing }
        resolve()
    }

    /// The server's name, vendor and version (`notify_get_server_info`); empty when it does not answer.
    static func serverInformation() -> (name: String, vendor: String, version: String) {
        var name: UnsafeMutablePointer<CChar>?
        var vendor: UnsafeMutablePointer<CChar>?
        var version: UnsafeMutablePointer<CChar>?
        guard notify_get_server_info(&name, &vendor, &version, nil) != 0 else { return ("", "", "") }
        defer {
            g_free(name)
            g_free(vendor)
            g_free(version)
        }
        let text = { (pointer: UnsafeMutablePointer<CChar>?) in pointer.map { String(cString: $0) } ?? "" }
        return (text(name), text(vendor), text(version))
    }

    /// The capabilities the server lists (`notify_get_server_caps`); none when it does not answer.
    static func serverCapabilities() -> Set<String> {
        guard var list = notify_get_server_caps() else { return [] }
        defer { g_list_free_full(list, { g_free($0) }) }
        var found: Set<String> = []
        while true {
            if let data = list.pointee.data { found.insert(String(cString: data.assumingMemoryBound(to: CChar.self))) }
            guard let next = list.pointee.next else { break }
            list = next
        }
        return found
    }

    private func repostForNewOwner() {
        guard let owner else { return }
        for posted in alerts.values where posted.postedTo != owner && !posted.answered {
            discard(posted)
            postAlert(posted)
        }
        for posted in countdowns.values where posted.postedTo != owner && !posted.hidden {
            discard(posted)
            showCountdown(posted)
        }
    }

    // MARK: Effects

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
                show(note, NotificationContent.timedOut(posted.record, timeZone: timeZone, timeStyle: DesktopTimeStyle.current()))
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

    private func postAlert(_ posted: Posted) {
        let content = NotificationContent.alert(
            posted.record, hasActions: owner != nil && hasActions, timeZone: timeZone, timeStyle: DesktopTimeStyle.current(),
            images: images, snoozeChoices: snoozeChoices, desktop: desktop)
        posted.postedAt = .now
        show(posted, content)
        alertPosted.call(posted.alarmID)
    }

    // MARK: Countdowns

    private func showCountdown(_ posted: Posted) {
        if let tick = posted.tick {
            thread?.cancel(tick)
            posted.tick = nil
        }
        let paused = posted.countdownEnd == nil
        let remaining = posted.countdownEnd.map { max(0, (ContinuousClock.now.duration(to: $0)).timeInterval) }
            ?? posted.pausedRemaining ?? 0
        guard let content = NotificationContent.countdown(
            posted.record, remaining: remaining, duration: posted.duration, paused: paused,
            hasActions: owner != nil && hasActions, images: images)
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

    // MARK: libnotify

    /// Posts or updates `posted`'s notification with `content`: `notify_notification_new` (or
    /// `notify_notification_update` with cleared actions and hints), the hints, the actions, the
    /// `closed` handler, `notify_notification_show`.
    private func show(_ posted: Posted, _ content: NotificationContent) {
        let content = showsOrigin ? content.namingOrigin(of: posted.record) : content
        // With no server, the first call may start one by D-Bus activation; after that fails, the
        // next calls wait for a server to appear (or a minute), instead of starting a failing
        // server again for every alert and countdown update.
        if owner == nil, let failed = activationFailedAt, ContinuousClock.now - failed < Self.activationRetry {
            posted.postedTo = nil
            discard(posted)
            return
        }
        let notification: UnsafeMutablePointer<NotifyNotification>
        if let existing = posted.notification {
            notification = existing
            notify_notification_update(notification, content.summary, content.body, content.icon)
            notify_notification_clear_actions(notification)
            notify_notification_clear_hints(notification)
        } else {
            notification = notify_notification_new(content.summary, content.body, content.icon)
            posted.notification = notification
            let box = Unmanaged.passRetained(CallbackContext(state: self, posted: posted, key: "")).toOpaque()
            posted.closedHandler = reveille_notification_connect_closed(
                notification,
                { notification, data in
                    let context = Unmanaged<CallbackContext>.fromOpaque(data!).takeUnretainedValue()
                    let reason = notify_notification_get_closed_reason(notification)
                    context.state?.closed(context.posted, reason: reason, notification: notification)
                }, box,
                { data, _ in Unmanaged<CallbackContext>.fromOpaque(data!).release() })
        }
        notify_notification_set_app_name(notification, NotificationContent.appName)
        notify_notification_set_timeout(notification, content.expireTimeout)
        for (key, hint) in content.hints.sorted(by: { $0.key < $1.key }) {
            switch (key, hint) {
            case ("urgency", .byte(let level)):
                // Sent as a byte by libnotify (notify_notification_set_urgency → g_variant_new_byte).
                notify_notification_set_urgency(notification, NotifyUrgency(UInt32(level)))
            case (_, .byte(let value)): notify_notification_set_hint(notification, key, g_variant_new_byte(value))
            case (_, .boolean(let value)): notify_notification_set_hint(notification, key, g_variant_new_boolean(value ? 1 : 0))
            case (_, .string(let value)): notify_notification_set_hint(notification, key, g_variant_new_string(value))
            case (_, .int32(let value)): notify_notification_set_hint(notification, key, g_variant_new_int32(value))
            case (_, .image(let image)): notify_notification_set_hint(notification, key, Self.variant(image))
            }
        }
        for action in content.actions {
            let box = Unmanaged.passRetained(CallbackContext(state: self, posted: posted, key: action.key)).toOpaque()
            notify_notification_add_action(
                notification, action.key, action.label,
                { notification, _, data in
                    let context = Unmanaged<CallbackContext>.fromOpaque(data!).takeUnretainedValue()
                    context.state?.invoked(context.posted, key: context.key, notification: notification)
                }, box,
                { data in Unmanaged<CallbackContext>.fromOpaque(data!).release() })
        }
        posted.lastContent = content
        posted.closingByUs = false
        var error: UnsafeMutablePointer<GError>?
        if notify_notification_show(notification, &error) != 0 {
            posted.postedTo = owner
            logger.debug(
                "Posted a notification", metadata: ["alarm": "\(posted.alarmID)", "role": "\(posted.role)", "owner": "\(owner ?? "none")"])
        } else {
            logger.debug(
                "A notification could not be posted",
                metadata: ["alarm": "\(posted.alarmID)", "role": "\(posted.role)", "error": "\(error.map { String(cString: $0.pointee.message) } ?? "?")"])
            // No server (or it failed): posted again when a server appears.
            if let error { g_error_free(error) }
            if owner == nil { activationFailedAt = .now }
            posted.postedTo = nil
            discard(posted)
        }
    }

    /// An image as the `(iiibiiay)` structure of `image-data`: a floating `GVariant` built from its
    /// fields (`g_variant_new_tuple`, the pixels copied by `g_variant_new_fixed_array`), which
    /// `notify_notification_set_hint` takes.
    static func variant(_ image: NotificationImage) -> OpaquePointer? {
        let byteType = g_variant_type_new("y")
        defer { g_variant_type_free(byteType) }
        let pixels = image.data.withUnsafeBytes { buffer in
            g_variant_new_fixed_array(byteType, buffer.baseAddress, gsize(buffer.count), 1)
        }
        let fields: [OpaquePointer?] = [
            g_variant_new_int32(image.width), g_variant_new_int32(image.height), g_variant_new_int32(image.rowstride),
            g_variant_new_boolean(image.hasAlpha ? 1 : 0), g_variant_new_int32(image.bitsPerSample),
            g_variant_new_int32(image.channels), pixels,
        ]
        return fields.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
    }

    /// Closes the notification (`notify_notification_close`) and lets it go.
    private func close(_ posted: Posted) {
        if let tick = posted.tick {
            thread?.cancel(tick)
            posted.tick = nil
        }
        if let notification = posted.notification, posted.postedTo != nil, posted.postedTo == owner {
            posted.closingByUs = true
            var error: UnsafeMutablePointer<GError>?
            if notify_notification_close(notification, &error) == 0, let error { g_error_free(error) }
        }
        discard(posted)
    }

    /// Lets the notification object go without telling the server (`g_signal_handler_disconnect`,
    /// `g_object_unref`: libnotify's finalizer disconnects it from its proxy).
    private func discard(_ posted: Posted) {
        guard let notification = posted.notification else { return }
        if posted.closedHandler != 0 { g_signal_handler_disconnect(notification, posted.closedHandler) }
        posted.closedHandler = 0
        posted.notification = nil
        posted.lastContent = nil
        g_object_unref(notification)
    }

    // MARK: Responses

    private func isCurrent(_ posted: Posted, _ notification: UnsafeMutablePointer<NotifyNotification>?) -> Bool {
        notification != nil && posted.notification == notification && posted.postedTo != nil && posted.postedTo == owner
    }

    func invoked(_ posted: Posted, key: String, notification: UnsafeMutablePointer<NotifyNotification>?) {
        guard isCurrent(posted, notification) else {
            logger.debug(
                "An action on a notification no longer current was ignored",
                metadata: ["alarm": "\(posted.alarmID)", "action": "\(key)", "postedTo": "\(posted.postedTo ?? "none")", "owner": "\(owner ?? "none")"])
            return
        }
        logger.debug("Action invoked", metadata: ["alarm": "\(posted.alarmID)", "action": "\(key)", "role": "\(posted.role)"])
        switch posted.role {
        case .alert:
            guard !posted.answered, alerts[posted.alarmID] === posted else {
                logger.debug("An action on an alert already answered or replaced was ignored", metadata: ["alarm": "\(posted.alarmID)", "action": "\(key)"])
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
                if let notification = posted.notification {
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
            if let notification = posted.notification {
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

/// One notification the presenter shows (an alert, a countdown, a missed-alarm note).
final class Posted {
    enum Role { case alert, countdown, missed }

    let alarmID: UUID
    var record: AlarmRecord
    let role: Role
    var notification: UnsafeMutablePointer<NotifyNotification>?
    var closedHandler: gulong = 0
    var lastContent: NotificationContent?
    /// The server's unique name it was posted to, or `nil` when it is not shown.
    var postedTo: String?
    var postedAt: ContinuousClock.Instant = .now
    /// An action was taken (or it was dismissed): its closes are ignored, it is not posted again.
    var answered = false
    /// We closed it: ignore the close that follows.
    var closingByUs = false
    // Countdown
    var countdownEnd: ContinuousClock.Instant?
    var pausedRemaining: TimeInterval?
    var duration: TimeInterval = 0
    var tick: UnsafeMutablePointer<GSource>?
    /// A person closed the countdown's bubble: not shown again until the next countdown effect.
    var hidden = false

    init(alarmID: UUID, record: AlarmRecord, role: Role) {
        self.alarmID = alarmID
        self.record = record
        self.role = role
    }
}

/// What a libnotify callback needs, carried through `user_data`.
private final class CallbackContext {
    weak var state: PresenterState?
    let posted: Posted
    let key: String
    init(state: PresenterState, posted: Posted, key: String) {
        self.state = state
        self.posted = posted
        self.key = key
    }
}

/// The state, weakly, for the bus watch's callbacks.
private final class WeakState {
    weak var state: PresenterState?
    init(_ state: PresenterState) { self.state = state }
}
