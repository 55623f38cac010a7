import AlarmCore
@testable import AlarmKit
import Foundation
import Testing
import TestSupport

/// `AlarmListMirror`: a list, then the agent's signals on top of it, split by the reply's serial.
@Suite("AlarmKit: the list a subscriber keeps")
struct AlarmListMirrorTests {
    static let agent = ":1.5"

    static func alarm(_ id: UUID, _ state: Alarm.State = .scheduled, title: String = "A") -> AlarmWire.RemoteAlarm {
        let definition = Fixtures.definition(.fixed(Date(timeIntervalSince1970: 2_000_000_000)), title: title)
        return AlarmWire.RemoteAlarm(
            alarm: Alarm(id: id, schedule: definition.schedule, countdownDuration: definition.countdownDuration, state: state),
            definition: definition, owner: "", fireDate: nil, remaining: nil, countdownTotal: nil,
            alertScheduledAt: nil, alertStartedAt: nil)
    }

    static func signal(_ change: AlarmListMirror.Change, serial: UInt32, sender: String = agent) -> AlarmListMirror.Signal {
        .init(change: change, sender: sender, serial: serial)
    }

    @Test("Signals that come before the list wait for it; only those sent after the reply are applied")
    func earlySignals() {
        let (a, b, c) = (UUID(), UUID(), UUID())
        var mirror = AlarmListMirror()
        var shown = mirror.received(Self.signal(.set(Self.alarm(a)), serial: 10))  // already in the list
        shown = mirror.received(Self.signal(.set(Self.alarm(c)), serial: 12)) || shown  // after the reply
        shown = mirror.received(Self.signal(.remove(b), serial: 13)) || shown  // after the reply
        #expect(!shown, "nothing is shown before the list")
        #expect(!mirror.hasList)
        mirror.listed([Self.alarm(a), Self.alarm(b)], sender: Self.agent, serial: 11)
        #expect(mirror.list.map(\.alarm.id).sorted() == [a, c].sorted())
    }

    @Test("The list is always in id order, whatever order the alarms were listed, added and removed in; an id listed twice keeps its last entry")
    func keptInOrder() {
        var generator = SeededGenerator(seed: 7)
        let ids = (0..<200).map { _ in UUID() }
        var mirror = AlarmListMirror()
        var expected: [UUID: AlarmWire.RemoteAlarm] = [:]
        var listed: [AlarmWire.RemoteAlarm] = []
        for id in ids.prefix(100).shuffled(using: &generator) {
            listed.append(Self.alarm(id, title: "first"))
            expected[id] = listed.last
        }
        listed.append(Self.alarm(ids[0], title: "listed again"))
        expected[ids[0]] = listed.last
        mirror.listed(listed, sender: Self.agent, serial: 1)
        var serial: UInt32 = 1
        for _ in 0..<600 {
            serial += 1
            let id = ids.randomElement(using: &generator)!
            if Bool.random(using: &generator) {
                let alarm = Self.alarm(id, title: "t\(serial)")
                let shown = mirror.received(Self.signal(.set(alarm), serial: serial))
                #expect(shown)
                expected[id] = alarm
            } else {
                let shown = mirror.received(Self.signal(.remove(id), serial: serial))
                #expect(shown == (expected.removeValue(forKey: id) != nil))
            }
        }
        #expect(mirror.list == expected.keys.sorted().map { expected[$0]! })
    }

    @Test("After the list: older serials and other senders are dropped; newer ones apply in order")
    func afterList() {
        let (a, b) = (UUID(), UUID())
        var mirror = AlarmListMirror()
        mirror.listed([Self.alarm(a)], sender: Self.agent, serial: 20)
        let older = mirror.received(Self.signal(.remove(a), serial: 19))
        let otherSender = mirror.received(Self.signal(.remove(a), serial: 30, sender: ":1.9"))
        #expect(!older && !otherSender)
        let alerting = mirror.received(Self.signal(.set(Self.alarm(a, .alerting)), serial: 21))
        let again = mirror.received(Self.signal(.set(Self.alarm(a, .alerting)), serial: 22))
        #expect(alerting && !again, "the same alarm again changes nothing")
        let added = mirror.received(Self.signal(.set(Self.alarm(b)), serial: 23))
        let removed = mirror.received(Self.signal(.remove(a), serial: 24))
        #expect(added && removed)
        #expect(mirror.list.map(\.alarm.id) == [b])
    }

    @Test("When the agent starts again, its signals wait for its list; the old agent's are dropped")
    func restart() {
        let (a, b) = (UUID(), UUID())
        var mirror = AlarmListMirror()
        mirror.listed([Self.alarm(a)], sender: Self.agent, serial: 5)
        mirror.agentRestarted()
        let late = mirror.received(Self.signal(.remove(a), serial: 6))  // the old agent, late
        let early = mirror.received(Self.signal(.set(Self.alarm(b, title: "new")), serial: 9, sender: ":1.8"))
        #expect(!late && !early)
        #expect(mirror.list.map(\.alarm.id) == [a], "the last list stays shown until the new one")
        mirror.listed([Self.alarm(a), Self.alarm(b)], sender: ":1.8", serial: 8)
        #expect(mirror.list.map(\.definition.title).sorted() == ["A", "new"])
    }
}
