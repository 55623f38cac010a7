import AlarmCore
import AlarmProtocol
import AlarmModel
import AlarmKit
import Foundation
import Synchronization
import Testing
import TestRequirements
import TestSupport

/// The live list (`alarmUpdates`, `reveille watch`) never drifts from the agent: a countdown's end
/// is fixed when its alarm arrives, so a list shown again later, or after another alarm changed,
/// still ends each countdown when the agent does. (It used to be re-based on every change from the
/// `remaining` each alarm last arrived with: a timer left alone moved later by the time since.)
@Suite("Agent: the live list does not drift", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(10)))
struct ListDriftTests {
    @Test(
        "Random timers scheduled, cancelled, paused and resumed: each countdown in a watcher's list ends when the agent says, within 0.5 s")
    func watcherAgreesWithTheAgent() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let client = try fixture.client()
        let watcher = try fixture.client()
        let latest = LatestList()
        let following = Task { for await list in watcher.updates() { latest.store(list) } }
        defer {
            following.cancel()
            watcher.connection.close()
            client.connection.close()
        }
        let seed = SeededGenerator.seedFromEnvironment()
        print("ListDriftTests: seed \(seed) (replay: REVEILLE_FUZZ_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        var timers: [UUID] = []
        var worst = 0.0
        var operations: [String: Int] = [:]
        for step in 0..<30 {
            // Time passes between changes: a list re-based from an old `remaining` is off by it.
            try await Task.sleep(for: .milliseconds(Int.random(in: 100...500, using: &random)))
            let agentBefore = try await client.list()
            let running = agentBefore.filter { $0.alarm.state == .countdown }.map(\.id)
            let paused = agentBefore.filter { $0.alarm.state == .paused }.map(\.id)
            switch Int.random(in: 0..<4, using: &random) {
            case 1 where !timers.isEmpty:
                let id = timers.remove(at: Int.random(in: timers.indices, using: &random))
                try await client.cancel(id: id)
                operations["cancel", default: 0] += 1
            case 2 where !running.isEmpty:
                try await client.pause(id: running.randomElement(using: &random)!)
                operations["pause", default: 0] += 1
            case 3 where !paused.isEmpty:
                try await client.resume(id: paused.randomElement(using: &random)!)
                operations["resume", default: 0] += 1
            default:
                let id = UUID()
                _ = try await client.schedule(
                    id: id, definition: Fixtures.timer(Double(Int.random(in: 600...3_600, using: &random)), title: "T\(step)"))
                timers.append(id)
                operations["schedule", default: 0] += 1
            }
            let agent = try await client.list()
            let shown = try await waitUntil(
                "the watcher's list to show step \(step)", timeout: .seconds(10), detail: { "\(latest.list ?? [])" }
            ) {
                latest.list.flatMap { Self.states($0) == Self.states(agent) ? $0 : nil }
            }
            let now = ClockReading.local()
            for theirs in agent where theirs.alarm.state == .countdown {
                guard let mine = shown.first(where: { $0.id == theirs.id }) else { continue }
                let agentSays = theirs.record(at: now).remaining(from: now) ?? 0
                let watcherShows = mine.record(at: now).remaining(from: now) ?? 0
                worst = max(worst, abs(agentSays - watcherShows))
                #expect(
                    abs(agentSays - watcherShows) < 0.5,
                    "step \(step): \(theirs.definition.title) ends in \(agentSays) s, the watcher shows \(watcherShows) s")
            }
        }
        print("ListDriftTests: \(operations.sorted { $0.key < $1.key }); largest gap \(worst) s")
    }

    /// Each alarm's id and state, in order.
    static func states(_ list: [AlarmWire.RemoteAlarm]) -> [String] {
        list.map { "\($0.id) \($0.alarm.state)" }.sorted()
    }
}

/// The latest list a watcher was handed.
private final class LatestList: Sendable {
    private let value = Mutex<[AlarmWire.RemoteAlarm]?>(nil)
    var list: [AlarmWire.RemoteAlarm]? { value.withLock { $0 } }
    func store(_ list: [AlarmWire.RemoteAlarm]) { value.withLock { $0 = list } }
}
