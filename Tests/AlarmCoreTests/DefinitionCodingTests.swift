@testable import AlarmCore
import Foundation
import Testing
import TestSupport

/// The store's binary form of a definition reads back exactly, and refuses damaged bytes.
@Suite("Store definition coding")
struct DefinitionCodingTests {
    static let definitions: [AlarmDefinition] = {
        var custom = Fixtures.definition(Fixtures.clockTime(23, 59, on: [.saturday, .monday, .saturday]), snooze: 90, title: "Ünïcode ⏰")
        custom.presentation.alert.secondaryButton = .openAppButton
        custom.presentation.alert.secondaryButtonBehavior = .custom
        custom.tintColor = Color(red: 0.1, green: 0.2, blue: 0.3, opacity: 0.4)
        custom.metadata = Data([0, 1, 2, 255])
        custom.sound = .named("alarm-clock-elapsed")
        var bare = Fixtures.timer(1.5)
        bare.presentation = AlarmPresentation(alert: .init(title: ""))
        return [
            Fixtures.definition(.fixed(Date(timeIntervalSinceReferenceDate: 801_234_567.123_456_7)), preAlert: 60),
            Fixtures.definition(Fixtures.clockTime(0, 0)),
            custom,
            bare,
        ]
    }()

    @Test("Every shape reads back equal", arguments: definitions)
    func roundTrip(definition: AlarmDefinition) throws {
        #expect(try DefinitionCoding.decode(DefinitionCoding.encode(definition)) == definition)
    }

    @Test("Every truncation and an unknown format throw instead of trapping")
    func damaged() {
        let bytes = DefinitionCoding.encode(Self.definitions[2])
        for length in 0..<bytes.count {
            #expect(throws: StoreError.self) { try DefinitionCoding.decode(bytes.prefix(length)) }
        }
        var unknown = bytes
        unknown[unknown.startIndex] = 99
        #expect(throws: StoreError.unreadableRow("definition format 99 is unknown")) { try DefinitionCoding.decode(unknown) }
        #expect(throws: StoreError.self) { try DefinitionCoding.decode(bytes + Data([0])) }
    }
}
