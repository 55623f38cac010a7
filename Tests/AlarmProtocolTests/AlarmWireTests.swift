import AlarmCore
import AlarmProtocol
import AlarmModel
import AlarmRecords
import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

/// `AlarmWire`: reading a configuration from its `a{sv}`, and the alarms a client is sent.
@Suite("AlarmProtocol: the configuration and alarms on the wire", .onItsOwnThread)
struct AlarmWireTests {
    /// An `a{sv}` with the entries in the order given, repeats kept (`DBusValue.dictionary` cannot).
    static func entries(_ pairs: [(String, DBusValue)]) -> DBusValue {
        .array(elementSignature: "{sv}", pairs.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    static func refusal(_ value: DBusValue) -> AlarmRequestError? {
        do {
            _ = try AlarmWire.decodeConfiguration(value)
            return nil
        } catch {
            return error
        }
    }

    static let countdown: (String, DBusValue) = ("countdown", .dictionary(["preAlert": .double(60)]))

    @Test("A key given twice is refused by name, in a configuration of a few keys or of many")
    func repeatedKey() {
        #expect(
            Self.refusal(Self.entries([Self.countdown, ("title", .string("A")), ("title", .string("B"))]))
                == .invalidConfiguration(field: "configuration", reason: "has the key \"title\" more than once"))
        let many = (0..<40).map { ("unknown\($0)", DBusValue.boolean(true)) } + [("unknown7", .boolean(false))]
        #expect(
            Self.refusal(Self.entries(many))
                == .invalidConfiguration(field: "configuration", reason: "has the key \"unknown7\" more than once"))
        let nested = Self.entries([("countdown", Self.entries([("preAlert", .double(60)), ("preAlert", .double(30))]))])
        #expect(Self.refusal(nested) == .invalidConfiguration(field: "countdown", reason: "has the key \"preAlert\" more than once"))
    }

    @Test("Of several unknown keys, the first in sorted order is named; a non-dictionary says what it is")
    func unknownKeys() {
        #expect(
            Self.refusal(Self.entries([Self.countdown, ("zeta", .boolean(true)), ("alpha", .boolean(true))]))
                == .invalidConfiguration(field: "\"alpha\"", reason: "is not a known key"))
        #expect(Self.refusal(.string("x")) == .invalidConfiguration(field: "configuration", reason: "must be a dictionary (a{sv}), not s"))
    }

    @Test("A configuration reads the same whatever the order of its keys")
    func keyOrder() throws {
        let pairs: [(String, DBusValue)] = [
            Self.countdown, ("title", .string("Tea")), ("sound", .string("default")), ("breakthrough", .boolean(false)),
        ]
        let forward = try AlarmWire.decodeConfiguration(Self.entries(pairs))
        let backward = try AlarmWire.decodeConfiguration(Self.entries(pairs.reversed()))
        #expect(forward == backward)
        #expect(forward.title == "Tea" && forward.breakthrough == false && forward.countdownDuration?.preAlert == 60)
    }

    @Test("An alarm read from the wire is a value: changing a copy leaves the original as it was")
    func remoteAlarmIsAValue() throws {
        let definition = try AlarmWire.decodeConfiguration(Self.entries([Self.countdown, ("title", .string("Tea"))]))
        let record = AlarmRecord(
            id: UUID(), owner: "app", definition: definition,
            phase: .scheduled(alertAt: Date(timeIntervalSince1970: 2_000_000_000)), anchor: Date(timeIntervalSince1970: 1_900_000_000))
        let reading = ClockReading(now: Date(timeIntervalSince1970: 1_900_000_000), uptime: .seconds(100), bootID: "boot", timeZone: .utc)
        let original = try AlarmWire.decodeAlarm(AlarmWire.encode(record, at: reading))
        let same = try AlarmWire.decodeAlarm(AlarmWire.encode(record, at: reading))
        #expect(original == same && original.hashValue == same.hashValue, "equal alarms read apart are equal, and hash alike")

        var copy = original
        copy.owner = "other"
        copy.definition.presentation.alert.title = LocalizedStringResource("Coffee")
        #expect(original.owner == "app" && original.definition.title == "Tea")
        #expect(copy.owner == "other" && copy.definition.title == "Coffee")
        #expect(copy != original)
        #expect(copy.alarm == original.alarm && copy.fireDate == original.fireDate)
    }

    @Test(
        "An Edit whose schedule is an instant with no clock time (infinite, NaN, past the year 9999) and that also gives time or weekdays is refused by name, not read (the agent fuzzer's seed 14528602244310420516 crashed the engine so)",
        arguments: [Double.infinity, -Double.infinity, Double.nan, 1e300])
    func editInstantWithoutClockTime(seconds: Double) {
        let alarm = AlarmDefinition(
            schedule: .fixed(Date(timeIntervalSince1970: 1_800_000_000)), countdownDuration: nil,
            presentation: AlarmWire.defaultPresentation(title: "Wake up", isTimer: false, snoozes: true))
        let zone = ZoneRules.utc
        // Refused as it is read or as it is applied, either way by name, before any clock time is read.
        func refused(_ pairs: [(String, DBusValue)]) -> Bool {
            do {
                _ = try AlarmWire.decodeEdit(Self.entries(pairs)).applied(to: alarm, zone: zone)
                return false
            } catch {
                return true
            }
        }
        let fixed: (String, DBusValue) = ("schedule", .dictionary(["fixed": .double(seconds)]))
        #expect(refused([fixed, ("weekdays", .strings(["monday", "friday"]))]))
        #expect(refused([fixed, ("time", .dictionary(["hour": .int32(7), "minute": .int32(30)]))]))
    }
}
