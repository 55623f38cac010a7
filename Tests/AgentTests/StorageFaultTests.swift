import AlarmCore
import AlarmKit
import DBus
import Foundation
import Testing
import TestSupport

/// The store failing under the agent: a clear error, nothing half-written, and the agent serving on.
@Suite("Agent: storage faults", .serialized, .enabled(if: Built.unavailable == nil, "\(Built.unavailable ?? "")"))
struct StorageFaultTests {
    @Test("The disk fills up (file-size limit): Schedule fails with StorageFailed, list still answers, nothing is lost or half-written")
    func diskFull() async throws {
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        // The agent's files may not grow past 1 MiB: the store's writes fail as on a full disk.
        let limited = try sandbox.spawn("/bin/sh", ["-c", "ulimit -f 1024; exec \"$0\" --silent", Built.path("reveilled")])
        try await offPool { try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }
        try await fixture.authorizeTestProcess()
        let client = try fixture.client()
        defer { client.connection.close() }

        var acknowledged: [UUID] = []
        var failure: AgentClientError?
        let far = Date().addingTimeInterval(30 * 86_400)
        let title = String(repeating: "A long title to fill the disk sooner. ", count: 20)
        for index in 0..<5_000 {
            let id = UUID()
            do {
                _ = try await client.schedule(id: id, definition: Fixtures.definition(.fixed(far.addingTimeInterval(Double(index))), title: title))
                acknowledged.append(id)
            } catch let error as AgentClientError {
                failure = error
                break
            }
        }
        let error = try #require(failure, "5,000 alarms fitted in 1 MiB")
        #expect(error.name == "io.github.reveille.Alarms1.Error.StorageFailed", "\(error.name): \(error.message)")
        #expect(error.message.contains("could not be stored"), "\(error.message)")
        #expect(acknowledged.count > 10)

        // The agent serves on: it lists exactly what it acknowledged, and says why in its log.
        #expect(limited.isRunning)
        let listed = try await client.list().map(\.alarm.id)
        #expect(Set(listed) == Set(acknowledged))
        let status = try await fixture.reveille("status")
        #expect(status.status == .exited(0), "\(status)")
        #expect(limited.standardError.contains("A change could not be stored; nothing changed"), "\(limited.standardError.suffix(2_000))")

        // Restarted with room: every acknowledged alarm is there, and the refused one is not.
        limited.terminate()
        _ = try await limited.waitForExit(timeout: .seconds(30))
        let restarted = try sandbox.spawn(Built.path("reveilled"), ["--silent"])
        defer { restarted.terminate() }
        try await offPool { try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }
        let afterRestart = try await fixture.reveille("list", "--json")
        let ids = try JSONDecoder().decode([AlarmDescription].self, from: Data(afterRestart.output.utf8)).map(\.id)
        #expect(Set(ids) == Set(acknowledged.map { $0.uuidString.lowercased() }))
        #expect(try await fixture.reveille("timer", "5m").status == .exited(0))
    }

    @Test("A read-only data folder: the agent says which folder and why, and stops; nothing in it changes")
    func readOnlyFolder() async throws {
        let chattr = try #require(Executables.find("chattr"), "chattr (e2fsprogs) makes a folder read-only even for root")
        let fixture = try await AgentFixture.start(agentArguments: ["--silent"])
        defer { fixture.stop() }
        let folder = fixture.sandbox.dataHome.appendingPathComponent("reveille").path
        var kept: [UUID] = []
        for duration in ["10m", "20m"] {
            let added = try await fixture.reveille("timer", duration)
            #expect(added.status == .exited(0), "\(added)")
            kept.append(try #require(UUID(uuidString: added.line), "\(added)"))
        }
        let agent = try #require(fixture.agent)
        agent.terminate()
        #expect(try await agent.waitForExit(timeout: .seconds(30)) == .exited(0))
        // Immutable (chattr +i): nothing in the folder may be written, created or removed, as on a
        // read-only mount; tests run as root, for whom permissions alone would not do.
        let locked = try await fixture.run(chattr, ["-R", "+i", folder])
        guard locked.status == .exited(0) else {
            Issue.record("chattr +i is not supported here: \(locked)")
            return
        }
        defer { _ = try? fixture.sandbox.run(chattr, ["-R", "-i", folder]) }
        let readOnly = try fixture.sandbox.spawn(Built.path("reveilled"), ["--silent"])
        let status = try await readOnly.waitForExit(timeout: .seconds(30))
        #expect(status != .exited(0), "\(readOnly.outputs())")
        #expect(readOnly.standardError.contains("the alarm store's folder \(folder) cannot be used"), "\(readOnly.outputs())")
        #expect(readOnly.standardError.contains("Operation not permitted"), "\(readOnly.outputs())")
        // Writable again: a restart finds exactly what was acknowledged, and stores changes again.
        #expect(try await fixture.run(chattr, ["-R", "-i", folder]).status == .exited(0))
        let restarted = try fixture.sandbox.spawn(Built.path("reveilled"), ["--silent"])
        defer { restarted.terminate() }
        try await offPool { try fixture.sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }
        let relisted = try await fixture.reveille("list", "--json")
        let after = try JSONDecoder().decode([AlarmDescription].self, from: Data(relisted.output.utf8)).compactMap { UUID(uuidString: $0.id) }
        #expect(Set(after) == Set(kept))
        #expect(try await fixture.reveille("timer", "40m").status == .exited(0))
    }
}
