/// The desktop's do-not-disturb as the agent sees it now, and how an alarm gets through it: what
/// `reveille status` shows on its `dnd` line and the manager's `DoNotDisturb` property carries.
package struct DoNotDisturbStatus: Sendable, Hashable {
    /// Whether do-not-disturb is on.
    package enum State: String, Sendable, Hashable {
        /// Do-not-disturb is on (also while Reveille has lifted it for a ringing alert).
        case on
        /// Do-not-disturb is off.
        case off
        /// Not known: no server, one whose do-not-disturb is not read, or a read that failed.
        case unknown
    }

    /// How an alarm that breaks through (the default) gets through right now.
    package enum Way: String, Sendable, Hashable {
        /// Do-not-disturb is off: shown as usual.
        case notNeeded = "not-needed"
        /// Shown as a critical notification, which this desktop shows during do-not-disturb.
        case shownAsCritical = "shown-as-critical"
        /// Do-not-disturb is lifted while the alert rings, and put back after.
        case liftedWhileRinging = "lifted-while-ringing"
        /// The desktop hides it and the setting cannot be changed from here: only the sound gets through.
        case soundOnly = "sound-only"
        /// Not known (no server, or one whose do-not-disturb is not read): sent as critical.
        case unknown
    }

    /// How an alarm without breakthrough fares while do-not-disturb is on.
    package enum HeldSound: String, Sendable, Hashable, CaseIterable {
        /// Rings at a low fixed volume while its notification waits.
        case quiet
        /// Does not ring until do-not-disturb ends.
        case silent
    }

    /// The notification server, such as `dunst 1.9.0`, or `none`.
    package var server: String
    /// The desktop whose do-not-disturb applies, when known.
    package var desktop: NotificationDesktop?
    /// The setting watched, such as `dunst paused`.
    package var setting: String?
    /// On, off, or unknown.
    package var state: State
    /// How a breaking-through alarm gets through now.
    package var way: Way
    /// Whether Reveille has lifted do-not-disturb right now (an alert rings).
    package var lifted: Bool
    /// How many alerts (without breakthrough) wait for do-not-disturb to end.
    package var held: Int
    /// What alarms without breakthrough do while do-not-disturb is on.
    package var heldSound: HeldSound
    /// Why, when it depends on something (a locked screen, a desktop setting, a read that failed).
    package var detail: String?

    /// Creates a status.
    package init(
        server: String, desktop: NotificationDesktop?, setting: String?, state: State, way: Way, lifted: Bool = false,
        held: Int = 0, heldSound: HeldSound = .quiet, detail: String? = nil
    ) {
        self.server = server
        self.desktop = desktop
        self.setting = setting
        self.state = state
        self.way = way
        self.lifted = lifted
        self.held = held
        self.heldSound = heldSound
        self.detail = detail
    }

    /// Before the server is looked at.
    package static let starting = DoNotDisturbStatus(
        server: "not looked up yet", desktop: nil, setting: nil, state: .unknown, way: .unknown)

    /// The line `reveille status` prints, such as
    /// `on (dunst paused): alarms lift it while they ring and put it back after`.
    package var sentence: String {
        var text: String
        switch state {
        case .on: text = "on"
        case .off: text = "off"
        case .unknown: text = "unknown"
        }
        if let setting {
            text += " (\(setting))"
        } else if desktop == nil {
            text += " (\(server == "none" ? "no notification server" : server))"
        }
        if lifted { text += ", lifted while an alarm rings" }
        switch way {
        case .notNeeded:
            text += ": alarms are shown as usual"
        case .shownAsCritical:
            text +=
                ": alarms get through as critical notifications, which \(desktop?.displayName ?? "the server") shows during do-not-disturb"
        case .liftedWhileRinging:
            text += ": alarms lift it while they ring and put it back after"
        case .soundOnly:
            text += ": \(desktop?.displayName ?? "the server") hides alarms and cannot be changed from here; only their sound gets through"
        case .unknown:
            text += ": alarms are sent as critical notifications"
        }
        if let detail { text += " (\(detail))" }
        if state == .on {
            text +=
                heldSound == .quiet
                ? "; alarms without breakthrough wait and ring quietly" : "; alarms without breakthrough wait in silence"
        }
        if held > 0 { text += "; \(held) waiting" }
        return text
    }
}
