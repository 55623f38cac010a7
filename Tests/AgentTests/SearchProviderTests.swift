import AlarmKit
import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The desktop's search providers (`reveille-search`) on a real bus with the real agent, called
/// as Plasma's KRunner calls a D-Bus runner (`busctl`: Match, Actions, Run, Config) and as GNOME
/// Shell calls a search provider (GetInitialResultSet, ActivateResult, LaunchSearch), the program
/// started by D-Bus activation from its service file.
@Suite(
    "Agent: search providers (KRunner's and GNOME Shell's protocols)", .onItsOwnThread, .serialized, .requires(Built.unavailable),
    .timeLimit(.minutes(5)))
struct SearchProviderTests {
    static let service = "io.github.reveille.Search"
    static let kRunnerPath = "/io/github/reveille/Search/KRunner"

    /// A sandbox with dunst and the agent, whose bus activates `reveille-search` as the package's
    /// service file does (with `arguments` after its path); and the folder to remove after.
    static func start(arguments: String = "") async throws -> (AgentFixture, URL) {
        let services = Fixtures.temporaryDirectory("reveille-search-services")
        try "[D-BUS Service]\nName=\(service)\nExec=\(Built.path("reveille-search"))\(arguments)\n"
            .write(to: services.appendingPathComponent("\(service).service"), atomically: true, encoding: .utf8)
        return (try await AgentFixture.start(notificationServer: true, serviceDirectories: [services]), services)
    }

    /// Calls a krunner1 method with `busctl --json=short`, as KRunner would over D-Bus, and returns
    /// the reply's `data`, or the failure.
    static func kRunner(
        _ fixture: AgentFixture, _ method: String, _ signature: String = "", _ arguments: String...
    ) async throws
        -> (data: Any?, result: CommandResult)
    {
        try await busctl(fixture, kRunnerPath, "org.kde.krunner1", method, signature, arguments)
    }

    /// Calls a method of the provider with `busctl --json=short` and returns the reply's `data`,
    /// or the failure.
    static func busctl(
        _ fixture: AgentFixture, _ path: String, _ interface: String, _ method: String, _ signature: String, _ arguments: [String]
    ) async throws -> (data: Any?, result: CommandResult) {
        var words = ["--address=\(fixture.sandbox.busAddress)", "--json=short", "call", service, path, interface, method]
        if !signature.isEmpty { words += [signature] + arguments }
        let result = try await fixture.run("/usr/bin/busctl", words)
        guard result.status == .exited(0), !result.line.isEmpty,
            let object = try? JSONSerialization.jsonObject(with: Data(result.line.utf8)) as? [String: Any]
        else { return (nil, result) }
        return (object["data"], result)
    }

    /// Match's results: (id, text, icon, category, subtext, actions).
    static func match(
        _ fixture: AgentFixture, _ query: String
    ) async throws -> [(id: String, text: String, category: Int, subtext: String, actions: [String])] {
        let (data, result) = try await kRunner(fixture, "Match", "s", query)
        let matches = try #require((data as? [Any])?.first as? [[Any]], "\(result)")
        return matches.map { match in
            let properties = match[5] as? [String: Any] ?? [:]
            func value(_ key: String) -> Any? { (properties[key] as? [String: Any])?["data"] }
            return (
                match[0] as? String ?? "", match[1] as? String ?? "", match[3] as? Int ?? -1,
                value("subtext") as? String ?? "", value("actions") as? [String] ?? []
            )
        }
    }

    @Test(
        "Match says what Enter sets; Run sets it as the person (the owner reveille's alarms have) and it rings; a found alarm's actions cancel it"
    )
    func matchRunAndRing() async throws {
        let (fixture, services) = try await Self.start()
        defer {
            fixture.stop()
            try? FileManager.default.removeItem(at: services)
        }
        let monitor = try fixture.sandbox.monitorNotifyCalls()

        // KRunner asks for the runner's settings and actions once, then matches as the person types.
        let config = try await Self.kRunner(fixture, "Config")
        #expect(config.result.status == .exited(0), "\(config.result)")
        let actions = try await Self.kRunner(fixture, "Actions")
        let actionIDs = ((actions.data as? [Any])?.first as? [[Any]])?.compactMap { $0.first as? String }
        #expect(actionIDs == ["stop", "snooze", "cancel"], "\(actions.result)")

        let tea = try await Self.match(fixture, "timer 4s tea")
        #expect(tea.map(\.text) == ["Timer for 4 s: tea"])
        #expect(tea.first?.category == 100 && tea.first?.actions == [])
        #expect(tea.first?.subtext.hasPrefix("rings at ") == true, "\(tea)")
        #expect(try await Self.match(fixture, "alarm tomorrow 6:45 dentist").map(\.text).first?.hasSuffix(": dentist") == true)
        #expect(try await Self.match(fixture, "wake me at 6").map(\.text).first?.hasPrefix("Alarm at ") == true)

        // Enter: Run with the match's id and no action.
        let pressed = try await Self.kRunner(fixture, "Run", "ss", try #require(tea.first?.id), "")
        #expect(pressed.result.status == .exited(0), "\(pressed.result)")
        let listed = try await fixture.listedAlarms()
        #expect(listed.map(\.title) == ["tea"] && listed.first?.kind == "timer", "\(listed)")
        // Set as the person: `reveille show` names the owner the person's own alarms have
        // ("user"), not reveille-search's program as an app's alarm would be, and no question was asked.
        #expect(try await fixture.reveille("timer", "1h", "--title", "Reference").status == .exited(0))
        func owner(_ title: String) async throws -> String? {
            let id = try #require(try await fixture.listedAlarms().first { $0.title == title }?.id)
            let shown = try await fixture.reveille("show", id)
            return shown.output.split(separator: "\n").first { $0.hasPrefix("owner") }.map {
                String($0.dropFirst(5)).trimmingCharacters(in: .whitespaces)
            }
        }
        let teaOwner = try await owner("tea")
        let referenceOwner = try await owner("Reference")
        #expect(teaOwner == "user" && teaOwner == referenceOwner, "\(String(describing: teaOwner)), \(String(describing: referenceOwner))")

        // It rings: the alert's Notify on the bus.
        let alert = try await monitor.waitForNotify(matching: { $0.summary == "tea" && $0.urgency == .byte(2) })
        #expect(alert.appName == "Reveille")

        // Typing its title finds it, with KRunner's actions; Cancel ends it.
        let found = try await Self.match(fixture, "Refer")
        #expect(found.map(\.text) == ["“Reference”"] && found.first?.actions == ["stop", "snooze", "cancel"], "\(found)")
        let listing = try await Self.match(fixture, "alarms")
        #expect(Set(listing.map(\.text)) == ["“tea”", "“Reference”"], "\(listing)")
        let cancel = try await Self.kRunner(fixture, "Run", "ss", try #require(found.first?.id), "cancel")
        #expect(cancel.result.status == .exited(0), "\(cancel.result)")
        #expect(try await fixture.listedAlarms().map(\.title) == ["tea"])
    }

    @Test("After a quiet spell reveille-search gives its name back and exits; the next query starts it again and is answered")
    func exitsWhenQuiet() async throws {
        let (fixture, services) = try await Self.start(arguments: " --quiet-exit=2")
        defer {
            fixture.stop()
            try? FileManager.default.removeItem(at: services)
        }
        let client = try fixture.client()
        #expect(try await Self.match(fixture, "timer 10m tea").map(\.text) == ["Timer for 10 min: tea"])
        let owner = try #require(try await client.connection.nameOwner(Self.service), "no owner after the first Match")
        let reply = try await client.connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "GetConnectionUnixProcessID", arguments: [.string(owner)])
        guard case .uint32(let pid)? = reply.first else { Issue.record("no process id for \(owner): \(reply)"); return }
        // Queries within the spell keep it: the same process answers.
        for _ in 0..<3 {
            try await Task.sleep(for: .seconds(1))
            _ = try await Self.match(fixture, "alarm 7:30")
        }
        #expect(try await client.connection.nameOwner(Self.service) == owner, "it left within the spell, while asked every second")
        try await waitUntil(
            "reveille-search to give its name back after 2 s without a query", timeout: .seconds(15), every: .milliseconds(100)
        ) {
            try await client.connection.nameOwner(Self.service) == nil ? true : nil
        }
        try await waitUntil("reveille-search (\(pid)) to exit", timeout: .seconds(10)) {
            kill(pid_t(pid), 0) != 0 ? true : nil
        }
        // Started again by the next query, which it answers.
        #expect(try await Self.match(fixture, "timer 10m tea").map(\.text) == ["Timer for 10 min: tea"])
        #expect(try await client.connection.nameOwner(Self.service) != nil)
    }

    static let gnomePath = "/io/github/reveille/Search/GNOME"

    /// Calls a SearchProvider2 method with `busctl --json=short`, as GNOME Shell would over D-Bus.
    static func gnome(
        _ fixture: AgentFixture, _ method: String, _ signature: String, _ arguments: String...
    ) async throws
        -> (data: Any?, result: CommandResult)
    {
        try await busctl(fixture, gnomePath, "org.gnome.Shell.SearchProvider2", method, signature, arguments)
    }

    @Test(
        "GNOME Shell's ActivateResult on a result of GetInitialResultSet sets that timer, which rings; on a result no search gave it is refused and sets nothing"
    )
    func gnomeActivateResult() async throws {
        let (fixture, services) = try await Self.start()
        defer {
            fixture.stop()
            try? FileManager.default.removeItem(at: services)
        }
        let monitor = try fixture.sandbox.monitorNotifyCalls()
        // The overview asks for the results of the words typed, then activates the one picked.
        let (data, found) = try await Self.gnome(fixture, "GetInitialResultSet", "as", "3", "timer", "3s", "tea")
        let ids = try #require((data as? [Any])?.first as? [String], "\(found)")
        #expect(ids.count == 1, "\(ids)")
        let id = try #require(ids.first)
        #expect(try await fixture.listedAlarms().isEmpty, "a search alone sets nothing")
        let activated = try await Self.gnome(fixture, "ActivateResult", "sasu", id, "3", "timer", "3s", "tea", "0")
        #expect(activated.result.status == .exited(0), "\(activated.result)")
        let listed = try await fixture.listedAlarms()
        #expect(listed.map(\.title) == ["tea"] && listed.first?.kind == "timer" && listed.first?.state == "countdown", "\(listed)")
        let alert = try await monitor.waitForNotify(matching: { $0.summary == "tea" && $0.urgency == .byte(2) })
        #expect(alert.appName == "Reveille")

        let unknown = try await Self.gnome(fixture, "ActivateResult", "sasu", "set:alarm yesterday", "0", "0")
        #expect(unknown.result.status != .exited(0))
        #expect(unknown.result.error.contains("UnknownResult") || unknown.result.error.contains("no such result"), "\(unknown.result)")
        #expect(try await fixture.listedAlarms().map(\.title) == ["tea"])
    }

    @Test("GNOME Shell's LaunchSearch (the provider's icon) opens Reveille's desktop entry with gio launch")
    func gnomeLaunchSearch() async throws {
        let (fixture, services) = try await Self.start()
        defer {
            fixture.stop()
            try? FileManager.default.removeItem(at: services)
        }
        // Reveille's desktop entry in the person's data folder, whose program notes that it ran.
        let home = fixture.sandbox.home
        let launched = home.appendingPathComponent("launched")
        let applications = home.appendingPathComponent(".local/share/applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        let program = home.appendingPathComponent("reveille-window")
        try "#!/bin/sh\necho \"launched $*\" >> '\(launched.path)'\n".write(to: program, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program.path)
        try """
        [Desktop Entry]
        Type=Application
        Name=Reveille
        Exec=\(program.path)
        Terminal=false

        """.write(to: applications.appendingPathComponent("io.github.reveille.Reveille.desktop"), atomically: true, encoding: .utf8)
        #expect(!FileManager.default.fileExists(atPath: launched.path))

        let launch = try await Self.gnome(fixture, "LaunchSearch", "asu", "2", "timer", "10m", "0")
        #expect(launch.result.status == .exited(0), "\(launch.result)")
        let text = try await waitUntil("Reveille's desktop entry to be launched", timeout: .seconds(20)) {
            (try? String(contentsOf: launched, encoding: .utf8)).flatMap { $0.isEmpty ? nil : $0 }
        }
        #expect(text == "launched \n", "\(text.debugDescription)")
        #expect(try await fixture.listedAlarms().isEmpty, "LaunchSearch sets nothing")
    }

    @Test("Run with a result no Match gave, or an action the runner has not, is refused by name and sets nothing")
    func refusals() async throws {
        let (fixture, services) = try await Self.start()
        defer {
            fixture.stop()
            try? FileManager.default.removeItem(at: services)
        }
        let unknown = try await Self.kRunner(fixture, "Run", "ss", "set:alarm yesterday", "")
        #expect(unknown.result.status != .exited(0))
        #expect(unknown.result.error.contains("UnknownResult") || unknown.result.error.contains("no such result"), "\(unknown.result)")
        let tea = try await Self.match(fixture, "timer 10m tea")
        let badAction = try await Self.kRunner(fixture, "Run", "ss", try #require(tea.first?.id), "explode")
        #expect(badAction.result.status != .exited(0), "\(badAction.result)")
        #expect(try await fixture.listedAlarms().isEmpty)
        #expect(try await Self.match(fixture, "x").isEmpty)
    }
}
