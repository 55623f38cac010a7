import AlarmKit
import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

/// `Watch`'s promise, against the real agent under a burst of changes: a client that applies, on
/// top of the list it got, the `AlarmsChanged` signals sent after the reply (by serial) misses
/// nothing and goes back in nothing. A reply that overtook a signal it already includes, or fell
/// behind one it does not, breaks it (as it did when replies and signals were handed to a thread
/// of their own and `Watch`'s reply was not: "v38 after v38").
@Suite("Agent: Watch's reply and AlarmsChanged in order", .onItsOwnThread, .requires(Built.unavailable))
struct ListOrderTests {
    @Test(
        "8 alarms each replaced 150 times at once, 40 other watchers, while 12 clients call Watch in turn: after each reply, every signal holds newer alarms than the list and than the signal before, and the last holds the last changes",
        .timeLimit(.minutes(3)))
    func watchDuringABurst() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let ids = (0..<8).map { _ in UUID() }
        let changes = 150
        func definition(_ version: Int) -> AlarmDefinition {
            Fixtures.definition(.fixed(Date(timeIntervalSince1970: 4_000_000_000)), title: "v\(version)")
        }
        let writers = try ids.map { _ in try fixture.client() }
        // Many watchers make each change's AlarmsChanged many messages to send, so that any
        // reordering of replies and signals has time to show (as on a desktop full of apps).
        let bystanders = try (0..<40).map { _ in try fixture.client().connection }
        for bystander in bystanders {
            _ = try await bystander.call(try Self.watchCall())
        }
        defer { for bystander in bystanders { bystander.close() } }
        for (id, writer) in zip(ids, writers) { _ = try await writer.schedule(id: id, definition: definition(0)) }

        // Each alarm has a writer of its own, so that changes queue up; each client joins once
        // the first writer has made its share of the changes.
        let (progress, reached) = AsyncStream.makeStream(of: Int.self)
        let joiners = 12
        let writing = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, (id, writer)) in zip(ids, writers).enumerated() {
                    group.addTask {
                        for version in 1...changes {
                            _ = try await writer.schedule(id: id, definition: definition(version))
                            if index == 0, version % (changes / joiners) == 0 { reached.yield(version) }
                        }
                    }
                }
                try await group.waitForAll()
            }
            reached.finish()
        }
        var watches: [Task<[String], any Error>] = []
        for await _ in progress where watches.count < joiners {
            let connection = try fixture.client().connection
            watches.append(Task { try await Self.follow(ids, until: changes, on: connection) })
        }
        try await writing.value
        for (index, watch) in watches.enumerated() {
            let problems = try await watch.value
            #expect(problems.isEmpty, "client \(index): \(problems)")
        }
    }

    /// The manager's `Watch` call: its reply's serial splits the signals already in the list from
    /// those after it.
    static func watchCall() throws -> DBusMessage {
        try DBusMessage.methodCall(
            destination: AgentClient.busName, path: AgentClient.managerPath, interface: AgentClient.managerInterface, method: "Watch")
    }

    /// Calls `Watch` and follows each alarm's title (`v<n>`) in the signals sent after the reply,
    /// until every alarm reads `v<last>`; returns each time an alarm's title was not newer than
    /// the one before it.
    static func follow(_ ids: [UUID], until last: Int, on connection: DBusConnection) async throws -> [String] {
        let signals = connection.signals(
            MatchRule(
                sender: AgentClient.busName, path: AgentClient.managerPath, interface: AgentClient.managerInterface, member: "AlarmsChanged"
            ))
        let reply = try await connection.call(try watchCall())
        let names = Dictionary(uniqueKeysWithValues: ids.map { ($0.lowercasedText(), $0) })
        func versions(in alarms: [DBusValue]) -> [(UUID, Int)] {
            alarms.compactMap(\.dictionaryValue).compactMap { alarm in
                guard let id = alarm["id"]?.stringValue.flatMap({ names[$0] }),
                    let version = alarm["title"]?.stringValue.flatMap({ Int($0.dropFirst()) })
                else { return nil }
                return (id, version)
            }
        }
        var problems: [String] = []
        var seen = Dictionary(uniqueKeysWithValues: ids.map { ($0, -1) })
        for (id, version) in versions(in: reply.arguments.first?.arrayValue ?? []) { seen[id] = version }
        if seen.values.allSatisfy({ $0 == last }) { return problems }
        for await signal in signals {
            // Signals sent before the reply are in the list already.
            guard signal.sender == reply.sender, signal.serial > reply.serial else { continue }
            for (id, version) in versions(in: signal.arguments.first?.arrayValue ?? []) {
                if version <= seen[id]! { problems.append("\(id): v\(version) after v\(seen[id]!)") }
                seen[id] = version
            }
            if seen.values.allSatisfy({ $0 == last }) { return problems }
        }
        problems.append("the signals ended before every alarm reached v\(last): \(seen.values.sorted())")
        return problems
    }
}
