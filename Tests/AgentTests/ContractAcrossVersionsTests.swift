import AlarmKit
import AlarmProtocol
import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The D-Bus contract across versions, with the real programs of earlier commits
/// (`scripts/older-agents` builds them): the interfaces they served are frozen in
/// `FrozenInterfaces/`, their command speaks only those, and today's command meets their agents.
///
/// - `d256ff7`, the first agent: `Version`, `StorePath`, `AuthorizationState`, `AlarmCount`; no
///   `Watch`, no `AlarmsChanged`.
/// - `263a2b9`, the last agent without `SnoozeChoices` (b7b7f94 added it); every other property
///   of today.
@Suite(
    "Agent: the D-Bus contract across versions", .onItsOwnThread, .serialized,
    .requires(Built.unavailable ?? OlderBuilds.unavailable), .timeLimit(.minutes(5)))
struct ContractAcrossVersionsTests {
    @Test(
        "Today's agent serves every method, signal and property of each earlier interface, with the same types",
        arguments: OlderBuilds.commits)
    func interfacesOnlyGrow(commit: String) async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let client = try fixture.client()
        let id = UUID()
        _ = try await client.schedule(
            id: id, definition: try AlarmWire.decodeConfiguration(.dictionary(["countdown": .dictionary(["preAlert": .double(600)])])))
        for (kind, path) in [("manager", AgentClient.managerPath), ("alarm", AlarmWire.alarmPath(of: id))] {
            let served = try await client.connection.call(
                destination: AgentClient.busName, path: path, interface: "org.freedesktop.DBus.Introspectable", method: "Introspect")
            let today = Introspection.members(of: try #require(served.first?.stringValue))
            let frozen = Introspection.members(of: try OlderBuilds.frozenInterface(commit, kind))
            #expect(frozen.count > 10, "\(commit)'s \(kind) interface was read as \(frozen)")
            #expect(
                frozen.subtracting(today).isEmpty,
                "today's agent lacks, of \(commit)'s \(kind) interface: \(frozen.subtracting(today).sorted())")
        }
    }

    @Test("263a2b9's command, as an app, against today's agent: timer, alarm, list, show, pause, resume, skip, off, on, cancel and status")
    func previousCommandAgainstTodaysAgent() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let old = OlderBuilds.program("263a2b9", "reveille")
        // Today's agent trusts only the command beside it: the older one is an app, let in by the person.
        try #require(try await fixture.reveille("auth", "allow", old).status == .exited(0))
        func run(_ arguments: String...) async throws -> CommandResult {
            let result = try await fixture.run(old, arguments)
            #expect(result.status == .exited(0), "263a2b9's reveille \(arguments.joined(separator: " ")): \(result)")
            return result
        }
        let tea = try await run("timer", "1h", "--title", "Tea").line
        let week = try await run("add", "07:30", "--repeat", "mon,fri", "--title", "Week", "--volume", "40").line
        #expect(try await OlderBuilds.listed(run("list", "--json")) == [tea: "countdown Tea", week: "scheduled Week"])
        #expect(try await run("show", tea).output.contains("Tea"))
        _ = try await run("pause", tea)
        #expect(try await fixture.state(of: tea) == "paused")
        _ = try await run("resume", tea)
        #expect(try await fixture.state(of: tea) == "countdown")
        _ = try await run("skip", week)
        #expect(try await fixture.listedAlarms().first { $0.id == week }?.skipped != nil)
        _ = try await run("off", week)
        #expect(try await fixture.listedAlarms().first { $0.id == week }?.enabled == false)
        _ = try await run("on", week)
        _ = try await run("cancel", tea)
        #expect(try await OlderBuilds.listed(run("list", "--json")) == [week: "scheduled Week"])
        // Its status reads every property it knew.
        let status = try await run("status").output
        for line in ["agent    running", "alarms   1", "sound    ", "wake     ", "events   "] {
            #expect(status.contains(line), "no \(line.debugDescription) in:\n\(status)")
        }
    }

    @Test("Today's reveille status against the first agent (d256ff7): what it has, and nothing of what it lacks")
    func todaysStatusAgainstFirstAgent() async throws {
        let fixture = try await AgentFixture.start(agentProgram: OlderBuilds.program("d256ff7", "reveilled"))
        defer { fixture.stop() }
        guard OlderBuilds.firstAgentServes else {
            // status says the agent cannot be reached (69, unavailable), as for no agent at all.
            return try await OlderBuilds.expectFirstAgentRefuses(
                fixture, ["status", "--json"], status: 69,
                message: "the agent could not be reached: Unix file descriptors (type h) are not supported")
        }
        let result = try await fixture.reveille("status", "--json")
        try #require(result.status == .exited(0), "\(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["running"] as? Bool == true)
        #expect(object["version"] as? String == "0.1.0")
        #expect((object["store"] as? String)?.hasSuffix("alarms.sqlite") == true)
        // StoreReadOnly is missing: the store is taken as writable.
        #expect(object["storeWritable"] as? Bool == true)
        #expect(object["alarms"] as? Int == 0)
        let newer = [
            "storeReadOnlyReason", "notifications", "sound", "outputVolume", "doNotDisturb", "canWakeFromSuspend",
            "wakeFromSuspend", "wakeTimer", "phoneBackup", "watchedEvents", "eventSources",
        ]
        #expect(Set(object.keys).isDisjoint(with: newer), "\(object.keys.sorted())")
        let text = try await fixture.reveille("status")
        try #require(text.status == .exited(0), "\(text)")
        #expect(
            text.output.split(separator: "\n").map { String($0.prefix(9)) } == [
                "agent    ", "version  ", "store    ", "alarms   ", "login    ",
            ], "\(text.output)")
    }

    @Test("Today's reveille, an app to the first agent (d256ff7): timer, list, show, pause, resume and cancel")
    func todaysCommandAgainstFirstAgent() async throws {
        let fixture = try await AgentFixture.start(agentProgram: OlderBuilds.program("d256ff7", "reveilled"))
        defer { fixture.stop() }
        guard OlderBuilds.firstAgentServes else {
            // A change fails (1) with the agent's error, as any refusal by the agent does.
            return try await OlderBuilds.expectFirstAgentRefuses(
                fixture, ["timer", "1h", "--title", "Tea"], status: 1, message: "Unix file descriptors (type h) are not supported")
        }
        // The first agent trusts the command beside it, which lets today's in.
        let allowed = try await fixture.run(OlderBuilds.program("d256ff7", "reveille"), ["auth", "allow", Built.path("reveille")])
        try #require(allowed.status == .exited(0), "\(allowed)")
        let tea = try await fixture.reveille("timer", "1h", "--title", "Tea")
        try #require(tea.status == .exited(0), "\(tea)")
        #expect(try await fixture.listedAlarms().map { "\($0.id) \($0.state) \($0.title)" } == ["\(tea.line) countdown Tea"])
        #expect(try await fixture.reveille("pause", tea.line).status == .exited(0))
        #expect(try await fixture.state(of: tea.line) == "paused")
        #expect(try await fixture.reveille("resume", tea.line).status == .exited(0))
        #expect(try await fixture.state(of: tea.line) == "countdown")
        #expect(try await fixture.reveille("cancel", tea.line).status == .exited(0))
        #expect(try await fixture.listedAlarms().isEmpty)
    }

    @Test("Today's reveille watch against the first agent (d256ff7), which has no Watch: the list, then each change as it is made")
    func todaysWatchAgainstFirstAgent() async throws {
        let fixture = try await AgentFixture.start(agentProgram: OlderBuilds.program("d256ff7", "reveilled"))
        defer { fixture.stop() }
        guard OlderBuilds.firstAgentServes else {
            return try await OlderBuilds.expectFirstAgentRefuses(
                fixture, ["list"], status: 1, message: "Unix file descriptors (type h) are not supported")
        }
        let allowed = try await fixture.run(OlderBuilds.program("d256ff7", "reveille"), ["auth", "allow", Built.path("reveille")])
        try #require(allowed.status == .exited(0), "\(allowed)")
        try await WatchPane.with(fixture) { pane in
            try await pane.waitForScreen("the empty list") { $0.contains("No alarms.") }
            let tea = try await fixture.reveille("timer", "1h", "--title", "Tea")
            try #require(tea.status == .exited(0), "\(tea)")
            try await pane.waitForScreen("Tea running") { $0.contains("Tea") && $0.contains("running") }
            #expect(try await fixture.reveille("pause", tea.line).status == .exited(0))
            try await pane.waitForScreen("Tea paused") { $0.contains("Tea") && $0.contains("paused ") }
            #expect(try await fixture.reveille("cancel", tea.line).status == .exited(0))
            try await pane.waitForScreen("Tea gone") { $0.contains("No alarms.") }
            try await pane.quit()
        }
    }

    @Test("Today's reveille watch against an agent without SnoozeChoices (263a2b9): no choice keys, and 1 snoozes nothing")
    func todaysWatchWithoutSnoozeChoices() async throws {
        let fixture = try await AgentFixture.start(agentArguments: ["--silent"], agentProgram: OlderBuilds.program("263a2b9", "reveilled"))
        defer { fixture.stop() }
        let allowed = try await fixture.run(OlderBuilds.program("263a2b9", "reveille"), ["auth", "allow", Built.path("reveille")])
        try #require(allowed.status == .exited(0), "\(allowed)")
        try await WatchPane.with(fixture) { pane in
            try await pane.waitForScreen("the header without choices") { $0.contains("z snooze  p pause") }
            let id = try await fixture.reveille("timer", "1s", "--title", "Choose", "--snooze", "1m").line
            try await pane.waitForScreen("Choose ringing") { $0.contains("RINGING  Choose") }
            try await pane.press("1")
            // What must not happen, counted over a window waited out in full: a change of state.
            var seen: [String] = []
            let pressed = ContinuousClock.now
            while ContinuousClock.now - pressed < .seconds(2) {
                let state = try await fixture.state(of: id)
                if state != "alerting" { seen.append(state) }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(seen.isEmpty, "after 1 was pressed Choose was \(seen), not alerting")
            try await pane.press("s")
            try await pane.waitUntil("Choose stopped") { try await fixture.listedAlarms().isEmpty }
            try await pane.quit()
        }
    }
}

/// The agent and command of earlier commits, built by `scripts/older-agents` into
/// `.build/older-agents/COMMIT/`, and the interfaces they served, frozen in `FrozenInterfaces/`.
enum OlderBuilds {
    /// The commits, oldest first.
    static let commits = ["d256ff7", "263a2b9"]
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
    static let folder = repository.appendingPathComponent(".build/older-agents")

    /// The path of `commit`'s `name` (`reveilled`, `reveille`).
    static func program(_ commit: String, _ name: String) -> String {
        folder.appendingPathComponent(commit).appendingPathComponent(name).path
    }

    /// Whether the first agent (`d256ff7`) can serve on this machine's bus. It cannot where the
    /// bus gives pidfds (dbus 1.15.2 and later: Debian 13's 1.16): it cannot read the `ProcessFD`
    /// (type h) in the credentials it asks the bus for, and refuses every call with NotSupported
    /// (162bafa taught the agent to read it). There today's command must say so.
    static var firstAgentServes: Bool { !Executables.dbusDaemonGivesProcessFD }

    /// Checks what a person sees where the first agent cannot serve (`firstAgentServes` is false):
    /// today's `reveille ARGUMENTS` fails with `status`, and its one line on stderr is `message`,
    /// the agent's reason.
    static func expectFirstAgentRefuses(
        _ fixture: AgentFixture, _ arguments: [String], status: Int32, message: String
    ) async throws {
        let result = try await fixture.run(Built.path("reveille"), arguments)
        #expect(result.status == .exited(status), "\(result)")
        #expect(result.error == "reveille: \(message)\n", "\(result)")
    }

    /// Why the older programs cannot be run, or nil.
    static var unavailable: String? {
        for commit in commits {
            for name in ["reveilled", "reveille"] where !FileManager.default.isExecutableFile(atPath: program(commit, name)) {
                return "\(program(commit, name)) is not built (scripts/older-agents builds it)"
            }
        }
        return nil
    }

    /// The introspection XML `commit`'s agent served for `kind` (`manager`, `alarm`), as its
    /// `reveilled --print-introspection KIND` printed it.
    static func frozenInterface(_ commit: String, _ kind: String) throws -> String {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("FrozenInterfaces/\(commit)-\(kind).xml")
        return try String(contentsOf: file, encoding: .utf8)
    }

    /// An older `reveille list --json`, as `id: "state title"`, read with only the keys every
    /// version has.
    static func listed(_ result: CommandResult) throws -> [String: String] {
        struct Listed: Decodable {
            var id: String
            var state: String
            var title: String
        }
        let alarms = try JSONDecoder().decode([Listed].self, from: Data(result.output.utf8))
        return Dictionary(uniqueKeysWithValues: alarms.map { ($0.id, "\($0.state) \($0.title)") })
    }
}

/// The members an introspection XML declares, one string each, as a client relies on them:
/// `INTERFACE method NAME(in: TYPES) -> (TYPES)`, `INTERFACE signal NAME(TYPES)`,
/// `INTERFACE property NAME TYPE ACCESS`.
enum Introspection {
    static func members(of xml: String) -> Set<String> {
        func attribute(_ name: String, in line: Substring) -> String? {
            guard let range = line.range(of: " \(name)=\"") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != "\"" })
        }
        var members: Set<String> = []
        var interface = ""
        var open: (kind: String, name: String, inputs: [String], outputs: [String])?
        func close() {
            guard let member = open else { return }
            members.insert(
                member.kind == "method"
                    ? "\(interface) method \(member.name)(\(member.inputs.joined(separator: ","))) -> (\(member.outputs.joined(separator: ",")))"
                    : "\(interface) signal \(member.name)(\(member.outputs.joined(separator: ",")))")
            open = nil
        }
        for raw in xml.split(separator: "\n") {
            let line = raw.drop { $0 == " " }
            if line.hasPrefix("<interface ") {
                interface = attribute("name", in: line) ?? ""
            } else if line.hasPrefix("<method ") || line.hasPrefix("<signal ") {
                open = (line.hasPrefix("<method ") ? "method" : "signal", attribute("name", in: line) ?? "", [], [])
                if line.hasSuffix("/>") { close() }
            } else if line.hasPrefix("<arg "), let type = attribute("type", in: line) {
                if attribute("direction", in: line) == "in" { open?.inputs.append(type) } else { open?.outputs.append(type) }
            } else if line.hasPrefix("</method>") || line.hasPrefix("</signal>") {
                close()
            } else if line.hasPrefix("<property "), let name = attribute("name", in: line) {
                members.insert("\(interface) property \(name) \(attribute("type", in: line) ?? "") \(attribute("access", in: line) ?? "")")
            }
        }
        return members
    }
}
