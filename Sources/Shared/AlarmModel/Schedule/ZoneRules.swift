import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A time zone: its name, and its offset rules (when its clocks change, and by how much).
///
/// Read from the system's time-zone database (the TZif file `$TZDIR/<identifier>`, or under
/// `/usr/share/zoneinfo`), as the C library reads it for `date` and the rest of the desktop, so a
/// tzdata update (a country ending daylight saving time, say) reaches alarms when the system gets
/// it. A zone the database does not have can be given as a POSIX rule, as in `TZ=JST-9`.
public struct ZoneRules: Hashable, Sendable {
    /// The zone's identifier, such as `Europe/Berlin` (or the POSIX rule, or the file, it was read from).
    public let identifier: String
    /// Where the rules come from.
    public let origin: Origin
    private let rules: Rules

    /// Where a zone's rules come from.
    public enum Origin: Hashable, Sendable {
        /// A TZif file of the system's database (or the system's `localtime` file itself).
        case systemDatabase(path: String)
        /// A POSIX rule (`TZ=JST-9`, `TZ=CET-1CEST,M3.5.0,M10.5.0/3`), which never changes.
        case posixRule
    }

    private enum Rules: Hashable, Sendable {
        case tzif(TZifRules)
        case posix(PosixZoneRule)
    }

    /// Coordinated Universal Time: no offset, ever.
    public static let utc = ZoneRules(identifier: "UTC", origin: .posixRule, rules: .posix(PosixZoneRule("UTC0")!))

    /// The zone named `identifier` in the system's database (`Europe/Berlin`); `nil` when the
    /// database has no readable TZif file by that name. Reading is cached, and the cache is checked
    /// against the file's identity and modification time, so a file replaced by a tzdata update is
    /// read again.
    public init?(named identifier: String) {
        guard let path = Self.databasePath(for: identifier), let rules = Self.cache.rules(identifier: identifier, path: path) else {
            return nil
        }
        self = rules
    }

    /// Rules read from TZif bytes; `nil` when they cannot be read.
    public init?(identifier: String, tzifBytes bytes: [UInt8], path: String = "") {
        guard let rules = try? TZifRules(bytes: bytes) else { return nil }
        self.init(identifier: identifier, origin: .systemDatabase(path: path), rules: .tzif(rules))
    }

    /// Rules from a POSIX `TZ` rule (`JST-9`, `<+0530>-5:30`, `CET-1CEST,M3.5.0,M10.5.0/3`): the
    /// offset east of UTC is the rule's negated, as POSIX has it. `nil` when the text is not such
    /// a rule.
    public init?(posixRule text: String) {
        guard let rule = PosixZoneRule(text) else { return nil }
        self.init(identifier: text, origin: .posixRule, rules: .posix(rule))
    }

    private init(identifier: String, origin: Origin, rules: Rules) {
        self.identifier = identifier
        self.origin = origin
        self.rules = rules
    }

    /// Seconds east of UTC in force at an instant given in seconds since 1970 UTC.
    public func secondsFromGMT(at instant: Int64) -> Int64 {
        switch rules {
        case .tzif(let tzif): tzif.offset(at: instant)
        case .posix(let rule): rule.offset(at: instant)
        }
    }

    /// Seconds east of UTC in force at an instant.
    public func secondsFromGMT(for date: Date) -> Int64 {
        secondsFromGMT(at: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    /// The first instant (seconds since 1970 UTC) strictly after `instant` at which the offset
    /// changes, or `nil` when it never changes again.
    public func nextChange(after instant: Int64) -> Int64? {
        switch rules {
        case .tzif(let tzif): tzif.nextChange(after: instant)
        case .posix(let rule): rule.nextChange(after: instant)
        }
    }

    /// The local time of day of an instant in this zone: hour (0-23) and minute.
    public func clockTime(of date: Date) -> (hour: Int, minute: Int) {
        let local = Int64(date.timeIntervalSince1970.rounded(.down)) + secondsFromGMT(for: date)
        let second = local.floorModulo(86_400)
        return (Int(second / 3_600), Int(second % 3_600 / 60))
    }

    // MARK: The system's zone

    /// The file naming the system time zone: `/etc/localtime`.
    public static let defaultLocalTimePath = "/etc/localtime"

    /// The zone this machine's clocks show now, as the C library finds it: `current(localTimePath:tz:)`,
    /// else UTC.
    public static var current: ZoneRules {
        current(localTimePath: defaultLocalTimePath, tz: environmentTZ) ?? .utc
    }

    /// `TZ` from the environment (`getenv(3)`: ProcessInfo's environment copies all of it on each read).
    public static var environmentTZ: String? {
        getenv("TZ").map { String(cString: $0) }
    }

    /// The system's time zone: `TZ` when it names a zone of the database (`Europe/Paris`,
    /// `:Europe/Paris`) or is a POSIX rule (`JST-9`); else the zone `localTimePath` links to
    /// (following a chain of links until one names a file under a `zoneinfo/` folder); else, when
    /// it is a copy of a zone file, that file's rules, named by the `timezone` file beside it
    /// (Debian's `/etc/timezone`) where there is one. `nil` when none of them gives a zone, or
    /// `localTimePath` is missing (a link being replaced).
    public static func current(localTimePath: String, tz: String?) -> ZoneRules? {
        if let tz, !tz.isEmpty {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if let zone = ZoneRules(named: name) ?? ZoneRules(posixRule: name) { return zone }
        }
        var path = localTimePath
        var linkedName: String?
        for _ in 0..<8 {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) else { break }
            if let range = target.ranges(of: "zoneinfo/").last {
                var name = String(target[range.upperBound...])
                // zoneinfo/posix/Europe/Berlin and zoneinfo/right/… name the same zones.
                for prefix in ["posix/", "right/"] where name.hasPrefix(prefix) { name.removeFirst(prefix.count) }
                if let zone = ZoneRules(named: name) { return zone }
                linkedName = name
                break
            }
            path = target.hasPrefix("/") ? target : (URL(fileURLWithPath: path).deletingLastPathComponent().path + "/" + target)
        }
        guard let bytes = FileManager.default.contents(atPath: localTimePath) else { return nil }
        // A copy of a zone file rather than a link: the name is in the `timezone` file beside it.
        let timezoneFile = URL(fileURLWithPath: localTimePath).deletingLastPathComponent().appendingPathComponent("timezone").path
        let writtenName = (try? String(contentsOfFile: timezoneFile, encoding: .utf8))?.trimmingWhitespace()
        if linkedName == nil, let writtenName, let zone = ZoneRules(named: writtenName) { return zone }
        // A zone the database lacks: the file's own rules, by the name it was found under.
        let name = linkedName ?? writtenName.flatMap { $0.isEmpty ? nil : $0 } ?? localTimePath
        return ZoneRules(identifier: name, tzifBytes: Array(bytes), path: localTimePath)
    }

    // MARK: The database

    /// The folder of the system's time-zone database: `$TZDIR`, or `/usr/share/zoneinfo`.
    public static var databaseDirectory: String {
        // getenv(3), not ProcessInfo's environment: that copies the whole environment on every read.
        guard let value = getenv("TZDIR"), value.pointee != 0 else { return "/usr/share/zoneinfo" }
        return String(cString: value)
    }

    /// The database file for a zone identifier, or `nil` for one that cannot name a file there.
    public static func databasePath(for identifier: String) -> String? {
        guard !identifier.isEmpty, !identifier.hasPrefix("/"),
            !identifier.split(separator: "/").contains(where: { $0 == ".." || $0 == "." })
        else { return nil }
        return databaseDirectory + "/" + identifier
    }

    private static let cache = RulesCache()

    /// Read rules by identifier, each with the file identity it was read from.
    private final class RulesCache: Sendable {
        private struct Entry {
            let stamp: FileStamp
            let rules: ZoneRules
        }
        private let entries = Mutex<[String: Entry]>([:])

        /// The rules of `identifier` from the file at `path`; `nil` when it cannot be read as TZif.
        func rules(identifier: String, path: String) -> ZoneRules? {
            guard let stamp = FileStamp(path: path) else { return nil }
            if let entry = entries.withLock({ $0[path] }), entry.stamp == stamp, entry.rules.identifier == identifier {
                return entry.rules
            }
            guard let data = FileManager.default.contents(atPath: path),
                let rules = ZoneRules(identifier: identifier, tzifBytes: Array(data), path: path)
            else { return nil }
            entries.withLock { $0[path] = Entry(stamp: stamp, rules: rules) }
            return rules
        }
    }

    /// What tells one version of a file from another (`stat(2)`): device, inode, size and
    /// modification time. `nil` when the file cannot be read.
    private struct FileStamp: Equatable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modifiedSeconds: Int64
        let modifiedNanoseconds: Int64

        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modifiedSeconds = Int64(info.st_mtim.tv_sec)
            modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
        }
    }
}
