/// The value of a desktop's do-not-disturb setting, in the form the desktop keeps it: what the
/// journal saves before Reveille changes it and what it compares before putting it back.
package enum DoNotDisturbValue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A switch: dunst's `paused`, GNOME's `show-banners`, MATE's `do-not-disturb`, ...
    case flag(Bool)
    /// A level: dunst's `pauseLevel` (1.10+).
    case level(UInt32)
    /// A set of modes: mako's.
    case modes([String])
    /// A sound output's mixer (silent mode): its playback switch and raw volume.
    case output(unmuted: Bool, volume: Int)

    package var description: String {
        switch self {
        case .flag(let value): "\(value)"
        case .level(let value): "\(value)"
        case .modes(let modes): "[" + modes.joined(separator: ", ") + "]"
        case .output(let unmuted, let volume): "\(unmuted ? "on" : "muted"), volume \(volume)"
        }
    }
}

/// One reading of a desktop's do-not-disturb: the setting's value, what it means, and whether a
/// critical notification is shown while it is on.
package struct DoNotDisturbReading: Sendable, Hashable {
    /// The setting as the desktop keeps it.
    package var value: DoNotDisturbValue
    /// Whether do-not-disturb is on.
    package var isOn: Bool
    /// Whether an alert (a critical notification) is shown while do-not-disturb is on, now (GNOME:
    /// only while the screen is not locked; Plasma: per its `CriticalInDndMode`).
    package var criticalShown: Bool
    /// Why critical notifications are or are not shown, when it depends on something (the screen
    /// lock, a setting).
    package var detail: String?

    /// Creates a reading.
    package init(value: DoNotDisturbValue, isOn: Bool, criticalShown: Bool, detail: String? = nil) {
        self.value = value
        self.isOn = isOn
        self.criticalShown = criticalShown
        self.detail = detail
    }
}
