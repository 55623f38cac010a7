import AlarmModel
import Foundation
import Testing
import TestRequirements
import TestSupport

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

/// A line of `zdump -i` this test cannot read.
private struct ZdumpOutputError: Error, CustomStringConvertible {
    var text: String
    var description: String { "zdump printed what this test cannot read: \(text.debugDescription)" }
}

@Suite("Time-zone rules from the system's database", .onItsOwnThread, .timeLimit(.minutes(10)))
struct ZoneRulesTests {
    /// The offset changes glibc's `zdump -i` reads from the same files, by zone: each change's
    /// instant (seconds since 1970) and the offset after it, and the offset in force before the
    /// first, for the years of `-c FROM,TO`.
    ///
    /// `zdump -i` prints, per zone, `TZ="Zone"`, then `-\t-\tOFFSET\tABBR` (the offset at the
    /// start), then a line per change: the local date and time after it, the new offset
    /// (`+HH[MM[SS]]`), its abbreviation and `1` for daylight time. A change of abbreviation or of
    /// daylight time alone keeps the offset: it is left out, as `ZoneRules.nextChange` does.
    static func zdumpChanges(
        _ zdump: String, zones: [String], from: Int, to: Int
    ) async throws -> [String: (start: Int64, changes: [(Int64, Int64)])] {
        var result: [String: (start: Int64, changes: [(Int64, Int64)])] = [:]
        // `03`, `02:45`, `0245`, `03:30:05`: hours, then minutes and seconds when given.
        func clock(_ text: Substring) throws -> [Int64] {
            let parts =
                text.contains(":")
                ? text.split(separator: ":").map(String.init)
                : stride(from: 0, to: text.count, by: 2).map { String(Array(text)[$0..<min($0 + 2, text.count)]) }
            let numbers = parts.compactMap { Int64($0) }
            guard numbers.count == parts.count, (1...3).contains(numbers.count) else { throw ZdumpOutputError(text: String(text)) }
            return numbers + Array(repeating: 0, count: 3 - numbers.count)
        }
        func offset(_ text: Substring) throws -> Int64 {
            guard let sign = text.first, sign == "+" || sign == "-" else { throw ZdumpOutputError(text: String(text)) }
            let fields = try clock(text.dropFirst())
            return (sign == "-" ? -1 : 1) * (fields[0] * 3_600 + fields[1] * 60 + fields[2])
        }
        // Two processes at a time: zdump finds each change by calling localtime over and over.
        let half = (zones.count + 1) / 2
        async let first = offPool { try Executables.run(zdump, ["-i", "-c", "\(from),\(to)"] + Array(zones[..<half])) }
        async let second = offPool { try Executables.run(zdump, ["-i", "-c", "\(from),\(to)"] + Array(zones[half...])) }
        let output = try await first + "\n" + second
        var zone = ""
        for line in output.split(separator: "\n") {
            if line.hasPrefix("TZ=\"") {
                zone = String(line.dropFirst(4).dropLast())
                continue
            }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            // The abbreviation is left out where it is the numeric offset (`+1245`).
            guard fields.count >= 3, !zone.isEmpty else { continue }
            let newOffset = try offset(fields[2])
            if fields[0] == "-" {
                result[zone] = (newOffset, [])
                continue
            }
            let date = fields[0].split(separator: "-").compactMap { Int($0) }
            guard date.count == 3 else { throw ZdumpOutputError(text: String(line)) }
            let time = try clock(fields[1])
            let local =
                Self.daysSince1970(year: Int64(date[0]), month: Int64(date[1]), day: Int64(date[2])) * 86_400
                + time[0] * 3_600 + time[1] * 60 + time[2]
            let previous = result[zone]?.changes.last?.1 ?? result[zone]?.start
            if newOffset != previous { result[zone, default: (newOffset, [])].changes.append((local - newOffset, newOffset)) }
        }
        return result
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
    /// days_from_civil).
    static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    @Test(
        "Every zone of the system database gives the offset changes glibc's zdump reads from the same file, 2000 to 2060",
        .timeLimit(.minutes(3)))
    func agreesWithZdump() async throws {
        // An independent reading of the same files (glibc's tzfile and its TZ-string rules): it
        // holds whatever tzdata version the machine has, unlike Foundation's own copy of the data.
        let zdump = try #require(Executables.find("zdump"), "zdump is missing (Debian's libc-bin has it)")
        let identifiers = systemZoneIdentifiers()
        #expect(identifiers.count > 300)
        let reference = try await Self.zdumpChanges(zdump, zones: identifiers, from: 2000, to: 2060)
        let start = try seconds("2000-01-01T00:00:00Z")
        let end = try seconds("2060-01-01T00:00:00Z")
        var compared = 0
        for identifier in identifiers {
            guard let rules = ZoneRules(named: identifier), case .systemDatabase = rules.origin else {
                Issue.record("\(identifier) was not read from the system database")
                continue
            }
            guard let theirs = reference[identifier] else {
                Issue.record("zdump printed nothing for \(identifier)")
                continue
            }
            #expect(rules.secondsFromGMT(at: start) == theirs.start, "\(identifier): the offset at the start of 2000")
            var mine: [(Int64, Int64)] = []
            var cursor = start
            while let next = rules.nextChange(after: cursor), next < end {
                mine.append((next, rules.secondsFromGMT(at: next)))
                cursor = next
            }
            #expect(mine.map(\.0) == theirs.changes.map(\.0), "\(identifier): the instants of its changes")
            #expect(mine.map(\.1) == theirs.changes.map(\.1), "\(identifier): the offsets after its changes")
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
        #expect(
            AlertCalendar(timeZone: Fixtures.zone("Europe/Berlin"))
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
