import Foundation
import Synchronization

/// A time zone's offset rules: when its clocks change, and by how much.
///
/// Read from the system's time-zone database (the TZif file `$TZDIR/<identifier>`, or under
/// `/usr/share/zoneinfo`) when it has the zone, so a tzdata update (a country ending daylight saving
/// time, say) reaches alarms when the system gets it. Foundation's `TimeZone` reads the copy of the
/// rules built into the Swift runtime (ICU's), which changes only when the runtime does; its rules
/// serve only for zones the system's database lacks (such as fixed offsets like `GMT+0100`).
public struct ZoneRules: Sendable {
    /// The zone's identifier, such as `Europe/Berlin`.
    public let identifier: String
    /// Where the rules come from.
    public let origin: Origin
    private let rules: Rules

    /// Where a zone's rules come from.
    public enum Origin: Hashable, Sendable {
        /// The system's time-zone database, from this file.
        case systemDatabase(path: String)
        /// The Swift runtime's copy (Foundation's `TimeZone`).
        case runtime
    }

    private enum Rules: Sendable {
        case tzif(TZifRules)
        case foundation(TimeZone)
    }

    /// The rules of the time zone, from the system's database when it has them (see the type's
    /// documentation). Reading is cached, and the cache is checked against the file's identity and
    /// modification time, so a file replaced by a tzdata update is read again.
    public init(for timeZone: TimeZone) {
        self = Self.cache.rules(for: timeZone)
    }

    /// Rules read from TZif bytes; `nil` when they cannot be read. For tests and tools.
    public init?(identifier: String, tzifBytes bytes: [UInt8]) {
        guard let rules = try? TZifRules(bytes: bytes) else { return nil }
        self.init(identifier: identifier, origin: .systemDatabase(path: ""), rules: .tzif(rules))
    }

    /// The runtime's rules for a zone (Foundation's `TimeZone`), whatever the system's database says.
    public init(identifier: String, runtime zone: TimeZone) {
        self.init(identifier: identifier, origin: .runtime, rules: .foundation(zone))
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
        case .foundation(let zone): Int64(zone.secondsFromGMT(for: Date(seconds: instant)))
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
        case .tzif(let tzif):
            return tzif.nextChange(after: instant)
        case .foundation(let zone):
            var cursor = Date(seconds: instant)
            let offset = zone.secondsFromGMT(for: cursor)
            // Foundation also reports changes of daylight saving time that keep the offset.
            while let next = zone.nextDaylightSavingTimeTransition(after: cursor) {
                let seconds = Int64(next.timeIntervalSince1970.rounded(.up))
                if zone.secondsFromGMT(for: Date(seconds: seconds)) != offset { return seconds }
                cursor = Date(seconds: seconds)
            }
            return nil
        }
    }

    /// A zone that shows `date` as these rules do: the offset in force then, fixed. For formatting
    /// an instant with Foundation so that it reads as the alarm computes it.
    public func fixedZone(at date: Date) -> TimeZone {
        if case .foundation(let zone) = rules { return zone }
        return TimeZone(secondsFromGMT: Int(secondsFromGMT(for: date))) ?? TimeZone(identifier: "UTC")!
    }

    /// The folder of the system's time-zone database: `$TZDIR`, or `/usr/share/zoneinfo`.
    public static var databaseDirectory: String {
        // getenv(3), not ProcessInfo's environment: that copies the whole environment on every read.
        guard let value = getenv("TZDIR"), value.pointee != 0 else { return "/usr/share/zoneinfo" }
        return String(cString: value)
    }

    /// The database file for a zone identifier, or `nil` for one that cannot name a file there.
    public static func databasePath(for identifier: String) -> String? {
        guard !identifier.isEmpty, !identifier.hasPrefix("/"), !identifier.split(separator: "/").contains(where: { $0 == ".." || $0 == "." })
        else { return nil }
        return databaseDirectory + "/" + identifier
    }

    private static let cache = RulesCache()

    /// Read rules by identifier, each with the file identity it was read from.
    private final class RulesCache: Sendable {
        private struct Entry {
            let stamp: FileStamp?
            let rules: ZoneRules
        }
        private let entries = Mutex<[String: Entry]>([:])

        func rules(for timeZone: TimeZone) -> ZoneRules {
            let identifier = timeZone.identifier
            guard let path = ZoneRules.databasePath(for: identifier) else {
                return ZoneRules(identifier: identifier, origin: .runtime, rules: .foundation(timeZone))
            }
            let stamp = FileStamp(path: path)
            if let entry = entries.withLock({ $0[identifier] }), entry.stamp == stamp { return entry.rules }
            let rules: ZoneRules
            if stamp != nil, let data = FileManager.default.contents(atPath: path), let tzif = try? TZifRules(bytes: Array(data)) {
                rules = ZoneRules(identifier: identifier, origin: .systemDatabase(path: path), rules: .tzif(tzif))
            } else {
                rules = ZoneRules(identifier: identifier, origin: .runtime, rules: .foundation(timeZone))
            }
            entries.withLock { $0[identifier] = Entry(stamp: stamp, rules: rules) }
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
