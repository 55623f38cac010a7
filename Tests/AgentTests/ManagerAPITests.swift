import AlarmKit
import CommandLineText
import AlarmProtocol
import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The agent's D-Bus API from an app: every method, property, object and named error.
@Suite("Agent: D-Bus API", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
struct ManagerAPITests {
    static let prefix = "io.github.reveille.Alarms1.Error."

    static func timer(_ seconds: Double, title: String = "Tea", snooze: Double? = nil) -> DBusValue {
        var countdown: [String: DBusValue] = ["preAlert": .double(seconds)]
        if let snooze { countdown["postAlert"] = .double(snooze) }
        return .dictionary(["title": .string(title), "countdown": .dictionary(countdown)])
    }

    @Test("Schedule, Get, List, Pause, Resume, Cancel, and the alarm object's properties", .timeLimit(.minutes(2)))
    func methods() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let client = try fixture.client()
        let id = UUID()

        let scheduled = try await client.schedule(id: id, definition: try AlarmWire.decodeConfiguration(Self.timer(600)))
        #expect(scheduled.alarm.id == id)
        #expect(scheduled.alarm.state == .countdown)
        #expect(scheduled.definition.title == "Tea")
        #expect(scheduled.owner == Built.testExecutable)
        #expect((scheduled.remaining ?? 0) > 590)

        #expect(try await client.get(id: id).alarm == scheduled.alarm)
        #expect(try await client.list().map(\.alarm.id) == [id])

        // The alarm object, with its properties.
        let path = "/io/github/reveille/Alarms1/alarm/" + id.uuidString.lowercased().replacingOccurrences(of: "-", with: "_")
        let properties = try #require(
            try await client.connection.call(
                destination: AgentClient.busName, path: path, interface: "org.freedesktop.DBus.Properties", method: "GetAll",
                arguments: [.string(AgentClient.alarmInterface)]
            ).first?.dictionaryValue)
        #expect(properties["State"]?.stringValue == "countdown")
        #expect(properties["Title"]?.stringValue == "Tea")
        #expect(properties["Kind"]?.stringValue == "timer")
        #expect(properties["Id"]?.stringValue == id.uuidString.lowercased())
        #expect((properties["FireDate"]?.doubleValue ?? 0) > Date().timeIntervalSince1970)

        // PropertiesChanged on pause, delivered to this caller.
        let changes = client.connection.signals(
            MatchRule(path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        try await client.pause(id: id)
        var iterator = changes.makeAsyncIterator()
        let signal = try #require(await iterator.next())
        #expect(signal.arguments.dropFirst().first?.dictionaryValue?["State"]?.stringValue == "paused")

        try await client.resume(id: id)
        #expect(try await client.get(id: id).alarm.state == .countdown)
        try await client.cancel(id: id)
        #expect(try await client.list().isEmpty)
    }

    @Test("Manager properties: Version, AuthorizationState, AlarmCount, StorePath")
    func properties() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let client = try fixture.client()
        #expect(try await client.property("Version").stringValue == AgentVersionForTests.expected)
        #expect(try await client.authorizationState() == .notDetermined)
        #expect(try await client.property("StorePath").stringValue?.hasSuffix("reveille/alarms.sqlite") == true)
        try await fixture.authorizeTestProcess()
        #expect(try await client.authorizationState() == .authorized)
        _ = try await client.schedule(id: UUID(), definition: try AlarmWire.decodeConfiguration(Self.timer(60)))
        #expect(try await client.property("AlarmCount").integerValue == 1)
    }

    @Test(
        "ObjectManager lists the alarm objects and announces new ones to callers that listed them; one that only schedules hears nothing",
        .timeLimit(.minutes(2)))
    func objectManager() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let client = try fixture.client()
        let rule = MatchRule(sender: AgentClient.busName, interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded")
        let added = client.connection.signals(rule)
        func managedObjects() async throws -> [DBusValue] {
            let managed = try await client.connection.call(
                destination: AgentClient.busName, path: AgentClient.managerPath, interface: "org.freedesktop.DBus.ObjectManager",
                method: "GetManagedObjects")
            return try #require(managed.first?.arrayValue)
        }
        func path(_ id: UUID) -> String {
            "/io/github/reveille/Alarms1/alarm/" + id.uuidString.lowercased().replacingOccurrences(of: "-", with: "_")
        }

        // Only scheduling: no change signals.
        let unheard = UUID()
        _ = try await client.schedule(id: unheard, definition: try AlarmWire.decodeConfiguration(Self.timer(60)))
        // Listing: the changes from then on.
        #expect(try await managedObjects().count == 1)
        let heard = UUID()
        _ = try await client.schedule(id: heard, definition: try AlarmWire.decodeConfiguration(Self.timer(60)))
        var iterator = added.makeAsyncIterator()
        let signal = try #require(await iterator.next())
        #expect(signal.arguments.first?.stringValue == path(heard), "the first announcement is of the alarm scheduled after listing")
        #expect(try await managedObjects().count == 2)
    }

    @Test(
        "Watch gives the list, then one AlarmsChanged per stored change: the caller's alarms as List shows them and the ids removed; no object signals",
        .timeLimit(.minutes(2)))
    func watch() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let python = try await fixture.authorizePython()
        let script = AgentFixture.otherApp
        let client = try fixture.client()
        let connection = client.connection
        // List marks its caller as watching the alarm objects: it is called on a connection of its own.
        let lister = try fixture.client().connection
        func manager(_ method: String, _ arguments: [DBusValue] = [], on other: DBusConnection? = nil) async throws -> [DBusValue] {
            try await (other ?? connection).call(
                destination: AgentClient.busName, path: AgentClient.managerPath, interface: AgentClient.managerInterface,
                method: method, arguments: arguments)
        }
        func alarm(_ title: String) -> DBusValue {
            .dictionary(["title": .string(title), "schedule": .dictionary(["fixed": .double(4_000_000_000)])])
        }
        // Every signal the agent sends this connection but the manager's own property changes.
        let signals = connection.signals(MatchRule(sender: AgentClient.busName))
        let (a, b) = (UUID().lowercasedText(), UUID().lowercasedText())
        _ = try await manager("Schedule", [.string(a), alarm("A")])

        let watched = try await manager("Watch")
        #expect(watched == (try await manager("List", on: lister)), "Watch answers what List does")
        #expect(watched.first?.arrayValue?.compactMap { $0.dictionaryValue?["id"]?.stringValue } == [a])

        // Another app's alarm is none of this caller's business.
        let theirs = UUID().lowercasedText()
        #expect(try await fixture.run(python, [script, "schedule", theirs, "Theirs", "600"]).line == theirs)
        // New, replaced (one transaction: the old one cancelled, the new one stored), removed.
        _ = try await manager("Schedule", [.string(b), alarm("B")])
        _ = try await manager("Schedule", [.string(b), alarm("B again")])
        _ = try await manager("Cancel", [.string(a)])

        var heard: [(alarms: [[String: DBusValue]], removed: [String])] = []
        for await signal in signals where !(signal.path == AgentClient.managerPath && signal.member == "PropertiesChanged") {
            #expect(
                signal.member == "AlarmsChanged" && signal.interface == AgentClient.managerInterface,
                "only AlarmsChanged: \(signal.member ?? "")")
            #expect(signal.destination == connection.uniqueName, "sent to this caller alone")
            let alarms = try #require(signal.arguments.first?.arrayValue).map { try #require($0.dictionaryValue) }
            let removed = try #require(signal.arguments.last?.arrayValue).compactMap(\.stringValue)
            heard.append((alarms, removed))
            if heard.count == 3 { break }
        }
        #expect(heard.map { $0.alarms.compactMap { $0["id"]?.stringValue } } == [[b], [b], []], "\(heard)")
        #expect(heard.map { $0.alarms.compactMap { $0["title"]?.stringValue } } == [["B"], ["B again"], []])
        #expect(heard.map(\.removed) == [[], [], [a]], "a replaced alarm is listed as changed, not removed")
        // The alarms as List shows them: summaries.
        let listed = try #require(try await manager("List", on: lister).first?.arrayValue?.first?.dictionaryValue)
        #expect(heard[1].alarms.first == listed)
    }

    @Test("Introspection is the text in desktop/")
    func introspection() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let client = try fixture.client()
        let desktop = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../desktop").standardized
        let served = try await client.connection.call(
            destination: AgentClient.busName, path: AgentClient.managerPath, interface: "org.freedesktop.DBus.Introspectable",
            method: "Introspect")
        let manager = try String(contentsOf: desktop.appendingPathComponent("io.github.reveille.Alarms1.Manager.xml"), encoding: .utf8)
        #expect(served.first?.stringValue == manager)

        let id = UUID()
        _ = try await client.schedule(id: id, definition: try AlarmWire.decodeConfiguration(Self.timer(60)))
        let path = "/io/github/reveille/Alarms1/alarm/" + id.uuidString.lowercased().replacingOccurrences(of: "-", with: "_")
        let alarmXML = try await client.connection.call(
            destination: AgentClient.busName, path: path, interface: "org.freedesktop.DBus.Introspectable", method: "Introspect")
        let alarm = try String(contentsOf: desktop.appendingPathComponent("io.github.reveille.Alarms1.Alarm.xml"), encoding: .utf8)
        #expect(alarmXML.first?.stringValue == alarm)
    }

    @Test("Introspecting the alarm objects' folder shows a caller its own alarms, never another app's")
    func introspectionShowsOnlyOwnAlarms() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let python = try await fixture.authorizePython()
        let script = AgentFixture.otherApp
        let client = try fixture.client()
        let mine = UUID()
        _ = try await client.schedule(id: mine, definition: try AlarmWire.decodeConfiguration(Self.timer(600)))
        let theirs = UUID().lowercasedText()
        #expect(try await fixture.run(python, [script, "schedule", theirs, "Theirs", "600"]).line == theirs)
        func node(_ id: String) -> String { id.lowercased().replacingOccurrences(of: "-", with: "_") }
        let folder = "/io/github/reveille/Alarms1/alarm"

        let xml = try await client.connection.call(
            destination: AgentClient.busName, path: folder, interface: "org.freedesktop.DBus.Introspectable", method: "Introspect")
        let text = try #require(xml.first?.stringValue)
        #expect(text.contains(#"<node name="\#(node(mine.uuidString))"/>"#), "\(text)")
        #expect(!text.contains(node(theirs)), "another app's alarm is listed to this caller:\n\(text)")
        let seen = try await fixture.run(python, [script, "nodes", folder])
        #expect(seen.output.split(separator: "\n").map(String.init) == [node(theirs)], "\(seen)")
        // The manager's folder still leads to the alarm objects, for both.
        let top = try await client.connection.call(
            destination: AgentClient.busName, path: "/io/github/reveille/Alarms1", interface: "org.freedesktop.DBus.Introspectable",
            method: "Introspect")
        #expect(top.first?.stringValue?.contains(#"<node name="alarm"/>"#) == true, "\(top)")
    }

    @Test("Every named error, each naming the bad part, and the agent keeps serving")
    func namedErrors() async throws {
        let fixture = try await AgentFixture.start(agentArguments: ["--max-alarms", "2"])
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let connection = try fixture.client().connection
        let unknown = UUID().uuidString
        func schedule(_ configuration: DBusValue) async -> String? {
            await fixture.errorName(of: "Schedule", [.string(UUID().uuidString), configuration], on: connection)
        }
        #expect(
            await schedule(.dictionary(["schedule": .dictionary(["hour": .int32(25), "minute": .int32(0)])]))
                == Self.prefix + "InvalidConfiguration")
        #expect(await schedule(.dictionary(["countdown": .dictionary(["preAlert": .double(-5)])])) == Self.prefix + "InvalidConfiguration")
        #expect(await schedule(.dictionary(["color": .string("red")])) == Self.prefix + "InvalidConfiguration")
        #expect(await schedule(.dictionary(["title": .int32(3)])) == Self.prefix + "InvalidConfiguration")
        #expect(await schedule(.dictionary([:])) == Self.prefix + "InvalidConfiguration")
        #expect(
            await fixture.errorName(of: "Schedule", [.string("not-a-uuid"), Self.timer(60)], on: connection)
                == Self.prefix + "InvalidArguments")
        #expect(await fixture.errorName(of: "Schedule", [.int32(1)], on: connection) == DBusError.invalidArgs)
        #expect(await fixture.errorName(of: "Cancel", [.string(unknown)], on: connection) == Self.prefix + "NotFound")
        #expect(await fixture.errorName(of: "Frobnicate", [], on: connection) == DBusError.unknownMethod)

        // The message names the field.
        do {
            _ = try await connection.call(
                destination: AgentClient.busName, path: AgentClient.managerPath, interface: AgentClient.managerInterface,
                method: "Schedule",
                arguments: [.string(UUID().uuidString), .dictionary(["schedule": .dictionary(["hour": .int32(25), "minute": .int32(0)])])])
            Issue.record("an hour of 25 was accepted")
        } catch let error as DBusError {
            #expect(error.message == "invalid schedule.hour: 25 is not an hour (0 to 23)")
        }

        // Transitions the state does not allow.
        let id = UUID().uuidString
        #expect(await fixture.errorName(of: "Schedule", [.string(id), Self.timer(600)], on: connection) == nil)
        #expect(await fixture.errorName(of: "Stop", [.string(id)], on: connection) == Self.prefix + "NotAllowed")
        #expect(await fixture.errorName(of: "Resume", [.string(id)], on: connection) == Self.prefix + "NotAllowed")
        #expect(await fixture.errorName(of: "Countdown", [.string(id)], on: connection) == Self.prefix + "NotAllowed")
        // The limit.
        #expect(await schedule(Self.timer(60)) == nil)
        #expect(await schedule(Self.timer(60)) == Self.prefix + "MaximumLimitReached")
        // Admin methods are the person's own.
        #expect(await fixture.errorName(of: "History", [.uint32(10)], on: connection) == Self.prefix + "NotAuthorized")
        #expect(
            await fixture.errorName(of: "SetAuthorization", [.string("x"), .string("authorized")], on: connection)
                == Self.prefix + "NotAuthorized")

        // Nothing was hurt and nothing else changed.
        #expect(try await fixture.client().list().count == 2)
        #expect(fixture.agent?.isRunning == true)
    }

    @Test("Two apps cannot see or touch each other's alarms; the person's command sees both")
    func twoApps() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let python = try await fixture.authorizePython()
        let script = AgentFixture.otherApp

        let theirs = UUID().uuidString.lowercased()
        let scheduled = try await fixture.run(python, [script, "schedule", theirs, "Theirs", "600"])
        #expect(scheduled.line == theirs, "\(scheduled)")
        let client = try fixture.client()
        let mine = UUID()
        _ = try await client.schedule(id: mine, definition: try AlarmWire.decodeConfiguration(Self.timer(600, title: "Mine")))

        #expect(try await client.list().map(\.alarm.id) == [mine])
        await #expect(throws: AgentClientError.self) { try await client.cancel(id: UUID(uuidString: theirs)!) }
        await #expect(throws: AgentClientError.self) { try await client.get(id: UUID(uuidString: theirs)!) }
        let path = "/io/github/reveille/Alarms1/alarm/" + theirs.replacingOccurrences(of: "-", with: "_")
        await #expect(throws: DBusError.self) {
            _ = try await client.connection.call(
                destination: AgentClient.busName, path: path, interface: "org.freedesktop.DBus.Properties", method: "Get",
                arguments: [.string(AgentClient.alarmInterface), .string("Title")])
        }
        let managed = try await client.connection.call(
            destination: AgentClient.busName, path: AgentClient.managerPath, interface: "org.freedesktop.DBus.ObjectManager",
            method: "GetManagedObjects")
        #expect(managed.first?.arrayValue?.count == 1, "GetManagedObjects shows only the caller's alarms")

        let theirList = try await fixture.run(python, [script, "list"])
        #expect(theirList.line == theirs)
        let cancel = try await fixture.run(python, [script, "cancel", mine.uuidString.lowercased()])
        #expect(cancel.line.hasPrefix("error: io.github.reveille.Alarms1.Error.NotFound"))

        let all = try await fixture.reveille("list", "--json")
        let ids = try JSONDecoder().decode([AlarmDescription].self, from: Data(all.output.utf8)).map(\.id)
        #expect(Set(ids) == [theirs, mine.uuidString.lowercased()])
    }

    @Test("A second agent exits at once with a clear message")
    func secondInstance() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let second = try await fixture.run(Built.path("reveilled"), [])
        #expect(second.status == .exited(1))
        #expect(second.error.contains("another reveilled is already running"), "\(second)")
        #expect(fixture.agent?.isRunning == true)
    }

    @Test("SIGTERM ends the agent cleanly, with everything stored")
    func termination() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let id = try await fixture.reveille("timer", "1h", "--title", "Kept").line
        let agent = try #require(fixture.agent)
        let restarted = try await fixture.restart(agent, arguments: ["--silent"])
        defer { restarted.terminate() }
        let shown = try await fixture.reveille("show", id, "--json")
        #expect(shown.output.contains(#""title":"Kept""#), "\(shown)")
    }
}

/// The version the agent reports.
enum AgentVersionForTests {
    static let expected = "0.1.0"
}

/// Updates go on across a restart of the agent.
@Suite("Agent: updates across a restart", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
struct UpdatesAcrossRestartTests {
    @Test("watch --json goes on printing changes after the agent is restarted")
    func watchSurvivesRestart() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let watch = try fixture.sandbox.spawn(Built.path("reveille"), ["watch", "--json"])
        defer { watch.terminate() }
        _ = try await watch.waitForStandardOutput(containing: "[]", timeout: .seconds(30))
        let agent = try #require(fixture.agent)
        let restarted = try await fixture.restart(agent, arguments: ["--silent"])
        defer { restarted.terminate() }
        #expect(try await fixture.reveille("timer", "5m", "--title", "After").status == .exited(0))
        let output = try await watch.waitForStandardOutput(containing: #""title":"After""#, timeout: .seconds(30))
        #expect(output.contains(#""title":"After""#))
    }
}
