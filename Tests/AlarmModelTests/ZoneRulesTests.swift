import AlarmModel
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The system database's version (`# version 2025b` atop `tzdata.zi`), or `nil`.
private let systemDatabaseVersion: String? = {
    guard let text = try? String(contentsOfFile: ZoneRules.databaseDirectory + "/tzdata.zi", encoding: .utf8),
        let first = text.split(separator: "\n").first, first.hasPrefix("# version ")
    else { return nil }
    return String(first.dropFirst("# version ".count))
}()

/// Every zone file of the system database (not `posix/`, `right/` or the tables).
private func systemZoneIdentifiers() -> [String] {
    let root = ZoneRules.databaseDirectory
    guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
    var identifiers: [String] = []
    while let path = enumerator.nextObject() as? String {
        if path.hasPrefix("posix") || path.hasPrefix("right") || path.contains(".") { continue }
        guard let handle = FileHandle(forReadingAtPath: root + "/" + path) else { continue }
        let magic = try? handle.read(upToCount: 4)
        try? handle.close()
        if magic == Data("TZif".utf8) { identifiers.append(path) }
    }
    return identifiers.sorted()
}

/// Foundation's rules for a zone (ICU's copy of tzdata, built into the Swift runtime): the
/// independent reference the system database's rules are checked against.
private struct FoundationRules {
    let zone: TimeZone

    func secondsFromGMT(at instant: Int64) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(seconds: instant)))
    }

    /// The next change of the offset (Foundation also reports changes of daylight saving time
    /// that keep the offset; those are skipped).
    func nextChange(after instant: Int64) -> Int64? {
        var cursor = Date(seconds: instant)
        let offset = zone.secondsFromGMT(for: cursor)
        while let next = zone.nextDaylightSavingTimeTransition(after: cursor) {
            let seconds = Int64(next.timeIntervalSince1970.rounded(.up))
            if zone.secondsFromGMT(for: Date(seconds: seconds)) != offset { return seconds }
            cursor = Date(seconds: seconds)
        }
        return nil
    }
}

private func seconds(_ text: String) throws -> Int64 {
    let formatter = ISO8601DateFormatter()
    return Int64(try #require(formatter.date(from: text)).timeIntervalSince1970)
}

@Suite("Time-zone rules from the system's database", .onItsOwnThread)
struct ZoneRulesTests {
    @Test(
        "Every zone of the system database gives the offsets and changes of Foundation's copy of the same tzdata, 2000 to 2060",
        .enabled(if: systemDatabaseVersion != nil && systemDatabaseVersion == TimeZone.timeZoneDataVersion,
                 "the system's tzdata and the runtime's are different versions"))
    func agreesWithFoundation() throws {
        let identifiers = systemZoneIdentifiers()
        #expect(identifiers.count > 300)
        let start = try seconds("2000-01-01T00:00:00Z")
        let end = try seconds("2060-01-01T00:00:00Z")
        var compared = 0
        for identifier in identifiers {
            guard let zone = TimeZone(identifier: identifier) else { continue }
            guard let rules = ZoneRules(named: identifier), case .systemDatabase = rules.origin else {
                Issue.record("\(identifier) was not read from the system database")
                continue
            }
            let reference = FoundationRules(zone: zone)
            // The same changes, one after another, and the same offsets on both sides of each.
            var cursor = start
            while true {
                let mine = rules.nextChange(after: cursor)
                let theirs = reference.nextChange(after: cursor)
                #expect(mine == theirs, "\(identifier): next change after \(cursor)")
                guard let mine, mine == theirs, mine < end else { break }
                #expect(rules.secondsFromGMT(at: mine - 1) == reference.secondsFromGMT(at: mine - 1), "\(identifier) at \(mine - 1)")
                #expect(rules.secondsFromGMT(at: mine) == reference.secondsFromGMT(at: mine), "\(identifier) at \(mine)")
                cursor = mine
            }
            // And every ten days in between.
            for instant in stride(from: start, to: end, by: 10 * 86_400) where rules.secondsFromGMT(at: instant) != reference.secondsFromGMT(at: instant) {
                Issue.record("\(identifier): offset at \(instant)")
                break
            }
            compared += 1
        }
        #expect(compared > 300)
    }

    @Test("A POSIX rule after the listed transitions: Berlin's and Sydney's daylight saving time in 2100")
    func footerRules() throws {
        let source = """
            Rule EU 1981 max - Mar lastSun 1:00u 1:00 S
            Rule EU 1996 max - Oct lastSun 1:00u 0 -
            Zone Test/Berlin 1:00 EU CE%sT
            Rule AN 2008 max - Apr Sun>=1 2:00s 0 S
            Rule AN 2008 max - Oct Sun>=1 2:00s 1:00 D
            Zone Test/Sydney 10:00 AN AE%sT
            """
        let berlin = try #require(ZoneRules(identifier: "Test/Berlin", tzifBytes: try ZoneCompiler.tzif(source, zone: "Test/Berlin")))
        // 2100-03-28 01:00 UTC (the last Sunday of March) and 2100-10-31 01:00 UTC.
        #expect(berlin.nextChange(after: try seconds("2100-01-01T00:00:00Z")) == (try seconds("2100-03-28T01:00:00Z")))
        #expect(berlin.nextChange(after: try seconds("2100-03-28T01:00:00Z")) == (try seconds("2100-10-31T01:00:00Z")))
        #expect(berlin.secondsFromGMT(at: try seconds("2100-07-01T00:00:00Z")) == 7_200)
        #expect(berlin.secondsFromGMT(at: try seconds("2100-12-01T00:00:00Z")) == 3_600)
        let sydney = try #require(ZoneRules(identifier: "Test/Sydney", tzifBytes: try ZoneCompiler.tzif(source, zone: "Test/Sydney")))
        // Summer time ends 2100-04-04 03:00 local (16:00 UTC the day before) and starts 2100-10-03 02:00 local.
        #expect(sydney.nextChange(after: try seconds("2100-01-01T00:00:00Z")) == (try seconds("2100-04-03T16:00:00Z")))
        #expect(sydney.nextChange(after: try seconds("2100-04-03T16:00:00Z")) == (try seconds("2100-10-02T16:00:00Z")))
        #expect(sydney.secondsFromGMT(at: try seconds("2100-01-15T00:00:00Z")) == 39_600)
        #expect(sydney.secondsFromGMT(at: try seconds("2100-06-15T00:00:00Z")) == 36_000)
    }

    @Test("Daylight saving time all year in a POSIX rule (0/0 to J365/25) never falls back")
    func permanentDaylightTime() throws {
        // zic writes such a footer (EST5EDT,0/0,J365/25) for a zone whose summer time never ends.
        let source = """
            Rule Always 2020 max - Jan 1 0:00 1:00 D
            Rule Always 2020 max - Dec 31 25:00 0 S
            Zone Test/Always -5:00 Always E%sT
            """
        let rules = try #require(ZoneRules(identifier: "Test/Always", tzifBytes: try ZoneCompiler.tzif(source, zone: "Test/Always")))
        for year in [2040, 2100] {
            for month in ["01-01T05:30", "06-15T12:00", "12-31T23:59"] {
                let instant = try seconds("\(year)-\(month):00Z")
                #expect(rules.secondsFromGMT(at: instant) == -14_400, "\(year)-\(month)")
            }
        }
        #expect(rules.nextChange(after: try seconds("2040-06-01T00:00:00Z")) == nil, "the offset never changes again")
    }

    @Test("Rules the runtime does not know: a zone compiled without daylight saving time puts 07:30 in July at 06:30 UTC")
    func rulesTheRuntimeLacks() throws {
        // Europe/Berlin as if its daylight saving time had been abolished in 2027: a tzdata update
        // the runtime's copy would not have.
        let source = """
            Rule EU 1981 max - Mar lastSun 1:00u 1:00 S
            Rule EU 1996 max - Oct lastSun 1:00u 0 -
            Zone Europe/Berlin 1:00 EU CE%sT 2027 Jan 1
                1:00 - CET
            """
        let rules = try #require(ZoneRules(identifier: "Europe/Berlin", tzifBytes: try ZoneCompiler.tzif(source, zone: "Europe/Berlin")))
        let calendar = AlertCalendar(timeZone: rules)
        let schedule = Alarm.Schedule.relative(.init(time: .init(hour: 7, minute: 30), repeats: .never))
        let july2026 = try seconds("2026-07-01T12:00:00Z")
        let july2027 = try seconds("2027-07-01T12:00:00Z")
        #expect(calendar.nextAlert(of: schedule, after: Date(seconds: july2026)) == Date(seconds: try seconds("2026-07-02T05:30:00Z")))
        #expect(calendar.nextAlert(of: schedule, after: Date(seconds: july2027)) == Date(seconds: try seconds("2027-07-02T06:30:00Z")))
        // Foundation's copy (the runtime's), and the system's database, still have summer time in 2027.
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        #expect(FoundationRules(zone: berlin).secondsFromGMT(at: july2027) == 7_200)
        #expect(AlertCalendar(timeZone: Fixtures.zone("Europe/Berlin"))
            .nextAlert(of: schedule, after: Date(seconds: july2027)) == Date(seconds: try seconds("2027-07-02T05:30:00Z")))
        #expect(rules.nextChange(after: try seconds("2026-12-01T00:00:00Z")) == nil)
        #expect(rules.secondsFromGMT(at: july2027) == 3_600)
    }

    @Test("A zone the database lacks is a POSIX rule (as TZ=<+0130>-1:30 is for the C library) or none; a file that is not TZif is refused")
    func fallbacks() throws {
        // POSIX counts offsets west of UTC: `-1:30` is 90 minutes east, as `TZ=<+0130>-1:30 date +%z` prints `+0130`.
        let fixed = try #require(ZoneRules(posixRule: "<+0130>-1:30"))
        #expect(fixed.origin == .posixRule)
        #expect(fixed.secondsFromGMT(at: 0) == 5_400)
        #expect(fixed.nextChange(after: 0) == nil)
        let berlin = try #require(ZoneRules(posixRule: "CET-1CEST,M3.5.0,M10.5.0/3"))
        #expect(berlin.secondsFromGMT(at: try seconds("2026-07-01T00:00:00Z")) == 7_200)
        #expect(ZoneRules(posixRule: "Nowhere/Nothing") == nil)
        #expect(ZoneRules(named: "Nowhere/Nothing") == nil)
        #expect(ZoneRules(named: "../etc/passwd") == nil)
        #expect(ZoneRules.utc.secondsFromGMT(at: 0) == 0)
        #expect(ZoneRules(identifier: "x", tzifBytes: Array("not a zone".utf8)) == nil)
        #expect(ZoneRules(identifier: "x", tzifBytes: Array("TZif2".utf8)) == nil)
        #expect(ZoneRules.databasePath(for: "../etc/passwd") == nil)
        #expect(ZoneRules.databasePath(for: "/etc/passwd") == nil)
        #expect(ZoneRules.databasePath(for: "Europe/Berlin") == ZoneRules.databaseDirectory + "/Europe/Berlin")
    }

    @Test("Truncated TZif data is refused at every length, never read past its end")
    func truncated() throws {
        // Every prefix lacks at least the footer's closing newline.
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: ZoneRules.databaseDirectory + "/Europe/Berlin")))
        for length in stride(from: 0, to: bytes.count - 1, by: 7) {
            #expect(ZoneRules(identifier: "Europe/Berlin", tzifBytes: Array(bytes.prefix(length))) == nil, "\(length) bytes")
        }
        #expect(ZoneRules(identifier: "Europe/Berlin", tzifBytes: bytes) != nil)
    }
}

extension Date {
    fileprivate init(seconds: Int64) { self.init(timeIntervalSince1970: TimeInterval(seconds)) }
}
