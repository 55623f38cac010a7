package import AlarmModel
internal import CGio
import FoundationEssentials

/// The person's `TimeStyle`: day and month names from the `LC_TIME` locale, the 12- or 24-hour
/// clock from GNOME's `clock-format` where it speaks for the person, otherwise from that locale.
///
/// GNOME's key (`org.gnome.desktop.interface clock-format`) is installed on most desktops, GNOME
/// or not, and defaults to `24h`; it is taken when the session is GNOME's (`XDG_CURRENT_DESKTOP`),
/// whose top bar follows it, or when someone set it, and otherwise left to the locale, so that a
/// US English KDE session reads `7:30 AM`. It is read when asked (dconf's own cache makes that
/// cheap and always current), never watched, and only where the person's dconf database exists:
/// without it nothing was ever set, and GIO without dconf would print a warning about its
/// stand-in backend.
package enum DesktopTimeStyle {
    /// GNOME's schema and key.
    static let schema = "org.gnome.desktop.interface"
    static let key = "clock-format"

    /// The style for a person with this environment, now.
    package static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> TimeStyle {
        TimeStyle.resolve(environment: environment, gnomeClockFormat: gnomeClockFormat(environment: environment))
    }

    /// GNOME's `clock-format` (`12h` or `24h`) when it speaks for the person; `nil` when the schema
    /// is not installed, or the key was never set outside a GNOME session.
    static func gnomeClockFormat(environment: [String: String]) -> String? {
        guard FileManager.default.fileExists(atPath: dconfDatabase(environment: environment)),
              let source = g_settings_schema_source_get_default(),
              let found = g_settings_schema_source_lookup(source, schema, 1)
        else { return nil }
        defer { g_settings_schema_unref(found) }
        guard g_settings_schema_has_key(found, key) != 0, let settings = g_settings_new_full(found, nil, nil) else { return nil }
        defer { g_object_unref(settings) }
        let desktops = (environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":")
        let inGNOME = desktops.contains { $0.lowercased() == "gnome" }
        if !inGNOME {
            guard let userValue = g_settings_get_user_value(settings, key) else { return nil }
            g_variant_unref(userValue)
        }
        guard let value = g_settings_get_string(settings, key) else { return nil }
        defer { g_free(value) }
        return String(cString: value)
    }

    /// The person's dconf database: `$XDG_CONFIG_HOME/dconf/user` (`~/.config/dconf/user`).
    static func dconfDatabase(environment: [String: String]) -> String {
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.config"
        return configHome + "/dconf/user"
    }
}
