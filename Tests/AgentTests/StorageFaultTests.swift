import AlarmCore
import CommandLineText
import AlarmModel
import AlarmKit
import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The store failing under the agent: a clear error, nothing half-written, and the agent serving on.
@Suite("Agent: storage faults", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
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
                _ = try await client.schedule(
                    id: id, definition: Fixtures.definition(.fixed(far.addingTimeInterval(Double(index))), title: title))
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
        let restarted = try await fixture.restart(limited, arguments: ["--silent"])
        defer { restarted.terminate() }
        let afterRestart = try await fixture.reveille("list", "--json")
        let ids = try JSONDecoder().decode([AlarmDescription].self, from: Data(afterRestart.output.utf8)).map(\.id)
        #expect(Set(ids) == Set(acknowledged.map { $0.uuidString.lowercased() }))
        #expect(try await fixture.reveille("timer", "5m").status == .exited(0))
    }

    /// How the agent before the read-only one ended: cleanly (SQLite folds its write-ahead log
    /// back and removes it), or killed (the log, with content, and its `-shm` stay).
    enum Ending: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case terminated, killed
        var testDescription: String { rawValue }
    }

    @Test(
        "A read-only data folder holding a database: the agent lists and rings its alarms, refuses changes naming why, writes nothing; writable again, a restart stores changes",
        arguments: Ending.allCases)
    func readOnlyFolder(ending: Ending) async throws {
        let chattr = try #require(Executables.find("chattr"), "chattr (e2fsprogs) makes a folder read-only even for root")
        let fixture = try await AgentFixture.start(agentArguments: ["--silent"])
        defer { fixture.stop() }
        let folder = fixture.sandbox.dataHome.appendingPathComponent("reveille").path
        var kept: [UUID] = []
        for duration in ["10m", "20m", "8s"] {
            let added = try await fixture.reveille("timer", duration)
            #expect(added.status == .exited(0), "\(added)")
            kept.append(try #require(UUID(uuidString: added.line), "\(added)"))
        }
        let ringing = kept[2]
        let agent = try #require(fixture.agent)
        switch ending {
        case .terminated:
            agent.terminate()
            #expect(try await agent.waitForExit(timeout: .seconds(30)) == .exited(0))
            #expect(!FileManager.default.fileExists(atPath: folder + "/alarms.sqlite-wal"), "a clean stop folds the log back")
        case .killed:
            agent.kill()
            _ = try await agent.waitForExit(timeout: .seconds(30))
            let log = try FileManager.default.attributesOfItem(atPath: folder + "/alarms.sqlite-wal")[.size] as? Int
            #expect((log ?? 0) > 0, "a killed agent leaves its write-ahead log")
        }
        // Immutable (chattr +i): nothing in the folder may be written, created or removed, as on a
        // read-only mount; tests run as root, for whom permissions alone would not do.
        let locked = try await fixture.run(chattr, ["-R", "+i", folder])
        guard locked.status == .exited(0) else {
            Issue.record("chattr +i is not supported here: \(locked)")
            return
        }
        defer { _ = try? fixture.sandbox.run(chattr, ["-R", "-i", folder]) }
        let before = try Self.contents(of: folder)

        let readOnly = try fixture.sandbox.spawn(Built.path("reveilled"), ["--silent"])
        try await offPool { try fixture.sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }
        #expect(readOnly.standardError.contains("The alarm store is read-only"), "\(readOnly.outputs())")
        let listed = try await fixture.listedAlarms()
        #expect(Set(listed.compactMap { UUID(uuidString: $0.id) }) == Set(kept), "\(listed)")

        let status = try await fixture.reveille("status", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any], "\(status)")
        #expect(object["storeWritable"] as? Bool == false, "\(status)")
        let reason = try #require(object["storeReadOnlyReason"] as? String, "\(status)")
        #expect(reason.contains(folder) && reason.contains("Operation not permitted"), "\(reason)")
        let text = try await fixture.reveille("status")
        #expect(text.output.contains("(read-only: \(folder)"), "\(text)")

        // Changes are refused, with why, and nothing changes.
        let added = try await fixture.reveille("timer", "5m")
        #expect(added.status != .exited(0), "\(added)")
        #expect(added.error.contains("could not be stored") && added.error.contains("read-only"), "\(added)")
        let cancelled = try await fixture.reveille("cancel", kept[0].uuidString)
        #expect(cancelled.status != .exited(0), "\(cancelled)")
        #expect(Set(try await fixture.listedAlarms().compactMap { UUID(uuidString: $0.id) }) == Set(kept))

        // The short timer still rings.
        try await AlertingTests.waitForState("alerting", of: ringing, in: fixture)
        #expect(try Self.contents(of: folder) == before, "nothing in the folder was written")
        readOnly.terminate()
        #expect(try await readOnly.waitForExit(timeout: .seconds(30)) == .exited(0), "\(readOnly.outputs())")

        // Writable again: a restart finds exactly what was acknowledged, and stores changes again.
        #expect(try await fixture.run(chattr, ["-R", "-i", folder]).status == .exited(0))
        let restarted = try fixture.sandbox.spawn(Built.path("reveilled"), ["--silent"])
        defer { restarted.terminate() }
        try await offPool { try fixture.sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }
        let after = try await fixture.listedAlarms().compactMap { UUID(uuidString: $0.id) }
        #expect(Set(after) == Set(kept))
        #expect(try await fixture.reveille("timer", "40m").status == .exited(0))
    }

    @Test(
        "The data folder made immutable under the running agent: changes are refused naming the failure, the agent serves on; writable again, changes are stored"
    )
    func folderMadeImmutableWhileRunning() async throws {
        let chattr = try #require(Executables.find("chattr"), "chattr (e2fsprogs) makes a folder read-only even for root")
        let fixture = try await AgentFixture.start(agentArguments: ["--silent"])
        defer { fixture.stop() }
        let agent = try #require(fixture.agent)
        let folder = fixture.sandbox.dataHome.appendingPathComponent("reveille").path
        var kept: [UUID] = []
        for duration in ["10m", "20m"] {
            let added = try await fixture.reveille("timer", duration)
            #expect(added.status == .exited(0), "\(added)")
            kept.append(try #require(UUID(uuidString: added.line), "\(added)"))
        }
        let ringing = try #require(UUID(uuidString: try await fixture.reveille("timer", "1s").line))
        try await AlertingTests.waitForState("alerting", of: ringing, in: fixture)
        // The write-ahead log's index is in the agent's memory: no memory-mapped -shm to fault on.
        #expect(!FileManager.default.fileExists(atPath: folder + "/alarms.sqlite-shm"))
        let locked = try await fixture.run(chattr, ["-R", "+i", folder])
        guard locked.status == .exited(0) else {
            Issue.record("chattr +i is not supported here: \(locked)")
            return
        }
        defer { _ = try? fixture.sandbox.run(chattr, ["-R", "-i", folder]) }

        let added = try await fixture.reveille("timer", "5m")
        #expect(added.status != .exited(0), "\(added)")
        #expect(added.error.contains("could not be stored"), "\(added)")
        let cancelled = try await fixture.reveille("cancel", kept[0].uuidString)
        #expect(cancelled.status != .exited(0), "\(cancelled)")
        // A ringing alarm can always be stopped: it falls silent, and the caller hears that its end
        // was not stored.
        let stopped = try await fixture.reveille("stop", ringing.uuidString)
        #expect(stopped.status != .exited(0), "\(stopped)")
        #expect(stopped.error.contains("the alert was silenced, but its end could not be stored"), "\(stopped)")
        #expect(agent.standardError.contains("An alert was silenced, but its end could not be stored"))
        #expect(Set(try await fixture.listedAlarms().compactMap { UUID(uuidString: $0.id) }) == Set(kept))
        #expect(ProcessTable.isRunning(agent.pid), "the agent died: \(agent.outputs())")

        #expect(try await fixture.run(chattr, ["-R", "-i", folder]).status == .exited(0))
        let later = try await fixture.reveille("timer", "40m")
        #expect(later.status == .exited(0), "\(later)")
        #expect(try await fixture.listedAlarms().count == 3)
        #expect(ProcessTable.isRunning(agent.pid), "the agent died: \(agent.outputs())")
    }

    @Test("A read-only data folder with no database: the agent says which folder and why, and stops")
    func readOnlyEmptyFolder() async throws {
        let chattr = try #require(Executables.find("chattr"), "chattr (e2fsprogs) makes a folder read-only even for root")
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let folder = fixture.sandbox.dataHome.appendingPathComponent("reveille").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let locked = try await fixture.run(chattr, ["+i", folder])
        guard locked.status == .exited(0) else {
            Issue.record("chattr +i is not supported here: \(locked)")
            return
        }
        defer { _ = try? fixture.sandbox.run(chattr, ["-i", folder]) }
        let agent = try fixture.sandbox.spawn(Built.path("reveilled"), ["--silent"])
        let status = try await agent.waitForExit(timeout: .seconds(30))
        #expect(status != .exited(0), "\(agent.outputs())")
        #expect(agent.standardError.contains("the alarm store's folder \(folder) cannot be used"), "\(agent.outputs())")
        #expect(agent.standardError.contains("agent.lock: Operation not permitted"), "\(agent.outputs())")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    /// Every file in a folder with its bytes.
    static func contents(of folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(name))
        }
        return files
    }
}
