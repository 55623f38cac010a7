package import AlarmModel
import FoundationEssentials

/// The person's `TimeStyle`: day and month names from the `LC_TIME` locale, the 12- or 24-hour
/// clock from GNOME's `clock-format` where it speaks for the person, otherwise from that locale.
///
/// In a Plasma session (`XDG_CURRENT_DESKTOP` names KDE) the locale Plasma's "Region & Language"
/// chose for times (``DesktopSettings/plasmaTimeLocale(environment:)``) stands in for `LC_TIME`,
/// and decides the clock as it does Plasma's own: Plasma writes it at once, but exports it to the
/// session's environment only at the next login. `LC_ALL` still overrides it, as it does Plasma's.
/// Both are read at each use, so a change shows on the next notification or command.
///
/// GNOME's key (`org.gnome.desktop.interface clock-format`) is installed on most desktops, GNOME
/// or not, and defaults to `24h`; it is taken when the session is GNOME's (`XDG_CURRENT_DESKTOP`),
/// whose top bar follows it, or when someone set it (see ``DesktopSettings``), and otherwise left
/// to the locale, so that a US English KDE session reads `7:30 AM`.
package enum DesktopTimeStyle {
    /// GNOME's schema and key.
    static let schema = "org.gnome.desktop.interface"
    static let key = "clock-format"

    /// The style for a person with this environment, now.
    package static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> TimeStyle {
        if DesktopSettings.isSession("KDE", environment: environment),
            let plasma = DesktopSettings.plasmaTimeLocale(environment: environment)
        {
            var environment = environment
            environment["LC_TIME"] = plasma
            return TimeStyle.resolve(environment: environment, gnomeClockFormat: nil)
        }
        return TimeStyle.resolve(environment: environment, gnomeClockFormat: gnomeClockFormat(environment: environment))
    }

    /// GNOME's `clock-format` (`12h` or `24h`) when it speaks for the person; `nil` when the schema
    /// is not installed, or the key was never set outside a GNOME session.
    static func gnomeClockFormat(environment: [String: String]) -> String? {
        DesktopSettings.gnomeString(schema: schema, key: key, environment: environment)
    }
}
