import Foundation

/// Which programs a sandbox needs, and what of this process's environment it passes on.
extension DesktopSandbox {
    /// Programs every sandbox needs.
    static let corePrograms = ["dbus-daemon", "Xvfb", "sh"]
    /// Programs the notification server and its helpers need.
    static let notificationPrograms = ["dunst", "dunstctl", "dbus-send", "awk"]

    /// `nil` when every program a sandbox uses is installed (bus, X server, dunst and its tools,
    /// `pv` for paced capture); otherwise a message naming the missing ones, for skipping tests.
    package static func availability() -> String? {
        availability(also: [])
    }

    /// Like `availability()`, also checking `programs` a test runs itself (such as `notify-send`).
    package static func availability(also programs: [String]) -> String? {
        let missing = (corePrograms + notificationPrograms + ["pv"] + programs).filter { Executables.find($0) == nil }
        return missing.isEmpty ? nil : SandboxError.missing(missing).description
    }

    /// Whether `availability()` finds everything.
    package static var isAvailable: Bool { availability() == nil }

    /// The variables passed on from this process: the program search path and the locale (and a
    /// few that only tooling reads). Everything else is the sandbox's own.
    static func baseEnvironment(from parent: [String: String]) -> [String: String] {
        var environment: [String: String] = [:]
        let passed = [
            "PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_TIME", "TZ", "USER", "LOGNAME",
            "TERM", "LLVM_PROFILE_FILE", "SWIFT_BACKTRACE",
        ]
        for key in passed { if let value = parent[key] { environment[key] = value } }
        if environment["PATH"] == nil { environment["PATH"] = "/usr/local/bin:/usr/bin:/bin" }
        if environment["LANG"] == nil { environment["LANG"] = "C.UTF-8" }
        environment["XDG_DATA_DIRS"] = "/usr/local/share:/usr/share"
        environment["XDG_CONFIG_DIRS"] = "/etc/xdg"
        // No accessibility bus: it would be looked for on the real session.
        environment["NO_AT_BRIDGE"] = "1"
        return environment
    }
}
