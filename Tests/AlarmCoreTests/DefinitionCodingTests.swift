@testable import AlarmCore
import AlarmModel
import Foundation
import Testing
import TestRequirements

/// The store's binary definition form across its formats: rows written before `breakthrough`
/// existed stay readable, and read as breaking through.
@Suite("Store: definition formats", .onItsOwnThread)
struct DefinitionCodingTests {
    @Test("breakthrough off survives the round trip; on is the default")
    func breakthroughRoundTrip() throws {
        var definition = Sample.timer
        #expect(definition.breakthrough)
        #expect(try DefinitionCoding.decode(DefinitionCoding.encode(definition)).breakthrough)
        definition.breakthrough = false
        #expect(try DefinitionCoding.decode(DefinitionCoding.encode(definition)) == definition)
    }

    @Test(
        "A format-1 row (before breakthrough) reads back whole, breaking through",
        arguments: [
            Sample.fixed, Sample.relativeOnce, Sample.relativeWeekly, Sample.timer,
        ])
    func formatOneRowsStayReadable(_ definition: AlarmDefinition) throws {
        // A format-1 row is today's row without the trailing breakthrough byte and format 3's
        // four (no volume, ramp or ring time-out; on), format byte 1.
        var bytes = DefinitionCoding.encode(definition)
        #expect(bytes.first == 3 && Array(bytes.suffix(5)) == [1, 0, 0, 0, 1])
        bytes.removeLast(5)
        bytes[bytes.startIndex] = 1
        let read = try DefinitionCoding.decode(bytes)
        #expect(read == definition)
        #expect(read.breakthrough)
    }

    @Test(
        "A format-2 row (before per-alarm sound and off) reads back whole: on, with the agent's sound settings",
        arguments: [
            Sample.fixed, Sample.relativeOnce, Sample.relativeWeekly, Sample.timer,
        ])
    func formatTwoRowsStayReadable(_ definition: AlarmDefinition) throws {
        var quiet = definition
        quiet.breakthrough = false
        var bytes = DefinitionCoding.encode(quiet)
        bytes.removeLast(4)
        bytes[bytes.startIndex] = 2
        let read = try DefinitionCoding.decode(bytes)
        #expect(read == quiet)
        #expect(read.isEnabled && read.volume == nil && read.soundRamp == nil && read.ringTimeout == nil)
    }

    @Test("Volume, crescendo, ring time-out and off survive the round trip")
    func soundSettingsRoundTrip() throws {
        var definition = Sample.relativeWeekly
        definition.volume = 60
        definition.soundRamp = 90
        definition.ringTimeout = 0
        definition.isEnabled = false
        let read = try DefinitionCoding.decode(DefinitionCoding.encode(definition))
        #expect(read == definition)
        #expect(read.volume == 60 && read.soundRamp == 90 && read.ringTimeout == 0 && !read.isEnabled)
        // The JSON form too, and JSON without the keys reads as on with the agent's settings.
        #expect(try JSONDecoder().decode(AlarmDefinition.self, from: JSONEncoder().encode(definition)) == definition)
        let plain = try JSONDecoder().decode(AlarmDefinition.self, from: JSONEncoder().encode(Sample.timer))
        #expect(plain.isEnabled && plain.volume == nil)
    }

    @Test("An unknown format or a bad enabled byte is refused, not guessed")
    func refusesWhatItCannotRead() throws {
        var bytes = DefinitionCoding.encode(Sample.timer)
        bytes[bytes.endIndex - 1] = 7
        #expect(throws: StoreError.self) { try DefinitionCoding.decode(bytes) }
        bytes[bytes.startIndex] = 4
        #expect(throws: StoreError.self) { try DefinitionCoding.decode(bytes) }
    }

    @Test("JSON written before breakthrough existed decodes as breaking through")
    func jsonWithoutTheKey() throws {
        var definition = Sample.timer
        definition.breakthrough = false
        let encoded = try JSONEncoder().encode(definition)
        var object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(object["breakthrough"] as? Bool == false)
        #expect(try JSONDecoder().decode(AlarmDefinition.self, from: encoded) == definition)
        object["breakthrough"] = nil
        let old = try JSONSerialization.data(withJSONObject: object)
        #expect(try JSONDecoder().decode(AlarmDefinition.self, from: old).breakthrough)
    }

    @Test("A changed copy leaves the original as it was; equal fields make equal definitions")
    func copiesAreValues() throws {
        let original = Sample.fixed
        var copy = original
        #expect(copy == original)
        copy.presentation.alert.title = "Changed"
        copy.metadata = Data([1, 2, 3])
        #expect(original.title == Sample.fixed.presentation.alert.title.key)
        #expect(original.metadata == Sample.fixed.metadata)
        #expect(copy.title == "Changed" && copy != original)
        // Built apart, field by field: equal and hashing alike.
        var rebuilt = AlarmDefinition(
            schedule: copy.schedule, countdownDuration: copy.countdownDuration, presentation: copy.presentation,
            tintColor: copy.tintColor, metadata: copy.metadata, sound: copy.sound)
        rebuilt.breakthrough = copy.breakthrough
        #expect(rebuilt == copy && rebuilt.hashValue == copy.hashValue)
        #expect(Set([rebuilt, copy, original]).count == 2)
    }

    @Test("The JSON has the keys it always had: absent optionals are left out")
    func jsonKeys() throws {
        var definition = Sample.timer
        definition.stopIntent = "stop"
        let object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(definition)) as? [String: Any])
        #expect(Set(object.keys) == ["countdownDuration", "presentation", "tintColor", "sound", "stopIntent", "breakthrough"])
        let full = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(Sample.fixed)) as? [String: Any])
        #expect(full["schedule"] != nil)
    }
}
