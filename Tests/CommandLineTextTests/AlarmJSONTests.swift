import AlarmModel
import CommandLineText
import AlarmRecords
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The JSON form of an alarm is a contract with scripts: these tests pin it byte for byte.
@Suite("Alarm JSON", .onItsOwnThread)
struct AlarmJSONTests {
    let reading = ClockReading(
        now: Fixtures.instant("2026-11-21T10:00:00Z"), uptime: .seconds(1_000), bootID: "b", timeZone: Fixtures.zone("UTC"))
    let id = UUID(uuidString: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")!

    @Test("A weekly clock-time alarm")
    func weekly() {
        var definition = Fixtures.definition(Fixtures.clockTime(7, 30, on: [.friday, .monday]), snooze: 540, title: "Wake up")
        definition.sound = .named("/usr/share/sounds/bell.oga")
        let record = AlarmRecord(
            id: id, owner: "user", definition: definition,
            phase: .scheduled(alertAt: Fixtures.instant("2026-11-23T07:30:00Z")), anchor: reading.now)
        #expect(
            AlarmDescription(record, at: reading).json() == """
                {"countdown":{"postAlert":540},"fireDate":"2026-11-23T07:30:00Z","id":"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",\
                "kind":"alarm","schedule":{"hour":7,"minute":30,"weekdays":["monday","friday"]},\
                "sound":"/usr/share/sounds/bell.oga","state":"scheduled","title":"Wake up"}
                """)
    }

    @Test("A fixed alarm and a one-time clock-time alarm")
    func fixedAndOnce() {
        let fixed = AlarmRecord(
            id: id, owner: "user", definition: Fixtures.definition(.fixed(Fixtures.instant("2026-12-01T06:30:00Z")), title: "Train"),
            phase: .scheduled(alertAt: Fixtures.instant("2026-12-01T06:30:00Z")), anchor: reading.now)
        #expect(
            AlarmDescription(fixed, at: reading).json() == """
                {"fireDate":"2026-12-01T06:30:00Z","id":"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0","kind":"alarm",\
                "schedule":{"fixed":"2026-12-01T06:30:00Z"},"sound":"default","state":"scheduled","title":"Train"}
                """)
        let once = AlarmRecord(
            id: id, owner: "user", definition: Fixtures.definition(Fixtures.clockTime(19, 5), title: "Call"),
            phase: .scheduled(alertAt: Fixtures.instant("2026-11-21T19:05:00Z")), anchor: reading.now)
        #expect(AlarmDescription(once, at: reading).json().contains(#""schedule":{"hour":19,"minute":5}"#))
    }

    @Test("A running timer, a paused one and an alerting one")
    func timers() {
        let running = AlarmRecord(
            id: id, owner: "user", definition: Fixtures.timer(300, title: "Tea"),
            phase: .countdown(.init(kind: .preAlert, endsAt: reading.elapsedDeadline(after: 120), duration: 300)),
            anchor: reading.now)
        #expect(
            AlarmDescription(running, at: reading).json() == """
                {"countdown":{"preAlert":300},"fireDate":"2026-11-21T10:02:00Z","id":"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",\
                "kind":"timer","remaining":120,"sound":"default","state":"countdown","title":"Tea"}
                """)
        var paused = running
        paused.phase = .paused(.init(kind: .preAlert, remaining: 42.5, duration: 300))
        #expect(AlarmDescription(paused, at: reading).json().contains(#""remaining":42.5,"sound":"default","state":"paused""#))
        #expect(!AlarmDescription(paused, at: reading).json().contains("fireDate"))
        var alerting = running
        alerting.phase = .alerting(.init(scheduledAt: reading.now, startedAt: reading.now, timesOutAt: nil))
        #expect(!AlarmDescription(alerting, at: reading).json().contains("remaining"))
        #expect(AlarmDescription(alerting, at: reading).json().contains(#""state":"alerting""#))
    }

    @Test("The JSON reads back into the same description")
    func roundTrip() throws {
        let record = AlarmRecord(
            id: id, owner: "user", definition: Fixtures.definition(Fixtures.clockTime(7, 30, on: [.sunday])),
            phase: .scheduled(alertAt: Fixtures.instant("2026-11-22T07:30:00Z")), anchor: reading.now)
        let description = AlarmDescription(record, at: reading)
        let decoded = try JSONDecoder().decode(AlarmDescription.self, from: Data(description.json().utf8))
        #expect(decoded == description)
    }
}
