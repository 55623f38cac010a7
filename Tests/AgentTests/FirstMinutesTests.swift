import AlarmKit
import CommandLineText
import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The first minutes at the keyboard (issue 38), end to end against the real agent: what the
/// command says on a terminal (read off a tmux pane), snooze by default, `edit`, and a second
/// copy of the command saying it waits for the person's answer.
@Suite(
    "Agent: the first minutes at the keyboard", .onItsOwnThread, .serialized,
    .requires(Built.unavailable ?? (WatchPane.isAvailable ? nil : "tmux is not installed (scripts/install-deps installs it)")),
    .timeLimit(.minutes(5)))
struct FirstMinutesTests {
    /// A weekday's English abbreviation or a date, then the time, as `list` writes it.
    static let when = #"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun|\d{4}-\d\d-\d\d) \d\d:\d\d"#

    @Test("On a terminal add, timer, off, on, skip and edit say what will happen and when; piped they print what they always did")
    func saysWhatWasSet() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let added = try await fixture.onTerminal("add", "7:30")
        let alarm = try #require(try await fixture.listedAlarms().first)
        let short = String(alarm.id.prefix(8))
        #expect(
            added.contains(
                try Regex(
                    #"Alarm set for \#(Self.when), in (\d+ h( \d+ min)?|\d+ min) \(\#(short)\)\. Cancel it with: reveille cancel \#(alarm.id.prefix(4))"#
                )), "\(added)")
        let fireDate = try #require(alarm.fireDate.flatMap { try? Date($0, strategy: .iso8601) })
        let shownTime = LocalTimeFormat.string(for: fireDate, at: .local())
        #expect(added.contains("Alarm set for \(shownTime),"), "the time shown is the one it rings at (\(shownTime)):\n\(added)")

        let timer = try await fixture.onTerminal("timer", "5m", "--title", "Tea")
        #expect(
            timer.contains(
                try Regex(#"“Tea” set for 5 min, rings at \#(Self.when) \([0-9a-f]{8}\)\. Cancel it with: reveille cancel [0-9a-f]{4,}"#)),
            "\(timer)")

        let weekly = try await fixture.onTerminal("add", "weekdays 7:00", "--title", "Work")
        #expect(
            weekly.contains(
                try Regex(
                    #"“Work” set for 07:00 on weekdays; next \#(Self.when), in .+ \([0-9a-f]{8}\)\. Turn it off with: reveille off [0-9a-f]{4,}"#
                )), "\(weekly)")
        let work = try #require(try await fixture.listedAlarms().first { $0.title == "Work" })

        let skipped = try await fixture.onTerminal("skip", work.id)
        #expect(
            skipped.contains(
                try Regex(#"“Work” skips \#(Self.when); next \#(Self.when), in .+\. Undo with: reveille unskip [0-9a-f]{4,}"#)),
            "\(skipped)")
        let off = try await fixture.onTerminal("off", work.id)
        #expect(off.contains(try Regex(#"“Work” is off; it keeps its settings\. Turn it on with: reveille on [0-9a-f]{4,}"#)), "\(off)")
        let on = try await fixture.onTerminal("on", work.id)
        #expect(on.contains(try Regex(#"“Work” is on: next \#(Self.when), in .+\."#)), "\(on)")
        let edited = try await fixture.onTerminal("edit", work.id, "--time", "6:45")
        #expect(
            edited.contains(try Regex(#"“Work” changed: 06:45 on weekdays; next \#(Self.when), in .+ \(\#(work.id.prefix(8))\)\."#)),
            "\(edited)")

        // Piped: the id alone, and nothing from the control commands, as always.
        let piped = try await fixture.reveille("add", "8:15")
        #expect(piped.output.range(of: #"^[0-9a-f-]{36}\n$"#, options: .regularExpression) != nil, "\(piped)")
        for command in ["off", "on", "skip"] {
            let quiet = try await fixture.reveille(command, work.id)
            #expect(quiet.status == .exited(0) && quiet.output.isEmpty, "\(command): \(quiet)")
        }
        #expect(try await fixture.reveille("unskip", work.id).status == .exited(0))
    }

    @Test("In German, on a terminal: the sentence, its day and time, and the length are German")
    func saysItInGerman() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let environment = try TranslationCatalogs.environment(lang: "de_DE.UTF-8")
        let added = try await fixture.onTerminal("timer", "1h30m", "--title", "Tee", environment: environment)
        #expect(
            added.contains(
                try Regex(
                    #"„Tee“ gestellt auf 1 Std\. 30 Min\., klingelt um \w\w\.? \d\d:\d\d \([0-9a-f]{8}\)\. Zum Abbrechen: reveille cancel [0-9a-f]{4,}"#
                )), "\(added)")
        let refused = try await fixture.reveille("timer", "0", environment: environment)
        #expect(refused.status == .exited(64))
        #expect(refused.error.contains(#"ungültige Dauer "0": sie muss länger als null sein"#), "\(refused)")
    }

    @Test("An alarm made by the command snoozes by default, for the agent's length; --no-snooze leaves Snooze out; --snooze sets its own")
    func snoozeByDefault() async throws {
        let fixture = try await AgentFixture.start(notificationServer: true, agentArguments: ["--default-snooze", "120"])
        defer { fixture.stop() }
        let monitor = try fixture.sandbox.monitorNotifyCalls()
        // The JSON is what it always was: no countdown of its own.
        let added = try await fixture.reveille("add", "in 1s", "--title", "Nap", "--json")
        let nap = try JSONDecoder().decode(AlarmDescription.self, from: Data(added.output.utf8))
        #expect(nap.countdown == nil, "\(added)")
        let alert = try await monitor.waitForNotify(matching: { $0.summary == "Nap" && !$0.actions.isEmpty }, timeout: .seconds(30))
        #expect(alert.actions.contains("Snooze"), "the alert offers Snooze: \(alert.actions)")
        let shown = try await fixture.reveille("show", nap.id)
        #expect(shown.output.contains("snooze    2m, the agent's (reveilled --default-snooze)"), "\(shown)")
        #expect(try await fixture.reveille("snooze", nap.id).status == .exited(0))
        let snoozed = try #require(try await fixture.listedAlarms().first { $0.id == nap.id })
        #expect(snoozed.state == "countdown" && (110...120).contains(snoozed.remaining ?? 0), "the agent's 2 minutes: \(snoozed)")

        let bare = try await fixture.reveille("add", "in 1s", "--title", "Bare", "--no-snooze", "--json")
        let bareID = try JSONDecoder().decode(AlarmDescription.self, from: Data(bare.output.utf8)).id
        let bareAlert = try await monitor.waitForNotify(matching: { $0.summary == "Bare" && !$0.actions.isEmpty }, timeout: .seconds(30))
        #expect(!bareAlert.actions.contains("Snooze"), "\(bareAlert.actions)")
        let refused = try await fixture.reveille("snooze", bareID)
        #expect(refused.status == .exited(65), "\(refused)")
        #expect(try await fixture.reveille("stop", bareID).status == .exited(0))

        let own = try await fixture.reveille("add", "in 1h", "--snooze", "5m", "--json")
        #expect(try JSONDecoder().decode(AlarmDescription.self, from: Data(own.output.utf8)).countdown?.postAlert == 300)
        let both = try await fixture.reveille("add", "7:30", "--snooze", "5m", "--no-snooze")
        #expect(both.status == .exited(64) && both.error.contains("--snooze or --no-snooze"), "\(both)")
    }

    @Test("edit changes only what is given, keeps the id, the history and the state; refuses as add refuses")
    func edit() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let id = try await fixture.reveille("add", "weekdays 7:00", "--title", "Wake", "--snooze", "5m", "--volume", "60").line
        func alarm() async throws -> AlarmDescription { try #require(try await fixture.listedAlarms().first { $0.id == id }) }

        #expect(try await fixture.reveille("edit", id, "--time", "6:45").status == .exited(0))
        var now = try await alarm()
        let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday"]
        #expect(now.schedule == .init(hour: 6, minute: 45, weekdays: weekdays) && now.title == "Wake" && now.volume == 60, "\(now)")
        #expect(now.countdown == .init(preAlert: nil, postAlert: 300))

        #expect(
            try await fixture.reveille("edit", String(id.prefix(6)), "--repeat", "sat,sun", "--title", "Lie in", "--sound", "chimes").status
                == .exited(0))
        now = try await alarm()
        #expect(
            now.schedule == .init(hour: 6, minute: 45, weekdays: ["saturday", "sunday"]) && now.title == "Lie in" && now.sound == "chimes",
            "\(now)")
        #expect(
            try await fixture.reveille("edit", id, "--time", "weekends 9:30", "--volume", "default", "--no-snooze").status == .exited(0))
        now = try await alarm()
        #expect(
            now.schedule == .init(hour: 9, minute: 30, weekdays: ["saturday", "sunday"]) && now.volume == nil && now.countdown == nil,
            "\(now)")
        #expect(try await fixture.listedAlarms().count == 1, "the same alarm, not a second one")

        // The history and the state stay: a timer that rang and was snoozed keeps counting down.
        let tea = try await fixture.reveille("timer", "1s", "--title", "Tea", "--snooze", "1h").line
        try await AlertingTests.waitForState("alerting", of: try #require(UUID(uuidString: tea)), in: fixture)
        let ringing = try await fixture.reveille("edit", tea, "--title", "Green tea")
        #expect(ringing.status == .exited(65) && ringing.error.contains("cannot edit an alarm that is alerting"), "\(ringing)")
        #expect(try await fixture.reveille("snooze", tea).status == .exited(0))
        #expect(try await fixture.reveille("edit", tea, "--title", "Green tea").status == .exited(0))
        let snoozed = try #require(try await fixture.listedAlarms().first { $0.id == tea })
        #expect(
            snoozed.title == "Green tea" && snoozed.state == "countdown" && (3_500...3_600).contains(snoozed.remaining ?? 0), "\(snoozed)")
        let history = try await fixture.reveille("history", "--json")
        #expect(history.output.contains(#""alarmID":"\#(tea)""#), "the alert stays in the history: \(history)")

        // The same rules and words as add, before the agent is asked; and the agent's own.
        let cases: [([String], Int32, String)] = [
            (["edit", id], 64, "nothing to change"),
            (["edit", id, "--time", "25:00"], 64, #"invalid --time "25:00": the hour must be 0 to 23"#),
            (["edit", id, "--repeat", "mnday"], 64, #"invalid --repeat "mnday""#),
            (["edit", id, "--snooze", "0"], 64, #"invalid --snooze "0": it must be longer than zero"#),
            (["edit", id, "--volume", "loud"], 64, #"invalid --volume "loud": use a whole number from 0 to 100, as in 60"#),
            (["edit", id, "--title", String(repeating: "a", count: 1_001)], 64, "--title"),
            (["edit", tea, "--time", "7:30"], 64, "a timer has no clock time"),
            (["edit", id, "--sound", "no-such-sound"], 64, "no sound named"),
            (["edit", UUID().uuidString, "--title", "X"], 65, "no alarm matches"),
        ]
        for (arguments, status, message) in cases {
            let result = try await fixture.run(Built.path("reveille"), arguments)
            #expect(result.status == .exited(status) && result.error.contains(message), "\(arguments): \(result)")
        }
        #expect(try await alarm().title == "Lie in", "a refused edit changes nothing")
    }

    @Test("Edit over D-Bus: one call, named errors, an app may change only its own alarms")
    func editOverDBus() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let client = try fixture.client()
        let connection = client.connection
        let mine = UUID()
        _ = try await client.schedule(id: mine, definition: Fixtures.definition(Fixtures.clockTime(7, 0), title: "Mine"))
        let reply = try await connection.call(
            destination: AgentClient.busName, path: AgentClient.managerPath, interface: AgentClient.managerInterface, method: "Edit",
            arguments: [.string(mine.lowercasedText()), .dictionary(["title": .string("Renamed"), "weekdays": .strings(["monday"])])])
        let changed = try #require(reply.first?.dictionaryValue)
        #expect(changed["title"]?.stringValue == "Renamed" && changed["id"]?.stringValue == mine.lowercasedText())
        let errors: [([String: DBusValue], String)] = [
            ([:], "InvalidConfiguration"), (["frobnicate": .boolean(true)], "InvalidConfiguration"),
            (["time": .dictionary(["hour": .int32(24), "minute": .int32(0)])], "InvalidConfiguration"),
            (["snooze": .double(-1)], "InvalidConfiguration"), (["sound": .string("no-such-sound")], "InvalidSound"),
        ]
        for (changes, name) in errors {
            let error = await fixture.errorName(of: "Edit", [.string(mine.lowercasedText()), .dictionary(changes)], on: connection)
            #expect(error == "io.github.reveille.Alarms1.Error.\(name)", "\(changes): \(error ?? "accepted")")
        }
        #expect(
            await fixture.errorName(of: "Edit", [.string("nope"), .dictionary(["title": .string("X")])], on: connection)
                == "io.github.reveille.Alarms1.Error.InvalidArguments")
        // The person's alarm is not the app's to change.
        let persons = try await fixture.reveille("add", "8:00", "--title", "Person's").line
        #expect(
            await fixture.errorName(of: "Edit", [.string(persons), .dictionary(["title": .string("Taken")])], on: connection)
                == "io.github.reveille.Alarms1.Error.NotFound")
        #expect(try await fixture.listedAlarms().first { $0.id == persons }?.title == "Person's")
    }

    @Test("A second copy of reveille, an app to the agent, says at once on stderr that it waits for the person, and where the question is")
    func saysItWaits() async throws {
        let fixture = try await AgentFixture.start(notificationServer: true)
        defer { fixture.stop() }
        let copy = Fixtures.temporaryDirectory("reveille-second-copy").appendingPathComponent("reveille")
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        try FileManager.default.copyItem(atPath: Built.path("reveille"), toPath: copy.path)
        let started = ContinuousClock.now
        let waiting = try fixture.sandbox.spawn(copy.path, ["add", "7:30", "--title", "From the copy"])
        let said = try await waitUntil("the copy to say it waits", timeout: .seconds(10), detail: { waiting.outputs() }) { () -> String? in
            waiting.standardError.contains("waiting for you to allow") ? waiting.standardError : nil
        }
        #expect(ContinuousClock.now - started < .seconds(5), "said at once")
        let server = try await fixture.notificationServer()
        #expect(
            said.contains("(\(copy.path))") && said.contains("“Allow “reveille” to set alarms?”") && said.contains(server.name), "\(said)")
        #expect(said.contains("reveille auth allow \(copy.path)"), "\(said)")
        try await fixture.sandbox.waitForDisplayedCount(1)
        _ = try await offPool { try fixture.sandbox.pickAction("allow") }
        #expect(try await waiting.waitForExit(timeout: .seconds(30)) == .exited(0), "\(waiting.outputs())")
        // Once allowed it says nothing; the person's own command never does.
        let again = try await fixture.run(copy.path, ["timer", "5m"])
        #expect(again.status == .exited(0) && again.error.isEmpty, "\(again)")
        #expect(try await fixture.reveille("timer", "5m").error.isEmpty)
    }

    @Test(
        "Tab in bash, zsh and fish completes alarm ids (with title and next alert where the shell shows descriptions), days after --repeat, sound names",
        arguments: ["bash", "zsh", "fish"])
    func completesOnTab(shell: String) async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let tea = try await fixture.reveille("timer", "10m", "--title", "Green tea")
        let work = try await fixture.reveille("add", "weekdays 7:00", "--title", "Work")
        let (teaID, workID) = (String(tea.output.prefix(8)), String(work.output.prefix(8)))
        // The script the command generates, read by the shell as an installed one is.
        let folder = Fixtures.temporaryDirectory("reveille-completion")
        let script = try await fixture.reveille("--generate-completion-script", shell)
        let bin = URL(fileURLWithPath: Built.path("reveille")).deletingLastPathComponent().path
        // tmux gives a new session the client's PATH whatever -e says: each shell sets its own.
        var environment = fixture.sandbox.environment
        let command: [String]
        switch shell {
        case "bash":
            try script.output.write(to: folder.appendingPathComponent("reveille.bash"), atomically: true, encoding: .utf8)
            // Readline lists the ids at the first Tab even when they share a first letter (one
            // time in 16): by default it would insert that letter and list only at a third Tab.
            try "PS1='$ '\nPATH=\(bin):$PATH\nbind 'set show-all-if-ambiguous on'\nsource \(folder.path)/reveille.bash\n".write(
                to: folder.appendingPathComponent("bashrc"), atomically: true, encoding: .utf8)
            command = ["/usr/bin/bash", "--noprofile", "--rcfile", folder.appendingPathComponent("bashrc").path, "-i"]
        case "zsh":
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("functions"), withIntermediateDirectories: true)
            try script.output.write(to: folder.appendingPathComponent("functions/_reveille"), atomically: true, encoding: .utf8)
            // zsh too lists at the first Tab, not only when nothing would be inserted.
            try
                "PS1='%% '\nunsetopt list_ambiguous\npath=(\(bin) $path)\nfpath=(\(folder.path)/functions $fpath)\nautoload -Uz compinit && compinit -u -d \(folder.path)/zcompdump\n"
                .write(to: folder.appendingPathComponent(".zshrc"), atomically: true, encoding: .utf8)
            environment["ZDOTDIR"] = folder.path
            command = ["/usr/bin/zsh", "-i"]
        default:
            try script.output.write(to: folder.appendingPathComponent("reveille.fish"), atomically: true, encoding: .utf8)
            command = [
                "/usr/bin/fish", "--no-config", "-C",
                "function fish_prompt; echo '> '; end; set -gx PATH \(bin) $PATH; source \(folder.path)/reveille.fish",
            ]
        }
        #expect(
            FileManager.default.isExecutableFile(atPath: command[0]), "\(shell) is not installed (scripts/install-deps --tests installs it)"
        )
        // The pane's tmux server ends, and the folder goes, whether the steps pass or not.
        let pane = WatchPane(fixture: fixture, folder: folder)
        do {
            try await typeAndComplete(in: pane, command: command, environment: environment, shell: shell, ids: (teaID, workID))
        } catch {
            await pane.close()
            throw error
        }
        await pane.close()
    }

    /// Starts `command` (the shell) in `pane` and presses Tab after an id, a day and a sound.
    private func typeAndComplete(
        in pane: WatchPane, command: [String], environment: [String: String], shell: String, ids: (String, String)
    ) async throws {
        let (teaID, workID) = ids
        try await pane.tmux(
            ["start-server", ";", "new-session", "-d", "-s", WatchPane.session, "-x", "160", "-y", "30"]
                + environment.filter { $0.key != "TERM" }.sorted { $0.key < $1.key }.flatMap { ["-e", "\($0.key)=\($0.value)"] }
                + ["--"] + command)
        // Two alarms: the shell lists both, zsh and fish with their titles.
        try await pane.tmux(["send-keys", "-t", WatchPane.session, "reveille cancel ", "Tab"])
        let ids = try await pane.waitForScreen("the alarms' ids") { $0.contains(teaID) && $0.contains(workID) }
        if shell != "bash" {
            #expect(ids.contains(try Regex(#"\#(teaID)\s.*Green tea \(\#(Self.when)\)"#)), "\(ids)")
            #expect(ids.contains(try Regex(#"\#(workID)\s.*Work \(Mon 07:00\)"#)), "\(ids)")
        }
        // A day after those typed (never one typed already), and a sound by its name: one
        // candidate each, which the shell writes into the line.
        try await pane.tmux(["send-keys", "-t", WatchPane.session, "C-c"])
        // The shell's new prompt comes after the interrupted line, once the completion has ended.
        try await Task.sleep(for: .milliseconds(500))
        try await pane.tmux(["send-keys", "-t", WatchPane.session, "reveille add 7:00 --repeat mon,th", "Tab"])
        try await pane.waitForScreen("the day completed") { $0.contains("--repeat mon,thu") }
        try await pane.tmux(["send-keys", "-t", WatchPane.session, "C-c"])
        // The shell's new prompt comes after the interrupted line, once the completion has ended.
        try await Task.sleep(for: .milliseconds(500))
        try await pane.tmux(["send-keys", "-t", WatchPane.session, "reveille sounds play bug", "Tab"])
        try await pane.waitForScreen("the sound's name completed") { $0.contains("sounds play bugle") }
        // A sound file: its path is completed as a file's.
        try await pane.tmux(["send-keys", "-t", WatchPane.session, "C-c"])
        try await Task.sleep(for: .milliseconds(500))
        try await pane.tmux([
            "send-keys", "-t", WatchPane.session, "reveille add 7:30 --sound /usr/share/sounds/freedesktop/stereo/alarm-clock-el", "Tab",
        ])
        try await pane.waitForScreen("the sound file's path completed") { $0.contains("stereo/alarm-clock-elapsed.oga") }
    }

    @Test(
        "sounds lists Reveille's four and the desktop theme's (GNOME's or Plasma's choice), the theme's alarm-clock-elapsed the default; sounds play rings one at the sink for the time asked",
        arguments: ["KDE", "GNOME"])
    func soundsToChoose(desktop: String) async throws {
        // GNOME's settings live in dconf: its service, activated on the sandbox's bus as a session's is.
        let services = Fixtures.temporaryDirectory("reveille-dconf-service")
        defer { try? FileManager.default.removeItem(at: services) }
        try FileManager.default.copyItem(
            atPath: "/usr/share/dbus-1/services/ca.desrt.dconf.service",
            toPath: services.appendingPathComponent("ca.desrt.dconf.service").path)
        let sandbox = try await offPool {
            try DesktopSandbox(startsNotificationServer: false, serviceDirectories: [services], pacedBytesPerSecond: AlertingTests.pace)
        }
        let fixture = AgentFixture(sandbox: sandbox, agent: nil)
        defer { fixture.stop() }
        // The person chose the sound theme "ocean", which has its own alarm-clock-elapsed: in
        // Plasma's settings (kdeglobals) or GNOME's (GSettings, through the real dconf).
        let config = URL(fileURLWithPath: try #require(sandbox.environment["XDG_CONFIG_HOME"]))
        let data = URL(fileURLWithPath: try #require(sandbox.environment["XDG_DATA_HOME"]))
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        if desktop == "KDE" {
            try "[General]\nColorScheme=BreezeLight\n\n[Sounds]\nEnable=true\nTheme=ocean\n"
                .write(to: config.appendingPathComponent("kdeglobals"), atomically: true, encoding: .utf8)
        } else {
            _ = try await offPool { try sandbox.run("gsettings", ["set", "org.gnome.desktop.sound", "theme-name", "ocean"]) }
        }
        let theme = data.appendingPathComponent("sounds/ocean")
        try FileManager.default.createDirectory(at: theme.appendingPathComponent("stereo"), withIntermediateDirectories: true)
        try "[Sound Theme]\nName=Ocean\nInherits=freedesktop\nDirectories=stereo\n\n[stereo]\nOutputProfile=stereo\n"
            .write(to: theme.appendingPathComponent("index.theme"), atomically: true, encoding: .utf8)
        let oceanAlarm = theme.appendingPathComponent("stereo/alarm-clock-elapsed.oga")
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        try FileManager.default.copyItem(at: repository.appendingPathComponent("sounds/dawn.oga"), to: oceanAlarm)
        let agent = try sandbox.spawn(Built.path("reveilled"), ["--ramp", "0"], environment: ["XDG_CURRENT_DESKTOP": desktop])
        defer { agent.terminate() }
        try await offPool { try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }

        let listed = try await fixture.reveille("sounds")
        #expect(listed.status == .exited(0), "\(listed)")
        for line in ["Reveille's sounds:", "The sound theme “ocean”:", "--sound ~/Music/birds.ogg", "reveille sounds play NAME"] {
            #expect(listed.output.contains(line), "\(line): \(listed)")
        }
        #expect(
            listed.output.contains(
                try Regex(
                    #"(?m)^  beeps +rising two-tone beeps\n  chimes +soft bell chimes, slowly falling\n  dawn +a gentle rising melody\n  bugle +the Reveille bugle call$"#
                )), "\(listed)")
        #expect(listed.output.contains(try Regex(#"“ocean”:\n  alarm-clock-elapsed +\(the default\)\n"#)), "\(listed)")
        #expect(!listed.output.contains(" -\n"), "a theme's sound has no description to show: \(listed)")
        struct Sound: Decodable { var name, origin, theme, path: String; var `default`: Bool }
        let sounds = try JSONDecoder().decode([Sound].self, from: Data(try await fixture.reveille("sounds", "--json").output.utf8))
        #expect(
            sounds.prefix(4).map(\.name) == ["beeps", "chimes", "dawn", "bugle"] && sounds.prefix(4).allSatisfy { $0.origin == "reveille" })
        let chosen = sounds.filter(\.default)
        #expect(chosen.count == 1 && chosen.first?.theme == "ocean" && chosen.first?.path == oceanAlarm.path, "\(chosen)")

        // Heard at the sink: about two seconds of sound, then silence (not a loop that goes on).
        let before = sandbox.capturedByteCount
        let started = ContinuousClock.now
        let played = try await fixture.reveille("sounds", "play", "chimes", "--for", "2s")
        #expect(played.status == .exited(0), "\(played)")
        let total = try await sandbox.waitForSilence()
        let seconds = Double(total - before) / Double(AlertingTests.pace)
        #expect((1.5...3.0).contains(seconds), "\(seconds) s of sound reached the sink")
        #expect(sandbox.capturedSamples().contains { abs(Int($0)) > 5_000 }, "the sink heard only silence")
        #expect(ContinuousClock.now - started >= .seconds(2), "the command returns once the sound has played")

        let unknown = try await fixture.reveille("sounds", "play", "trumpet")
        #expect(unknown.status == .exited(64) && unknown.error.contains("reveille sounds"), "\(unknown)")
        let tooLong = try await fixture.reveille("sounds", "play", "chimes", "--for", "1m")
        #expect(tooLong.status == .exited(64) && tooLong.error.contains("at most 30s"), "\(tooLong)")
    }
}

extension AgentFixture {
    /// Runs `reveille` with `arguments` on a terminal (a tmux pane of 160 columns) and returns
    /// what the pane shows once it has ended: what a person sees.
    func onTerminal(_ arguments: String..., environment: [String: String] = [:]) async throws -> String {
        let pane = WatchPane(fixture: self, folder: Fixtures.temporaryDirectory("reveille-tmux"))
        let variables = sandbox.environment.merging(environment) { $1 }.filter { $0.key != "TERM" }.sorted { $0.key < $1.key }
        let script = #""$0" "$@"; printf '[exit %s]\n' "$?"; sleep 60"#
        let screen: String
        do {
            try await pane.tmux(
                ["start-server", ";", "new-session", "-d", "-s", WatchPane.session, "-x", "160", "-y", "20"]
                    + variables.flatMap { ["-e", "\($0.key)=\($0.value)"] }
                    + ["--", "/bin/sh", "-c", script, Built.path("reveille")] + arguments)
            screen = try await pane.waitForScreen("reveille \(arguments.joined(separator: " ")) to end") { $0.contains("[exit ") }
        } catch {
            await pane.close()
            throw error
        }
        await pane.close()
        #expect(screen.contains("[exit 0]"), "\(arguments): \(screen)")
        // tmux wraps nothing at 160 columns; lines are joined for the sentence's regular expressions.
        return screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
    }
}
