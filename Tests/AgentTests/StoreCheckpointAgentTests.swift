import AlarmCore
import AlarmModel
import AlarmKit
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The agent's store log: no call waits on a checkpoint; the log is folded in once changes pause.
@Suite("Agent: store checkpoints", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
struct StoreCheckpointAgentTests {
    @Test("A second after the last change the agent has folded its log into the database, which holds every alarm")
    func foldsWhenChangesPause() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let client = try fixture.client()
        defer { client.connection.close() }
        let database = fixture.sandbox.dataHome.appendingPathComponent("reveille/\(AlarmStore.fileName)").path
        func size(_ path: String) -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1 }

        let far = Date().addingTimeInterval(30 * 86_400)
        var ids: Set<UUID> = []
        for index in 0..<50 {
            let id = UUID()
            _ = try await client.schedule(
                id: id, definition: Fixtures.definition(.fixed(far.addingTimeInterval(Double(index))), title: "Fold \(index)"))
            ids.insert(id)
        }
        // Straight after the calls, their changes are in the log (committed, acknowledged).
        #expect(size(database + "-wal") > 0)
        try await waitUntil("the log folded in (TRUNCATE empties it)", timeout: .seconds(10)) {
            size(database + "-wal") == 0 ? true : nil
        }
        // The database alone, read without its log, holds every alarm.
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-folded-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.copyItem(atPath: database, toPath: copy.appendingPathComponent(AlarmStore.fileName).path)
        let stored = try AlarmStore(directory: copy).loadAlarms()
        #expect(Set(stored.map(\.id)) == ids)
    }
}
