/// A notification from dunst's history (`dunstctl history`, the `NotificationListHistory` method):
/// notifications that were closed or expired, newest first.
public struct DunstNotification: Sendable, Hashable {
    /// The notification id.
    public let id: Int32
    /// `appname`: the sender's `app_name`.
    public let appName: String
    /// `summary`.
    public let summary: String
    /// `body`.
    public let body: String
    /// `message`: the text dunst showed, after its `format`.
    public let message: String
    /// `category`, from the `category` hint.
    public let category: String
    /// `urgency` (`LOW`, `NORMAL`, `CRITICAL`); dunst 1.9 does not report it, so `nil` there.
    public let urgency: String?
    /// `default_action_name`.
    public let defaultActionName: String
    /// `icon_path`.
    public let iconPath: String
    /// `timeout` in microseconds (0: never expires), as dunst applied it.
    public let timeout: Int64
    /// `timestamp`, dunst's monotonic time in microseconds when it arrived.
    public let timestamp: Int64
    /// Every field as dunst sent it.
    public let fields: [String: BusValue]

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
