import CLibNotify
import FoundationEssentials

/// The libnotify calls that post, update, close and let go of a notification.
extension PresenterState {
    /// Posts or updates `posted`'s notification with `content`: `notify_notification_new` (or
    /// `notify_notification_update` with cleared actions and hints), the hints, the actions, the
    /// `closed` handler, `notify_notification_show`.
    func show(_ posted: Posted, _ content: NotificationContent) {
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
        if !room() {
            logger.warning(
                "A notification was not posted: the agent has no file descriptor to spare",
                metadata: ["alarm": "\(posted.alarmID)", "role": "\(posted.role)"])
            posted.postedTo = nil
            discard(posted)
        } else if notify_notification_show(notification, &error) != 0 {
            posted.postedTo = owner
            logger.debug(
                "Posted a notification", metadata: ["alarm": "\(posted.alarmID)", "role": "\(posted.role)", "owner": "\(owner ?? "none")"])
        } else {
            logger.debug(
                "A notification could not be posted",
                metadata: [
                    "alarm": "\(posted.alarmID)", "role": "\(posted.role)",
                    "error": "\(error.map { String(cString: $0.pointee.message) } ?? "?")",
                ])
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
    func close(_ posted: Posted) {
        if let tick = posted.tick {
            thread?.cancel(tick)
            posted.tick = nil
        }
        if let notification = posted.notification, posted.postedTo != nil, posted.postedTo == owner, room() {
            posted.closingByUs = true
            var error: UnsafeMutablePointer<GError>?
            if notify_notification_close(notification, &error) == 0, let error { g_error_free(error) }
        }
        discard(posted)
    }

    /// Lets the notification object go without telling the server (`g_signal_handler_disconnect`,
    /// `g_object_unref`: libnotify's finalizer disconnects it from its proxy).
    func discard(_ posted: Posted) {
        guard let notification = posted.notification else { return }
        if posted.closedHandler != 0 { g_signal_handler_disconnect(notification, posted.closedHandler) }
        posted.closedHandler = 0
        posted.notification = nil
        posted.lastContent = nil
        g_object_unref(notification)
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
