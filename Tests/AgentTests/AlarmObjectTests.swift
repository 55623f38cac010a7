import AlarmKit
import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

/// An alarm's D-Bus object follows the alarm exactly, whatever order calls come in.
@Suite("Agent: alarm objects", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
struct AlarmObjectTests {
    static func timer(_ title: String) -> DBusValue {
        .dictionary(["title": .string(title), "countdown": .dictionary(["preAlert": .double(3_600)])])
    }

    /// The alarm's `Title` property, or the error (its name alone) that reading it gave.
    static func title(of id: UUID, on connection: DBusConnection) async -> Result<String, DBusError> {
        do {
            let reply = try await connection.call(
                destination: AgentClient.busName,
                path: AgentClient.managerPath + "/alarm/" + id.uuidString.lowercased().replacingOccurrences(of: "-", with: "_"),
                interface: "org.freedesktop.DBus.Properties", method: "Get",
                arguments: [.string(AgentClient.alarmInterface), .string("Title")])
            return .success(reply.first?.stringValue ?? "")
        } catch let error as DBusError {
            return .failure(DBusError(name: error.name))
        } catch {
            return .failure(DBusError(name: "unexpected", message: "\(error)"))
        }
    }

    @Test("Cancelled and scheduled again at once: the object is there when Schedule answers and gone when Cancel answers")
    func scheduleCancelScheduleAgain() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let connection = try fixture.client().connection
        let id = UUID()
        for round in 0..<100 {
            #expect(await fixture.errorName(of: "Schedule", [.string(id.uuidString), Self.timer("Round \(round)")], on: connection) == nil)
            let title = await Self.title(of: id, on: connection)
            #expect((try? title.get()) == "Round \(round)", "round \(round): \(title)")
            #expect(await fixture.errorName(of: "Cancel", [.string(id.uuidString)], on: connection) == nil)
            let gone = await Self.title(of: id, on: connection)
            #expect(gone == .failure(DBusError(name: DBusError.unknownObject)), "round \(round): the object outlived the alarm: \(gone)")
        }
    }

    @Test("Sixteen callers scheduling, replacing and cancelling two ids at once leave each object as its alarm is")
    func concurrentCallsOnOneID() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let client = try fixture.client()
        let connections = try (0..<16).map { _ in try fixture.client().connection }
        let ids = (0..<2).map { _ in UUID() }
        await withTaskGroup(of: Void.self) { group in
            for (index, connection) in connections.enumerated() {
                group.addTask {
                    for round in 0..<150 {
                        let id = ids[(index + round) % ids.count]
                        let method = (index + round) % 3 == 0 ? "Cancel" : "Schedule"
                        let arguments: [DBusValue] =
                            method == "Schedule"
                            ? [.string(id.uuidString), Self.timer("\(index)-\(round)")] : [.string(id.uuidString)]
                        _ = await fixture.errorName(of: method, arguments, on: connection)
                    }
                }
            }
        }
        let alarms = try await client.list()
        for id in ids {
            let alarm = alarms.first { $0.alarm.id == id }
            let title = await Self.title(of: id, on: client.connection)
            if let alarm {
                #expect((try? title.get()) == alarm.definition.title, "\(id): \(title)")
            } else {
                #expect(title == .failure(DBusError(name: DBusError.unknownObject)), "\(id) is gone but its object is not: \(title)")
            }
        }
    }
}
