import FoundationEssentials

/// Whether, and how, the agent starts at the person's next login: read from the files that decide
/// it, the way systemd and the session find them, so `reveille status` can say it without the
/// agent running.
///
/// In order: the systemd user unit enabled (an enablement link to `reveilled.service` in a
/// `default.target.wants` folder of systemd's user configuration paths, made by
/// `systemctl --user enable` or `--global enable`); the XDG autostart entry (which sessions run by
/// systemd skip, `X-systemd-skip`, since the unit does it there); D-Bus activation alone, which
/// starts the agent only when something calls it.
struct LoginStart: Equatable {
    /// How the agent is started.
    enum Route: String, Equatable {
        /// `reveilled.service` is enabled: systemd starts it with the user manager at login.
        case systemdUnit = "systemd-unit"
        /// An XDG autostart entry: the session starts it (sessions without systemd).
        case autostartEntry = "autostart-entry"
        /// Only D-Bus activation: started by the first call, not at login.
        case activationOnly = "dbus-activation"
        /// Nothing is installed for this user.
        case notInstalled = "not-installed"
    }

    /// The first route that starts the agent at login, or why none does.
    var route: Route
    /// The file that shows it (the enablement link, the entry, the activation file).
    var file: String?
    /// Whether an autostart entry is there too (for sessions without systemd).
    var hasAutostartEntry: Bool

    /// The unit's and the entry's names.
    static let unitName = "reveilled.service"
    static let autostartName = "io.github.reveille.Reveilled.desktop"
    static let activationName = "io.github.reveille.Alarms1.service"

    /// Whether the agent starts at login.
    var startsAtLogin: Bool { route == .systemdUnit || route == .autostartEntry }

    /// One sentence for `reveille status`, with what to run when the agent will not start.
    var sentence: String {
        let enable = "systemctl --user enable \(Self.unitName)"
        switch route {
        case .systemdUnit:
            return "yes, by systemd (\(Self.unitName) is enabled: \(file ?? ""))"
                + (hasAutostartEntry ? "; sessions without systemd start it from the autostart entry" : "")
        case .autostartEntry:
            return "yes, from the autostart entry (\(file ?? "")), in sessions without systemd; where systemd runs the "
                + "session it skips the entry: run \(enable)"
        case .activationOnly:
            return "no: only when something calls it (D-Bus activation, \(file ?? "")), so alarms set before a reboot "
                + "wait for that; run \(enable)"
        case .notInstalled:
            return "no: the agent is not installed for this user (scripts/install, or the reveille package)"
        }
    }

    /// Reads the files; `environment` gives `HOME` and the `XDG_*` folders.
    static func find(environment: [String: String] = ProcessInfo.processInfo.environment) -> LoginStart {
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        func folder(_ variable: String, default fallback: String) -> String {
            environment[variable].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? fallback
        }
        func folders(_ variable: String, default fallback: String) -> [String] {
            let value = environment[variable].flatMap { $0.isEmpty ? nil : $0 } ?? fallback
            return value.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        }
        let configHome = folder("XDG_CONFIG_HOME", default: home + "/.config")
        let dataHome = folder("XDG_DATA_HOME", default: home + "/.local/share")
        let configDirs = folders("XDG_CONFIG_DIRS", default: "/etc/xdg")
        let dataDirs = folders("XDG_DATA_DIRS", default: "/usr/local/share:/usr/share")
        let files = FileManager.default

        // systemd's user configuration paths, where enablement links live (systemd.unit(5)).
        let configPaths = [configHome + "/systemd/user"] + configDirs.map { $0 + "/systemd/user" } + ["/etc/systemd/user"]
        let enabled = configPaths.lazy.flatMap { path in
            ["default.target.wants", "graphical-session.target.wants"].map { "\(path)/\($0)/\(unitName)" }
        }.first { link in
            // An enablement link whose unit is gone enables nothing.
            (try? files.destinationOfSymbolicLink(atPath: link)) != nil && files.fileExists(atPath: link)
        }

        // The autostart entry: the first folder that has it decides (a user's copy with
        // Hidden=true turns the system's off).
        let autostart = ([configHome] + configDirs).lazy.map { "\($0)/autostart/\(autostartName)" }
            .first { files.fileExists(atPath: $0) }
        let entryStarts =
            autostart.map { path in
                let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
                return !text.split(whereSeparator: \.isNewline).contains { line in
                    let trimmed = line.filter { $0 != " " }
                    return trimmed == "Hidden=true" || trimmed == "X-GNOME-Autostart-enabled=false"
                }
            } ?? false

        let activation = ([dataHome] + dataDirs).lazy.map { "\($0)/dbus-1/services/\(activationName)" }
            .first { files.fileExists(atPath: $0) }

        if let enabled {
            return LoginStart(route: .systemdUnit, file: enabled, hasAutostartEntry: entryStarts)
        }
        if entryStarts, let autostart {
            return LoginStart(route: .autostartEntry, file: autostart, hasAutostartEntry: true)
        }
        if let activation {
            return LoginStart(route: .activationOnly, file: activation, hasAutostartEntry: false)
        }
        return LoginStart(route: .notInstalled, file: nil, hasAutostartEntry: false)
    }
}
