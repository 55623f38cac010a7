/// The icons of an alarm's buttons on the Linux desktop: the SF Symbols names AlarmKit apps give
/// `AlarmButton.systemImageName`, mapped to icon names that freedesktop icon themes ship.
///
/// | SF Symbols name (and its `.circle`, `.fill` forms) | icon name |
/// |---|---|
/// | `stop` | `media-playback-stop` |
/// | `pause` | `media-playback-pause` |
/// | `play` | `media-playback-start` |
/// | `repeat`, `repeat.1` | `media-playlist-repeat` |
/// | `arrow.clockwise` | `view-refresh` |
/// | `arrow.right`, `arrow.forward`, `chevron.right` | `go-next` |
/// | `zzz`, `moon.zzz` (snooze: it rings again soon), `clock`, `timer`, `stopwatch`, `hourglass` | `appointment-soon` |
/// | `alarm`, `alarm.waves.left.and.right` | `alarm-symbolic` |
/// | `bell`, `bell.badge` | `preferences-system-notifications` |
/// | `xmark` | `window-close` |
/// | `checkmark` | `object-select-symbolic` |
///
/// Sources: the SF Symbols names are those of the buttons in Reveille's model (`AlarmButton`'s
/// `stopButton` `stop.circle`, `snoozeButton` `zzz`, `repeatButton` `repeat.circle`,
/// `openAppButton` `arrow.right.circle.fill`, `pauseButton` `pause.fill`, `resumeButton`
/// `play.fill`, the same as in Apple's AlarmKit sample app), and the SF Symbols an alarm's or a
/// timer's controls are commonly drawn with (the stop, pause, play, repeat and refresh arrows,
/// alarm clock, timer, clock, bell, close and check marks). The icon names are from the
/// freedesktop Icon Naming Specification (`media-playback-*`, `media-playlist-repeat`,
/// `view-refresh`, `go-next`, `appointment-soon`, `window-close`) where it has one, and otherwise
/// names GNOME's Adwaita theme ships; each is spelled as Adwaita 43 has it installed
/// (`/usr/share/icons/Adwaita`: the specification's names among its full-colour icons,
/// `alarm-symbolic` and `object-select-symbolic` only as symbolic icons); themes that follow the
/// specification, such as KDE's Breeze, ship its names as well.
/// A test checks every name against the installed Adwaita theme.
///
/// A name not in the table falls back: `iconName(forSymbol:)` is `nil` and the notification keeps
/// Reveille's own icon. A trailing `.fill`, `.circle` or `.square` is dropped before that
/// (`stop.circle.fill` is `stop`), and an icon name of the table given as is (an app written for
/// Linux may name `media-playback-stop`) is kept.
package enum SymbolIcons {
    /// SF Symbols name → icon name.
    package static let table: [String: String] = [
        "stop": "media-playback-stop",
        "stop.fill": "media-playback-stop",
        "stop.circle": "media-playback-stop",
        "stop.circle.fill": "media-playback-stop",
        "pause": "media-playback-pause",
        "pause.fill": "media-playback-pause",
        "pause.circle": "media-playback-pause",
        "pause.circle.fill": "media-playback-pause",
        "play": "media-playback-start",
        "play.fill": "media-playback-start",
        "play.circle": "media-playback-start",
        "play.circle.fill": "media-playback-start",
        "repeat": "media-playlist-repeat",
        "repeat.circle": "media-playlist-repeat",
        "repeat.circle.fill": "media-playlist-repeat",
        "repeat.1": "media-playlist-repeat",
        "arrow.clockwise": "view-refresh",
        "arrow.clockwise.circle": "view-refresh",
        "arrow.clockwise.circle.fill": "view-refresh",
        "arrow.right": "go-next",
        "arrow.right.circle": "go-next",
        "arrow.right.circle.fill": "go-next",
        "arrow.forward": "go-next",
        "chevron.right": "go-next",
        "zzz": "appointment-soon",
        "moon.zzz": "appointment-soon",
        "moon.zzz.fill": "appointment-soon",
        "clock": "appointment-soon",
        "clock.fill": "appointment-soon",
        "timer": "appointment-soon",
        "timer.circle": "appointment-soon",
        "stopwatch": "appointment-soon",
        "hourglass": "appointment-soon",
        "alarm": "alarm-symbolic",
        "alarm.fill": "alarm-symbolic",
        "alarm.waves.left.and.right": "alarm-symbolic",
        "bell": "preferences-system-notifications",
        "bell.fill": "preferences-system-notifications",
        "bell.badge": "preferences-system-notifications",
        "xmark": "window-close",
        "xmark.circle": "window-close",
        "xmark.circle.fill": "window-close",
        "checkmark": "object-select-symbolic",
        "checkmark.circle": "object-select-symbolic",
        "checkmark.circle.fill": "object-select-symbolic",
    ]

    /// The icon names of the table.
    static let iconNames = Set(table.values)

    /// Modifiers that change a symbol's look but not its meaning (`.slash` does change it).
    static let modifiers: Set<Substring> = ["fill", "circle", "square"]

    /// The icon name for an SF Symbols name, or `nil` when there is none (the caller keeps
    /// Reveille's own icon).
    package static func iconName(forSymbol symbol: String) -> String? {
        if iconNames.contains(symbol) { return symbol }
        var parts = symbol.split(separator: ".", omittingEmptySubsequences: false)
        while !parts.isEmpty {
            if let name = table[parts.joined(separator: ".")] { return name }
            guard let last = parts.last, modifiers.contains(last), parts.count > 1 else { return nil }
            parts.removeLast()
        }
        return nil
    }
}
