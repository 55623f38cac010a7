import AlarmKit
import CommandLineText
import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The `reveille` command end to end, against a real agent on a private bus.
@Suite("Agent: reveille command", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
struct CLITests {
    @Test("timer, list, show, pause, resume and cancel, with --json and exit statuses")
    func timerLifeCycle() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }

        let added = try await fixture.reveille("timer", "5m", "--title", "Tea", "--snooze", "1m")
        #expect(added.status == .exited(0), "\(added)")
        let id = try #require(UUID(uuidString: added.line), "add prints the id alone: \(added.output.debugDescription)")
        let short = String(id.uuidString.lowercased().prefix(6))

        let list = try await fixture.reveille("list", "--json")
        #expect(list.status == .exited(0))
        let alarms = try JSONDecoder().decode([AlarmDescription].self, from: Data(list.output.utf8))
        #expect(alarms.count == 1)
        #expect(alarms.first?.id == id.uuidString.lowercased())
        #expect(alarms.first?.state == "countdown")
        #expect(alarms.first?.title == "Tea")
        #expect(alarms.first?.kind == "timer")
        #expect(alarms.first?.countdown == .init(preAlert: 300, postAlert: 60))
        #expect((alarms.first?.remaining ?? 0) > 290)

        let table = try await fixture.reveille("list")
        #expect(table.output.hasPrefix("ID        KIND   STATE      NEXT"))
        #expect(table.output.contains("\(String(id.uuidString.lowercased().prefix(8)))  timer  countdown"))
        #expect(table.output.contains("Tea"))

        #expect(try await fixture.reveille("pause", short).status == .exited(0))
        let paused = try await fixture.reveille("show", short, "--json")
        let pausedAlarm = try JSONDecoder().decode(AlarmDescription.self, from: Data(paused.output.utf8))
        #expect(pausedAlarm.state == "paused")

        let refused = try await fixture.reveille("stop", short)
        #expect(refused.status == .exited(65), "stop of a paused timer is refused: \(refused)")
        #expect(refused.error.contains("cannot stop an alarm that is paused"))

        #expect(try await fixture.reveille("resume", short).status == .exited(0))
        #expect(try await fixture.reveille("cancel", short).status == .exited(0))
        let empty = try await fixture.reveille("list", "--json")
        #expect(empty.line == "[]")
        let gone = try await fixture.reveille("show", short)
        #expect(gone.status == .exited(65))
        #expect(gone.error.contains("no alarm matches"))
    }

    @Test("A control command given a whole id makes one call after connecting: no NameHasOwner, no List")
    func wholeIDIsOneCall() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let added = try await fixture.reveille("timer", "1s", "--title", "One call")
        let id = try #require(UUID(uuidString: added.line), "\(added)")
        try await AlertingTests.waitForState("alerting", of: id, in: fixture)

        // Every method call on the bus, as the bus delivered it.
        let monitor = try NotifyMonitor(address: fixture.sandbox.busAddress, alsoMatching: ["type='method_call'"])
        defer { monitor.stop() }
        let stopped = try await fixture.reveille("stop", id.uuidString.lowercased())
        #expect(stopped.status == .exited(0), "\(stopped)")
        let calls = monitor.messages().filter { $0.kind == .methodCall }
        let stop = try #require(calls.first { $0.member == "Stop" }, "no Stop on the bus: \(calls.map { $0.member ?? "" })")
        // The command's connection is the sender of its Stop: connecting is `Hello`, then the one call.
        let fromCommand = calls.filter { $0.sender == stop.sender }.map { "\($0.interface ?? "").\($0.member ?? "")" }
        #expect(fromCommand == ["org.freedesktop.DBus.Hello", "io.github.reveille.Alarms1.Manager.Stop"])
        try await AlertingTests.waitForState(nil, of: id, in: fixture)

        // The 32 digits without dashes, in capitals, are a whole id too; a whole id no alarm has
        // gets the same words as a prefix no alarm has.
        let timer = try await fixture.reveille("timer", "1h", "--title", "Whole")
        let timerID = try #require(UUID(uuidString: timer.line), "\(timer)")
        let compact = timerID.uuidString.replacingOccurrences(of: "-", with: "")
        let paused = try await fixture.reveille("pause", compact)
        #expect(paused.status == .exited(0), "\(paused)")
        #expect(try await fixture.reveille("show", "--json", compact).output.contains(#""state":"paused""#))
        let unknown = UUID().uuidString.lowercased()
        let missing = try await fixture.reveille("cancel", unknown)
        #expect(missing.status == .exited(65), "\(missing)")
        #expect(missing.error.contains("no alarm matches the id \"\(unknown)\""), "\(missing.error)")
    }

    @Test("snooze ID DUR and Snooze(s, d) snooze for the time chosen; a bad time is refused by name and changes nothing")
    func snoozeForChosenTime() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let added = try await fixture.reveille("timer", "1s", "--title", "Chosen snooze", "--snooze", "1m")
        let id = try #require(UUID(uuidString: added.line), "\(added)")
        try await AlertingTests.waitForState("alerting", of: id, in: fixture)

        // Refused before anything changes: the command's own reading, then the agent's named error.
        let unreadable = try await fixture.reveille("snooze", id.uuidString, "soon")
        #expect(unreadable.status == .exited(64), "\(unreadable)")
        let connection = try fixture.client().connection
        for seconds: Double in [0, -5, .infinity, 400 * 86_400] {
            let name = await fixture.errorName(of: "Snooze", [.string(id.uuidString.lowercased()), .double(seconds)], on: connection)
            #expect(name == "io.github.reveille.Alarms1.Error.InvalidArguments", "\(seconds): \(name ?? "accepted")")
        }
        #expect(try await fixture.listedAlarms().first?.state == "alerting")

        // 20 minutes this time, not the alarm's minute.
        let snoozed = try await fixture.reveille("snooze", String(id.uuidString.prefix(8)), "20m")
        #expect(snoozed.status == .exited(0), "\(snoozed)")
        let shown = try #require(try await fixture.listedAlarms().first)
        #expect(shown.state == "countdown")
        #expect((1_190...1_200).contains(shown.remaining ?? 0), "\(shown)")
        #expect(shown.countdown?.postAlert == 60, "the alarm's own snooze stays a minute")

        // Through D-Bus, by an app on its own ringing alarm (a countdown cannot be snoozed).
        try await fixture.authorizeTestProcess()
        let secondID = UUID()
        _ = try await fixture.client().schedule(id: secondID, definition: Fixtures.timer(1, title: "By D-Bus"))
        try await AlertingTests.waitForState("alerting", of: secondID, in: fixture)
        #expect(await fixture.errorName(of: "Snooze", [.string(secondID.uuidString.lowercased()), .double(90)], on: connection) == nil)
        let viaBus = try #require(try await fixture.listedAlarms().first { $0.id == secondID.uuidString.lowercased() })
        #expect(viaBus.state == "countdown")
        #expect((80...90).contains(viaBus.remaining ?? 0), "\(viaBus)")
        #expect(
            await fixture.errorName(of: "Snooze", [.string(secondID.uuidString.lowercased()), .double(90)], on: connection)
                == "io.github.reveille.Alarms1.Error.NotAllowed")

        // Both snoozes are stored: a restarted agent counts down the same times.
        let agent = try #require(fixture.agent)
        let restarted = try await fixture.restart(agent)
        defer { restarted.terminate() }
        let relisted = try await fixture.listedAlarms()
        #expect((1_100...1_200).contains(relisted.first { $0.id == id.uuidString.lowercased() }?.remaining ?? 0), "\(relisted)")
        #expect((1...90).contains(relisted.first { $0.id == secondID.uuidString.lowercased() }?.remaining ?? 0), "\(relisted)")
    }

    @Test("An app's escape sequences in a title, a sound or its own name never reach the terminal")
    func inertAppText() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let hostile = "Tea\u{1B}]52;c;cm0gLXJmIH4=\u{07}\u{1B}[2J\r\nowned\u{9B}31m"
        let id = UUID()
        // A sound file whose name is hostile too (it must exist and play to be accepted).
        let sound = fixture.sandbox.home.appendingPathComponent("\(hostile).wav")
        try WAVFile(frames: 480) { _, _ in 0 }.write(to: sound)
        let configuration: DBusValue = .dictionary([
            "title": .string(hostile), "sound": .string(sound.path),
            "countdown": .dictionary(["preAlert": .double(600)]),
        ])
        #expect(
            await fixture.errorName(of: "Schedule", [.string(id.uuidString), configuration], on: try fixture.client().connection) == nil)
        #expect(try await fixture.reveille("auth", "allow", "org.example.\(hostile)").status == .exited(0))
        for command in [["show", id.uuidString], ["list"], ["auth", "list"]] {
            let result = try await fixture.run(Built.path("reveille"), command)
            #expect(result.status == .exited(0), "\(result)")
            #expect(
                !result.output.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" },
                "\(command): \(result.output.debugDescription)")
            #expect(result.output.contains("Tea"), "\(command): \(result.output.debugDescription)")
        }
        // JSON keeps the text exactly, escaped as JSON escapes it.
        let json = try await fixture.reveille("show", id.uuidString, "--json")
        #expect(try JSONDecoder().decode(AlarmDescription.self, from: Data(json.output.utf8)).title == hostile)
    }

    @Test("add with a clock time, days, countdown and snooze; the JSON has the schedule")
    func addAlarm() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let added = try await fixture.reveille(
            "add", "7:30", "--repeat", "weekdays", "--title", "Wake up", "--snooze", "9m", "--countdown", "10m", "--json")
        #expect(added.status == .exited(0), "\(added)")
        let alarm = try JSONDecoder().decode(AlarmDescription.self, from: Data(added.output.utf8))
        #expect(alarm.schedule == .init(hour: 7, minute: 30, weekdays: ["monday", "tuesday", "wednesday", "thursday", "friday"]))
        #expect(alarm.countdown == .init(preAlert: 600, postAlert: 540))
        #expect(alarm.state == "scheduled")
        #expect(alarm.fireDate != nil)
        #expect(alarm.title == "Wake up")
    }

    @Test("add with a moment from now: in 20m, tomorrow 7:30 (instants, in the JSON's fireDate)")
    func addMomentFromNow() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let before = Date()
        let soon = try await fixture.reveille("add", "in 20m", "--title", "Oven", "--json")
        #expect(soon.status == .exited(0), "\(soon)")
        let oven = try JSONDecoder().decode(AlarmDescription.self, from: Data(soon.output.utf8))
        let fireDate = try #require(oven.fireDate.flatMap { try? Date($0, strategy: .iso8601) }, "\(soon)")
        #expect(abs(fireDate.timeIntervalSince(before) - 1_200) < 30, "\(soon)")

        let added = try await fixture.reveille("add", "tomorrow 7:30", "--title", "Train", "--json")
        #expect(added.status == .exited(0), "\(added)")
        let train = try JSONDecoder().decode(AlarmDescription.self, from: Data(added.output.utf8))
        let expected = try ClockTimeInput.parse("tomorrow 7:30", timeZone: .current, now: before)
        #expect(train.fireDate.flatMap { try? Date($0, strategy: .iso8601) }.map { Alarm.Schedule.fixed($0) } == expected, "\(added)")
    }

    static let badInputs: [([String], String)] = [
        (["add", "25:00"], "hour"),
        (["add", "in 20x"], "in 20x"),
        (["add", "tomorrow 25:00"], "tomorrow 25:00"),
        (["add", "7:30", "--repeat", "mnday"], "mnday"),
        (["timer", "5x"], "5x"),
        (["timer", "90"], "needs a unit"),
        (["add", "2020-01-01 07:30"], "already passed"),
        (["add", "2999-01-01 07:30"], "more than 100 years away"),
        (["timer", "5m", "--id", "not-a-uuid"], "--id"),
        (["timer", "5m", "--title", String(repeating: "a", count: 1_001)], "--title"),
        (["cancel", "zzz"], "zzz"),
        (["show", " "], "no alarm id"),
        (["auth", "allow", String(repeating: "a", count: 4_097)], "longer than 4096 bytes"),
        (["frobnicate"], "frobnicate"),
        // A word with one dash and an h among other characters is not a request for help.
        (["timer", "5m", "-h 30m"], "-h 30m"),
        (["timer", "5m", "-hq"], "-hq"),
    ]

    @Test("Bad input exits 64 with a message naming the bad part, and changes nothing", arguments: badInputs)
    func badInput(arguments: [String], named: String) async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let result = try await fixture.run(Built.path("reveille"), arguments)
        #expect(result.status == .exited(64), "\(result)")
        #expect(result.error.contains(named), "\(result)")
        let list = try await fixture.reveille("list", "--json")
        #expect(list.line == "[]")
    }

    @Test("Bad input exits 64 before the agent is asked: the same with no bus to reach", arguments: badInputs)
    func badInputWithoutBus(arguments: [String], named: String) async throws {
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let result = try await fixture.run(
            Built.path("reveille"), arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/reveille-test-bus"])
        #expect(result.status == .exited(64), "\(result)")
        #expect(result.error.contains(named), "\(result)")
    }

    @Test("An unreachable bus exits 69")
    func unreachable() async throws {
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let result = try await fixture.reveille(
            "list", environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/reveille-test-bus"])
        #expect(result.status == .exited(69), "\(result)")
        #expect(result.error.contains("session bus"))
    }

    @Test("The command starts the agent when it is not running, from its own folder")
    func startsAgent() async throws {
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        #expect(try fixture.sandbox.busNameOwner(AgentClient.busName) == nil)
        let status = try await fixture.reveille("status", "--json")
        #expect(
            status.line.hasPrefix(#"{"loginStart":"#) && status.line.contains(#""running":false"#),
            "status does not start the agent: \(status)")
        let added = try await fixture.reveille("timer", "10m")
        #expect(added.status == .exited(0), "\(added)")
        let pid = try #require(try fixture.sandbox.busNameOwnerPID(AgentClient.busName))
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        #expect(URL(fileURLWithPath: executable).lastPathComponent == "reveilled")
        let running = try await fixture.reveille("status")
        #expect(running.output.contains("agent    running"), "\(running)")
        #expect(running.output.contains("\ntimer    armed\n"), "the agent's own wake-up timer is armed: \(running)")
        #expect(running.output.contains("alarms   1"))
        kill(pid, SIGTERM)
    }

    @Test("Shell completions for bash, zsh and fish come from the same definitions", arguments: ["bash", "zsh", "fish"])
    func completions(shell: String) async throws {
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let script = try await fixture.reveille("--generate-completion-script", shell)
        #expect(script.status == .exited(0))
        for command in [
            "add", "timer", "list", "show", "cancel", "snooze", "skip", "unskip", "off", "on", "watch", "status", "history", "auth",
        ] {
            #expect(script.output.contains(command), "\(shell) completion lacks \(command)")
        }
        #expect(script.output.contains("repeat"))
    }

    @Test("Every command's --help has examples")
    func helpExamples() async throws {
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        for command in [
            "add", "timer", "list", "show", "cancel", "pause", "resume", "stop", "snooze", "skip", "unskip", "off", "on", "watch", "status",
            "history",
        ] {
            let help = try await fixture.run(Built.path("reveille"), [command, "--help"])
            #expect(help.output.contains("Example"), "reveille \(command) --help has no example")
        }
    }

    @Test("With the agent installed for D-Bus activation, the command starts it through the bus")
    func activation() async throws {
        let services = Fixtures.temporaryDirectory("reveille-services")
        defer { try? FileManager.default.removeItem(at: services) }
        try "[D-BUS Service]\nName=io.github.reveille.Alarms1\nExec=\(Built.path("reveilled"))\n"
            .write(to: services.appendingPathComponent("io.github.reveille.Alarms1.service"), atomically: true, encoding: .utf8)
        let sandbox = try await offPool { try DesktopSandbox(startsNotificationServer: false, serviceDirectories: [services]) }
        let fixture = AgentFixture(sandbox: sandbox, agent: nil)
        defer { fixture.stop() }
        let added = try await fixture.reveille("timer", "10m")
        #expect(added.status == .exited(0), "\(added)")
        let pid = try #require(try fixture.sandbox.busNameOwnerPID(AgentClient.busName))
        // Started by the bus, not by the command: the command starts it with its output going to
        // its own log file, which does not exist.
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        #expect(URL(fileURLWithPath: executable).lastPathComponent == "reveilled")
        let log = fixture.sandbox.stateHome.appendingPathComponent("reveille/reveilled.log")
        #expect(!FileManager.default.fileExists(atPath: log.path), "the command started the agent itself")
        kill(pid, SIGTERM)
    }

    @Test("history lists the alert with its scheduled and actual instants")
    func history() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let id = try await fixture.reveille("timer", "1s", "--title", "Egg").line
        let watch = try fixture.sandbox.spawn(Built.path("reveille"), ["watch", "--json"])
        _ = try await watch.waitForStandardOutput(containing: #""state":"alerting""#, timeout: .seconds(30))
        watch.terminate()
        #expect(try await fixture.reveille("stop", id).status == .exited(0))
        let history = try await fixture.reveille("history", "--json")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(history.output.utf8)) as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries.first?["outcome"] as? String == "stopped")
        #expect(entries.first?["title"] as? String == "Egg")
        #expect(entries.first?["scheduledAt"] is String)
        #expect(entries.first?["alertedAt"] is String)
        let lateness = try #require(entries.first?["lateness"] as? Double)
        #expect(lateness >= 0 && lateness < 1)
    }

    @Test("status says whether the agent starts at the next login, and how, from the files that decide it")
    func loginStart() async throws {
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let files = FileManager.default
        // The machine's own /etc/xdg and /usr/share stay out of it.
        let systemFolders = sandbox.root.appendingPathComponent("system")
        let environment = [
            "XDG_CONFIG_DIRS": systemFolders.appendingPathComponent("xdg").path,
            "XDG_DATA_DIRS": systemFolders.appendingPathComponent("share").path,
        ]
        func login() async throws -> (route: String, startsAtLogin: Bool, text: String) {
            let json = try await fixture.reveille("status", "--json", environment: environment)
            try #require(json.status == .exited(0), "\(json)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
            let text = try await fixture.reveille("status", environment: environment)
            let line = text.output.split(separator: "\n").first { $0.hasPrefix("login") }.map(String.init) ?? text.output
            return (object["loginStart"] as? String ?? "", object["startsAtLogin"] as? Bool ?? false, line)
        }
        func write(_ text: String, to path: URL) throws {
            try files.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: path, atomically: true, encoding: .utf8)
        }

        let nothing = try await login()
        #expect(nothing.route == "not-installed" && !nothing.startsAtLogin, "\(nothing)")
        #expect(nothing.text.contains("not installed"), "\(nothing.text)")

        try write(
            "[D-BUS Service]\nName=io.github.reveille.Alarms1\n",
            to: sandbox.dataHome.appendingPathComponent("dbus-1/services/io.github.reveille.Alarms1.service"))
        let activation = try await login()
        #expect(activation.route == "dbus-activation" && !activation.startsAtLogin, "\(activation)")
        #expect(activation.text.contains("systemctl --user enable reveilled.service"), "\(activation.text)")

        let entry = sandbox.configHome.appendingPathComponent("autostart/io.github.reveille.Reveilled.desktop")
        try write("[Desktop Entry]\nType=Application\nExec=reveilled\nHidden=true\n", to: entry)
        #expect(try await login().route == "dbus-activation", "a hidden autostart entry starts nothing")
        try write("[Desktop Entry]\nType=Application\nExec=reveilled\nX-systemd-skip=true\n", to: entry)
        let autostart = try await login()
        #expect(autostart.route == "autostart-entry" && autostart.startsAtLogin, "\(autostart)")

        // Enabled as `systemctl --user enable` does it: a link in default.target.wants.
        let unit = sandbox.dataHome.appendingPathComponent("systemd/user/reveilled.service")
        let link = sandbox.configHome.appendingPathComponent("systemd/user/default.target.wants/reveilled.service")
        try files.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
        try files.createSymbolicLink(atPath: link.path, withDestinationPath: unit.path)
        #expect(try await login().route == "autostart-entry", "a link to a unit that is not there enables nothing")
        try write("[Service]\nExecStart=/usr/bin/reveilled\n", to: unit)
        let enabled = try await login()
        #expect(enabled.route == "systemd-unit" && enabled.startsAtLogin, "\(enabled)")
        #expect(enabled.text.contains("reveilled.service is enabled") && enabled.text.contains("autostart entry"), "\(enabled.text)")
    }
}
