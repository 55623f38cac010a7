import AlarmModel
import AlarmPresentation
import AlarmRecords
import CLibNotify
import FoundationEssentials
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
    /// Gets ready what the changed alarms will show (their images), ahead of their alerts.
    /// Called on the engine after each stored change: it must return at once.
    func prepare(_ changes: [AlarmChange])
}

extension AlarmNotifying {
    /// Nothing to get ready.
    package func prepare(_ changes: [AlarmChange]) {}
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
    ///   - timeZone: the zone alert times are shown in; by default the clock's, when each is shown.
    ///   - snoozeChoices: the snooze lengths offered on a ringing alarm's notification, where the
    ///     server shows them; none by default (Stop and Snooze only).
    ///   - logger: where dropped answers are noted.
    ///   - room: asked, on the presenter's thread, before each call that waits for the server
    ///     (`notify_notification_show`, `_close`, the server's name and capabilities), whether
    ///     the process can make a new descriptor: such a call makes a GLib main context, whose
    ///     wake-up is a descriptor, and GLib aborts the process when it cannot make one. When it
    ///     answers false the call is left out (the alert goes on ringing). Always true by default.
    ///   - onAction: receives responses, on the presenter's thread.
    package init(
        clock: @escaping @Sendable () -> ClockReading,
        suppressionWindow: Duration = .seconds(1),
        timeZone: ZoneRules? = nil,
        snoozeChoices: SnoozeChoices = .none,
        logger: Logger = Logger(label: "reveille.notifications"),
        room: @escaping @Sendable () -> Bool = { true },
        onAction: @escaping ActionHandler
    ) {
        let state = PresenterState(
            clock: clock, suppressionWindow: suppressionWindow, timeZone: timeZone, snoozeChoices: snoozeChoices,
            logger: logger, room: room, onAction: onAction)
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

    /// Draws the changed alarms' tint images ahead of their alerts (`TintImageCache`), off this
    /// presenter's thread.
    package func prepare(_ changes: [AlarmChange]) {
        state.tintImages.prepare(changes)
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
