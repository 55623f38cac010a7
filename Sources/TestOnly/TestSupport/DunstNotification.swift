/// A notification from dunst's history (`dunstctl history`, the `NotificationListHistory` method):
/// notifications that were closed or expired, newest first.
package struct DunstNotification: Sendable, Hashable {
    /// The notification id.
    package let id: Int32
    /// `appname`: the sender's `app_name`.
    package let appName: String
    /// `summary`.
    package let summary: String
    /// `body`.
    package let body: String
    /// `message`: the text dunst showed, after its `format`.
    package let message: String
    /// `category`, from the `category` hint.
    package let category: String
    /// `urgency` (`LOW`, `NORMAL`, `CRITICAL`); dunst 1.9 does not report it, so `nil` there.
    package let urgency: String?
    /// `default_action_name`.
    package let defaultActionName: String
    /// `icon_path`.
    package let iconPath: String
    /// `timeout` in microseconds (0: never expires), as dunst applied it.
    package let timeout: Int64
    /// `timestamp`, dunst's monotonic time in microseconds when it arrived.
    package let timestamp: Int64
    /// Every field as dunst sent it.
    package let fields: [String: BusValue]

    /// Reads one entry of the history.
    init(fields: [String: BusValue]) {
        self.fields = fields
        func text(_ key: String) -> String { fields[key]?.string ?? "" }
        id = Int32(truncatingIfNeeded: fields["id"]?.integer ?? 0)
        appName = text("appname")
        summary = text("summary")
        body = text("body")
        message = text("message")
        category = text("category")
        urgency = fields["urgency"]?.string
        defaultActionName = text("default_action_name")
        iconPath = text("icon_path")
        timeout = fields["timeout"]?.integer ?? 0
        timestamp = fields["timestamp"]?.integer ?? 0
    }
}
