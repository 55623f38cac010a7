internal import CGio
internal import AlarmModel
import FoundationEssentials

/// The person's desktop settings that Reveille follows: GNOME's (GSettings) and KDE Plasma's
/// (`kdeglobals`, `plasmalocalerc`).
///
/// A GNOME key is installed on most desktops, GNOME or not, with GNOME's default; it is taken
/// when the session is GNOME's (`XDG_CURRENT_DESKTOP`), or when someone set it, and otherwise left
/// alone. It is read when asked (dconf's own cache makes that cheap and always current), never
/// watched, and only where the person's dconf database exists: without it nothing was ever set,
/// and GIO without dconf would print a warning about its stand-in backend.
package enum DesktopSettings {
    /// A string key of GNOME's settings when it speaks for the person; `nil` when the schema or
    /// key is not installed, or the key was never set outside a GNOME session.
    package static func gnomeString(schema: String, key: String, environment: [String: String]) -> String? {
        guard FileManager.default.fileExists(atPath: dconfDatabase(environment: environment)),
            let source = g_settings_schema_source_get_default(),
            let found = g_settings_schema_source_lookup(source, schema, 1)
        else { return nil }
        defer { g_settings_schema_unref(found) }
        guard g_settings_schema_has_key(found, key) != 0, let settings = g_settings_new_full(found, nil, nil) else { return nil }
        defer { g_object_unref(settings) }
        if !isSession("GNOME", environment: environment) {
            guard let userValue = g_settings_get_user_value(settings, key) else { return nil }
            g_variant_unref(userValue)
        }
        guard let value = g_settings_get_string(settings, key) else { return nil }
        defer { g_free(value) }
        return String(cString: value)
    }

    /// The value of `key` in `[group]` of the person's `kdeglobals`
    /// (`$XDG_CONFIG_HOME/kdeglobals`), where Plasma keeps what the person chose; `nil` when it
    /// is not set (Plasma's own default applies then).
    package static func kdeGlobal(group: String, key: String, environment: [String: String]) -> String? {
        kdeConfig("kdeglobals", group: group, key: key, environment: environment)
    }

    /// The value of `key` in `[group]` of the KConfig file `file` in `$XDG_CONFIG_HOME`; `nil`
    /// when the file, the group or the key is not there, or the value is empty.
    static func kdeConfig(_ file: String, group: String, key: String, environment: [String: String]) -> String? {
        let path = configHome(environment: environment) + "/" + file
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        var inGroup = false
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingWhitespace(newlines: false)
            if line.hasPrefix("[") {
                inGroup = line == "[\(group)]"
            } else if inGroup, let equals = line.firstIndex(of: "=") {
                // `Theme[$e]=…` and other markers after the key name are KConfig's flags.
                let name = line[..<equals].trimmingWhitespace(newlines: false)
                guard name == key || name.hasPrefix(key + "[") else { continue }
                let value = line[line.index(after: equals)...].trimmingWhitespace(newlines: false)
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// The locale Plasma's "Region & Language" settings chose for times and dates: `LC_TIME`, else
    /// `LANG`, in `[Formats]` of `plasmalocalerc` (Plasma 6) or `plasma-localerc` (Plasma 5, which
    /// Plasma 6 renames at its first start). Plasma has no 12/24-hour key of its own: its clock
    /// follows this locale (KDE 4's `kdeglobals` `[Locale] TimeFormat` is read by nothing since).
    /// `nil` when the person chose none; a value that is not a locale name is left out.
    package static func plasmaTimeLocale(environment: [String: String]) -> String? {
        for file in ["plasmalocalerc", "plasma-localerc"] {
            for key in ["LC_TIME", "LANG"] {
                if let value = kdeConfig(file, group: "Formats", key: key, environment: environment),
                    !value.contains(where: \.isWhitespace)
                {
                    return value
                }
            }
        }
        return nil
    }

    /// Whether `XDG_CURRENT_DESKTOP` names this desktop (`GNOME`, `KDE`), in any case.
    package static func isSession(_ desktop: String, environment: [String: String]) -> Bool {
        (environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").contains { $0.lowercased() == desktop.lowercased() }
    }

    /// `$XDG_CONFIG_HOME`, or `~/.config`.
    static func configHome(environment: [String: String]) -> String {
        environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.config"
    }

    /// The person's dconf database: `$XDG_CONFIG_HOME/dconf/user` (`~/.config/dconf/user`).
    static func dconfDatabase(environment: [String: String]) -> String {
        configHome(environment: environment) + "/dconf/user"
    }
}

/// The desktop's sound theme, whose `alarm-clock-elapsed` an alarm without a sound of its own
/// rings: KDE Plasma's (`kdeglobals`, `[Sounds] Theme=`) in a Plasma session, GNOME's
/// (`org.gnome.desktop.sound theme-name`) where it speaks for the person (see
/// ``DesktopSettings``), Plasma's where it was set, otherwise `freedesktop`.
package enum DesktopSoundTheme {
    /// The theme every desktop falls back on.
    package static let fallback = "freedesktop"

    /// The theme's name for a person with this environment, now.
    package static func name(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let plasma = DesktopSettings.kdeGlobal(group: "Sounds", key: "Theme", environment: environment)
        if DesktopSettings.isSession("KDE", environment: environment), let plasma { return plasma }
        if let gnome = DesktopSettings.gnomeString(schema: "org.gnome.desktop.sound", key: "theme-name", environment: environment),
            !gnome.isEmpty
        {
            return gnome
        }
        return plasma ?? fallback
    }
}
