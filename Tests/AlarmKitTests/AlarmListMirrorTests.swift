import AlarmCore
import AlarmProtocol
import AlarmModel
import AlarmRecords
@testable import AlarmKit
import DBus
import Foundation
import Synchronization
import Testing
import TestRequirements
import TestSupport

/// `AlarmListMirror`: a list, then the agent's signals on top of it, split by the reply's serial.
@Suite("AlarmKit: the list a subscriber keeps", .onItsOwnThread)
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

    @Test("An alarm's id follows its alarm: set on creation, changed with it, and a copy keeps its own")
    func idFollowsAlarm() {
        let (a, b) = (UUID(), UUID())
        let original = Self.alarm(a)
        var copy = original
        #expect(copy.id == a && copy.alarm.id == a)
        copy.alarm = Self.alarm(b).alarm
        #expect(copy.id == b && copy.alarm.id == b)
        #expect(original.id == a && original.alarm.id == a, "the original is as it was")
        #expect(copy != original)
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

    @Test(
        "The list is always in id order, whatever order the alarms were listed, added and removed in; an id listed twice keeps its last entry"
    )
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

    @Test("AlarmsChanged reads as its removals, then its alarms, in order; any other or malformed signal reads as nothing")
    func alarmsChanged() throws {
        let reading = ClockReading(
            now: Date(timeIntervalSince1970: 1_900_000_000), uptime: .seconds(100), bootID: "boot", timeZone: .utc)
        func record(_ title: String) -> AlarmRecord {
            AlarmRecord(
                id: UUID(), owner: "app", definition: Fixtures.definition(.fixed(Date(timeIntervalSince1970: 2_000_000_000)), title: title),
                phase: .scheduled(alertAt: Date(timeIntervalSince1970: 2_000_000_000)), anchor: reading.now)
        }
        let (first, second, gone) = (record("First"), record("Second"), UUID())
        func signal(_ arguments: [DBusValue], name: String = "AlarmsChanged", path: String = AgentClient.managerPath) throws -> DBusMessage
        {
            try DBusMessage.signal(path: path, interface: AgentClient.managerInterface, name: name, arguments: arguments)
        }
        let alarms = DBusValue.array(
            elementSignature: "a{sv}", [first, second].map { AlarmWire.encode($0, at: reading, summary: true) })
        let removed = DBusValue.strings([gone.lowercasedText()])
        let changes = try #require(AlarmListMirror.changes(in: try signal([alarms, removed])))
        #expect(
            changes == [
                .remove(gone),
                .set(try AlarmWire.decodeAlarm(AlarmWire.encode(first, at: reading, summary: true))),
                .set(try AlarmWire.decodeAlarm(AlarmWire.encode(second, at: reading, summary: true))),
            ])

        #expect(AlarmListMirror.changes(in: try signal([alarms, removed], name: "AuthorizationChanged")) == nil)
        #expect(AlarmListMirror.changes(in: try signal([alarms, removed], path: AgentClient.managerPath + "/alarm/x")) == nil)
        #expect(AlarmListMirror.changes(in: try signal([alarms])) == nil, "one argument")
        #expect(AlarmListMirror.changes(in: try signal([alarms, .strings(["not an id"])])) == nil)
        let broken = DBusValue.array(elementSignature: "a{sv}", [.dictionary(["id": .string("x")])])
        #expect(AlarmListMirror.changes(in: try signal([broken, .strings([])])) == nil, "an alarm that does not read")
    }

    @Test("A signal's changes apply together under its serial: all when newer than the list, none when older")
    func batch() {
        let (a, b, c) = (UUID(), UUID(), UUID())
        var mirror = AlarmListMirror()
        mirror.listed([Self.alarm(a), Self.alarm(b)], sender: Self.agent, serial: 10)
        let older = mirror.received([.remove(a), .set(Self.alarm(c))], sender: Self.agent, serial: 9)
        #expect(!older, "older than the list")
        #expect(mirror.list.map(\.id) == [a, b].sorted())
        let newer = mirror.received([.remove(a), .set(Self.alarm(b, .alerting)), .set(Self.alarm(c))], sender: Self.agent, serial: 11)
        #expect(newer)
        #expect(mirror.list == [Self.alarm(b, .alerting), Self.alarm(c)].sorted { $0.id < $1.id })
        let same = mirror.received([.remove(a), .set(Self.alarm(c))], sender: Self.agent, serial: 12)
        #expect(!same, "nothing new")
        let back = mirror.received([.remove(a), .set(Self.alarm(a, title: "again"))], sender: Self.agent, serial: 13)
        #expect(back)
        #expect(mirror.list.map(\.id) == [a, b, c].sorted())
    }

    @Test("A signal's changes applied together end as the same list, and report the same, as applied one by one")
    func wholeSignalAsOneByOne() {
        var generator = SeededGenerator(seed: 26)
        let pool = (0..<40).map { _ in UUID() }
        var whole = AlarmListMirror()
        var oneByOne = AlarmListMirror()
        let start = pool.prefix(10).map { Self.alarm($0) }
        whole.listed(start, sender: Self.agent, serial: 1)
        oneByOne.listed(start, sender: Self.agent, serial: 1)
        for serial in UInt32(2)..<400 {
            // Mostly signals that only set alarms, each once (applied together); some with a
            // removal or an alarm set twice (applied one by one).
            var changes: [AlarmListMirror.Change] = (0..<Int.random(in: 0...8, using: &generator)).map { _ in
                let id = pool.randomElement(using: &generator)!
                return .set(Self.alarm(id, Bool.random(using: &generator) ? .scheduled : .alerting, title: "\(serial)"))
            }
            if Int.random(in: 0..<5, using: &generator) == 0 { changes.append(.remove(pool.randomElement(using: &generator)!)) }
            let shownWhole = whole.received(changes, sender: Self.agent, serial: serial)
            var shownOneByOne = false
            for change in changes where oneByOne.received(Self.signal(change, serial: serial)) { shownOneByOne = true }
            #expect(shownWhole == shownOneByOne, "signal \(serial)")
            #expect(whole.list == oneByOne.list, "signal \(serial)")
            #expect(zip(whole.list, whole.list.dropFirst()).allSatisfy { $0.id.precedes($1.id) }, "in id order")
        }
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

/// `AlarmListFeed`: what the reader of `updates()` is handed while changes stream in.
@Suite("AlarmKit: lists while alarms change in quick succession", .onItsOwnThread)
struct AlarmListFeedTests {
    static func alarm(_ id: UUID) -> AlarmWire.RemoteAlarm { AlarmListMirrorTests.alarm(id) }

    @Test(
        "A burst of 2,000 changes: lists at most once per interval, each holding the last, the final one with every alarm",
        .timeLimit(.minutes(2)))
    func paced() async throws {
        let interval = Duration.milliseconds(30)
        let feed = AlarmListFeed(interval: interval)
        feed.update { $0.listed([], sender: AlarmListMirrorTests.agent, serial: 1) }
        let ids = (0..<2_000).map { _ in UUID() }
        let started = ContinuousClock.now
        let producer = Task {
            for (number, id) in ids.enumerated() {
                feed.update {
                    $0.received(.init(change: .set(Self.alarm(id)), sender: AlarmListMirrorTests.agent, serial: UInt32(number + 2)))
                }
                if number % 20 == 19 { try? await Task.sleep(for: .milliseconds(1)) }
            }
        }
        var lists: [[UUID]] = []
        while lists.last?.count != ids.count {
            let list = try #require(await feed.next())
            lists.append(list.map(\.alarm.id))
        }
        let lastHanded = ContinuousClock.now
        await producer.value

        #expect(Set(lists.last ?? []) == Set(ids), "the final list holds every alarm")
        for (earlier, later) in zip(lists, lists.dropFirst()) {
            #expect(Set(earlier).isSubset(of: Set(later)), "alarms were only added, so no list lacks one the one before had")
        }
        // Lists are handed at least `interval` apart, so no more can come in the time taken.
        let bound = Int((lastHanded - started) / interval) + 1
        #expect(lists.count <= bound, "\(lists.count) lists in \(lastHanded - started), at most one per \(interval)")
        #expect(lists.count < ids.count / 10, "far fewer lists than changes: \(lists.count)")
    }

    @Test("After a quiet spell longer than the interval a change is handed over without waiting", .timeLimit(.minutes(1)))
    func quietSpell() async throws {
        // An hour's interval: had the reader to wait it out, the test would run out of time.
        let clock = Mutex(ContinuousClock.now)
        let feed = AlarmListFeed(interval: .seconds(3_600), now: { clock.withLock { $0 } })
        let (a, b) = (UUID(), UUID())
        feed.update { $0.listed([Self.alarm(a)], sender: AlarmListMirrorTests.agent, serial: 1) }
        #expect(try #require(await feed.next()).map(\.alarm.id) == [a], "the first list at once")
        clock.withLock { $0 += .seconds(7_200) }  // two hours pass with no change
        feed.update { $0.received(.init(change: .set(Self.alarm(b)), sender: AlarmListMirrorTests.agent, serial: 2)) }
        #expect(try #require(await feed.next()).map(\.alarm.id).sorted() == [a, b].sorted())
    }

    @Test("Ending the feed ends a reader waiting out the interval")
    func finishWhileWaiting() async throws {
        let feed = AlarmListFeed(interval: .milliseconds(200))
        feed.update { $0.listed([], sender: AlarmListMirrorTests.agent, serial: 1) }
        _ = try #require(await feed.next())
        feed.update { $0.received(.init(change: .set(Self.alarm(UUID())), sender: AlarmListMirrorTests.agent, serial: 2)) }
        feed.finish()
        #expect(await feed.next() == nil, "once finished, the reader gets nil, not the pending list")
    }
}
