import FoundationEssentials
import AlarmModel

/// Who is calling the agent, worked out from what the bus and the kernel say, never from what the
/// caller says about itself.
///
/// The bus's `GetConnectionCredentials` gives the caller's user id and its process: as a pidfd
/// (`ProcessFD`, dbus 1.15.2 and later), which cannot come to name another process while it is read
/// about, or else as an id (`ProcessID`). Then, in order:
/// its Flatpak app id (`/proc/PID/root/.flatpak-info`), its systemd app scope or service
/// (`/proc/PID/cgroup`, `app-…-<id>-….scope` / `app-…-<id>@….service`), or its executable
/// (`/proc/PID/exe`).
package struct CallerIdentity: Hashable, Sendable {
    /// How the app was identified.
    package enum Source: String, Hashable, Sendable {
        /// A Flatpak app id.
        case flatpak
        /// A systemd user app scope or service.
        case systemdScope
        /// An executable's path.
        case executable
    }

    /// The app's identity: a Flatpak or desktop app id, or an executable path.
    package var appID: String
    /// How it was found.
    package var source: Source
    /// The caller's process id, when the bus gave one.
    package var processID: UInt32?
    /// The caller's user id, when the bus gave one.
    package var userID: UInt32?
    /// The caller's executable, when it could be read.
    package var executable: String?
    /// How the process was pinned down while it was read about.
    package var reference: ProcessReference

    /// How the bus named the caller's process.
    package enum ProcessReference: String, Hashable, Sendable {
        /// A pidfd (`ProcessFD`): what was read is known to be the caller's.
        case processFD
        /// A process id (`ProcessID`), from a bus that gives no pidfd: the id could, in principle,
        /// have been taken by another process between the call and the read.
        case processID
    }

    /// Creates an identity.
    package init(
        appID: String, source: Source, processID: UInt32?, userID: UInt32?, executable: String?,
        reference: ProcessReference = .processID
    ) {
        self.appID = appID
        self.source = source
        self.processID = processID
        self.userID = userID
        self.executable = executable
        self.reference = reference
    }
}

/// Reads `/proc` to identify a process. `procRoot` is `/proc`, or a test folder shaped like it.
package struct ProcessIdentifier: Sendable {
    /// The root of the process file system.
    package var procRoot: String

    /// Creates an identifier over `/proc` (or a folder shaped like it).
    package init(procRoot: String = "/proc") {
        self.procRoot = procRoot
    }

    /// Identifies a process by its id, with the user id the bus reported.
    package func identify(processID: UInt32, userID: UInt32?) -> CallerIdentity? {
        let base = "\(procRoot)/\(processID)"
        let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: base + "/exe")
        if let info = try? String(contentsOfFile: base + "/root/.flatpak-info", encoding: .utf8),
            let name = Self.flatpakAppID(info)
        {
            return CallerIdentity(appID: name, source: .flatpak, processID: processID, userID: userID, executable: executable)
        }
        if let cgroup = try? String(contentsOfFile: base + "/cgroup", encoding: .utf8), let name = Self.systemdAppID(cgroup) {
            return CallerIdentity(appID: name, source: .systemdScope, processID: processID, userID: userID, executable: executable)
        }
        guard let executable else { return nil }
        return CallerIdentity(
            appID: Self.withoutDeletedSuffix(executable), source: .executable, processID: processID, userID: userID,
            executable: executable)
    }

    /// Identifies the process a pidfd refers to, with the user id the bus reported: its id from
    /// the pidfd, then `/proc` as `identify(processID:userID:)` reads it, and nil unless the
    /// process still runs after that read (so what was read was its own, not that of a later
    /// process given the same id).
    func identify(process: ProcessHandle, userID: UInt32?) -> CallerIdentity? {
        guard let processID = process.processID, var identity = identify(processID: processID, userID: userID),
            process.isRunning
        else { return nil }
        identity.reference = .processFD
        return identity
    }

    /// The `name=` of the `[Application]` group of a `.flatpak-info` file.
    static func flatpakAppID(_ info: String) -> String? {
        var inApplication = false
        for line in info.split(whereSeparator: \.isNewline).map({ $0.trimmingWhitespace(newlines: false) }) {
            if line.hasPrefix("[") { inApplication = line == "[Application]"; continue }
            if inApplication, line.hasPrefix("name=") {
                let name = String(line.dropFirst("name=".count))
                return name.isEmpty ? nil : name
            }
        }
        return nil
    }

    /// The app id in a systemd user unit name on the process's cgroup path, following the
    /// desktop-environment convention `app[-<launcher>]-<app id>[-<random>].scope` or
    /// `app[-<launcher>]-<app id>[@<random>].service`.
    static func systemdAppID(_ cgroup: String) -> String? {
        // cgroup v2: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Clocks-1234.scope"
        guard let line = cgroup.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("0::") }) else { return nil }
        guard let unit = line.split(separator: "/").last.map(String.init), unit.hasPrefix("app-") else { return nil }
        var name: Substring
        if unit.hasSuffix(".scope") {
            name = unit.dropFirst("app-".count).dropLast(".scope".count)
            // A scope ends in a random or numeric part after the last dash.
            if let dash = name.lastIndex(of: "-") { name = name[..<dash] }
        } else if unit.hasSuffix(".service") {
            name = unit.dropFirst("app-".count).dropLast(".service".count)
            if let at = name.firstIndex(of: "@") { name = name[..<at] }
        } else {
            return nil
        }
        // An optional launcher prefix ("gnome-", "flatpak-", "KDE-") comes before an id with dots.
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        if let index = parts.firstIndex(where: { $0.contains(".") }) {
            let id = parts[index...].joined(separator: "-")
            return Self.unescapeSystemd(id)
        }
        return nil
    }

    /// Undoes systemd's `\xNN` escaping in unit names.
    static func unescapeSystemd(_ text: String) -> String {
        guard text.contains("\\x") else { return text }
        var bytes: [UInt8] = []
        var scalars = Array(text.utf8)[...]
        while let byte = scalars.first {
            if byte == UInt8(ascii: "\\"), scalars.count >= 4, scalars.dropFirst().first == UInt8(ascii: "x"),
                let value = UInt8(String(decoding: scalars.dropFirst(2).prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                scalars = scalars.dropFirst(4)
            } else {
                bytes.append(byte)
                scalars = scalars.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An executable path without the ` (deleted)` the kernel adds when the file was replaced.
    static func withoutDeletedSuffix(_ path: String) -> String {
        path.hasSuffix(" (deleted)") ? String(path.dropLast(" (deleted)".count)) : path
    }
}
