import AlarmKit
import CommandLineText
import Foundation
import Testing
import TestRequirements
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `reveille watch`'s live view end to end: in a tmux pane against a real agent, driven with keys
/// and read off the screen as a person would.
@Suite(
    "Agent: reveille watch", .onItsOwnThread, .serialized,
    .requires(Built.unavailable ?? (WatchPane.isAvailable ? nil : "tmux is not installed (scripts/install-deps --tests installs it)")),
    .timeLimit(.minutes(10)))
struct WatchViewTests {
    @Test("A timer shows its title, a progress bar and its time left, ticking; ↑/↓ select; p pauses, r resumes")
    func countdownPauseResume() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await WatchPane.with(fixture) { pane in
            try await pane.waitForScreen("the empty list") { $0.contains("No alarms.") }
            let tea = try await fixture.reveille("timer", "5m", "--title", "Tea").line
            let teaRow = try Regex(#"› \#(tea.prefix(8))  running  \[[█·]{20}\] 00:04:5\d  Tea"#)
            let first = try await pane.waitForScreen("Tea counting down") { $0.contains(teaRow) }
            #expect(first.contains("Reveille  1 alarm "))
            // The time left ticks down by itself, without any change from the agent.
            let shown = try #require(Self.timeLeft(of: "Tea", in: first))
            try await pane.waitForScreen("Tea's time left to change from \(shown)") {
                guard let now = Self.timeLeft(of: "Tea", in: $0) else { return false }
                return now < shown
            }

            // A second timer; ↓ selects it and p pauses it, not Tea.
            let soup = try await fixture.reveille("timer", "10m", "--title", "Soup").line
            try await pane.waitForScreen("Soup below Tea") { $0.contains("Soup") && $0.contains("2 alarms") }
            try await pane.press("Down")
            try await pane.waitForScreen("Soup selected") { $0.contains("› \(soup.prefix(8))") }
            try await pane.press("p")
            try await pane.waitForScreen("Soup paused") { $0.contains(try Regex(#"\#(soup.prefix(8))  paused   \[.*Soup"#)) }
            #expect(try await fixture.state(of: soup) == "paused")
            #expect(try await fixture.state(of: tea) == "countdown")

            // ↑ as an application-mode cursor key (ESC O A) selects Tea again; p and r act on it.
            try await pane.pressBytes([0x1B, 0x4F, 0x41])
            try await pane.waitForScreen("Tea selected") { $0.contains("› \(tea.prefix(8))") }
            try await pane.press("p")
            try await pane.waitUntil("Tea to be paused") { try await fixture.state(of: tea) == "paused" }
            let paused = try await pane.waitForScreen("Tea shown paused") {
                $0.contains(try Regex(#"› \#(tea.prefix(8))  paused   \[[█·]{20}\] \d\d:\d\d:\d\d  Tea"#))
            }
            #expect(!paused.contains("running"), "both timers are paused:\n\(paused)")
            try await pane.press("r")
            try await pane.waitUntil("Tea to run again") { try await fixture.state(of: tea) == "countdown" }
            try await pane.waitForScreen("Tea shown running") {
                $0.contains(try Regex(#"› \#(tea.prefix(8))  running  \[[█·]{20}\] \d\d:\d\d:\d\d  Tea"#))
            }

            // A refused action says why, and the view goes on.
            try await pane.press("s")
            try await pane.waitForScreen("the refusal") { $0.contains("cannot stop") }
            #expect(try await fixture.state(of: tea) == "countdown")

            try await pane.quit()
        }
    }

    @Test("x skips a repeating alarm's next alert and undoes it; o turns an alarm off and on; both shown")
    func skipAndOffKeys() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let daily = try await fixture.reveille("add", "7:30", "--repeat", "daily", "--title", "Daily").line
        let id = String(daily.prefix(8))
        try await WatchPane.with(fixture) { pane in
            try await pane.waitForScreen("Daily") { $0.contains("› \(id)") && $0.contains("Daily") && !$0.contains("skips") }
            try await pane.press("x")
            try await pane.waitForScreen("Daily skipping an alert") { $0.contains(try Regex(#"› \#(id)  .*, skips .*Daily"#)) }
            #expect(try await fixture.listedAlarms().first?.skipped != nil)
            try await pane.press("x")
            try await pane.waitForScreen("the skip undone") { $0.contains("› \(id)") && !$0.contains("skips") }
            #expect(try await fixture.listedAlarms().first?.skipped == nil)

            try await pane.press("o")
            try await pane.waitForScreen("Daily off") { $0.contains(try Regex(#"› \#(id)  off  Daily"#)) }
            #expect(try await fixture.listedAlarms().first?.enabled == false)
            // Off alarms skip nothing: the refusal is shown and the view goes on.
            try await pane.press("x")
            try await pane.waitForScreen("the refusal") { $0.contains("cannot skip") }
            try await pane.press("o")
            let onAgain = try Regex(#"› \#(id)  .*\(in .*Daily"#)
            try await pane.waitForScreen("Daily on again") { !$0.contains("  off  ") && $0.contains(onAgain) }
            #expect(try await fixture.listedAlarms().first?.enabled == nil)
            try await pane.quit()
        }
    }

    @Test("The agent's snooze choices are keys 1 to 5 in the header; 2 snoozes a ringing alarm for the second")
    func snoozeChoiceKeys() async throws {
        let fixture = try await AgentFixture.start(agentArguments: ["--snooze-choices", "5m,10m"])
        defer { fixture.stop() }
        try await WatchPane.with(fixture) { pane in
            try await pane.waitForScreen("the header with the choices") { $0.contains("z snooze  1 5m 2 10m  p pause") }
            let id = try await fixture.reveille("timer", "1s", "--title", "Choose", "--snooze", "1m").line
            try await pane.waitForScreen("Choose ringing") { $0.contains("RINGING  Choose") }
            // 3 is no choice here: nothing happens.
            try await pane.press("3")
            try await pane.press("2")
            try await pane.waitUntil("Choose to count down") { try await fixture.state(of: id) == "countdown" }
            let remaining = try #require(try await fixture.listedAlarms().first?.remaining)
            #expect((590...600).contains(remaining), "\(remaining) s left, not ten minutes")
            try await pane.quit()
        }
    }

    @Test("A ringing timer stands out in reverse red and is selected; s stops it and it goes away")
    func ringingAndStop() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await WatchPane.with(fixture) { pane in
            let tea = try await fixture.reveille("timer", "5m", "--title", "Tea").line
            try await pane.waitForScreen("Tea") { $0.contains("Tea") }
            let egg = try await fixture.reveille("timer", "1s", "--title", "Egg").line
            let screen = try await pane.waitForScreen("Egg ringing") {
                $0.contains(try Regex(#"› \#(egg.prefix(8))  RINGING  Egg"#))
            }
            // Ringing comes first, above the running timer.
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            let eggLine = try #require(lines.firstIndex { $0.contains("RINGING") })
            let teaLine = try #require(lines.firstIndex { $0.contains("Tea") })
            #expect(eggLine < teaLine)
            // In reverse video and red.
            let styled = try await pane.capture(withAttributes: true)
            let ringing = try #require(styled.split(separator: "\n").first { $0.contains("RINGING") })
            let attributes = Self.attributes(before: "RINGING", in: String(ringing))
            #expect(attributes.contains("7") && attributes.contains("31"), "\(String(ringing).debugDescription)")
            #expect(try await fixture.state(of: egg) == "alerting")

            try await pane.press("s")
            let after = try await pane.waitForScreen("Egg gone") { !$0.contains("Egg") && $0.contains("Tea") }
            #expect(after.contains("1 alarm "))
            let list = try await fixture.reveille("list", "--json")
            let alarms = try JSONDecoder().decode([AlarmDescription].self, from: Data(list.output.utf8))
            #expect(alarms.map(\.id) == [tea])
            try await pane.quit()
        }
    }

    @Test("Each alarm's id is drawn in its tint, as the list sends it: green for a green alarm, blue for the accent colour")
    func tintedIDs() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let client = try fixture.client()
        defer { client.connection.close() }
        var green = Fixtures.definition(.fixed(Date().addingTimeInterval(3_600)), title: "Garden")
        green.tintColor = .green
        let gardenID = UUID()
        _ = try await client.schedule(id: gardenID, definition: green)
        let plainID = UUID()
        _ = try await client.schedule(
            id: plainID, definition: Fixtures.definition(.fixed(Date().addingTimeInterval(7_200)), title: "Plain"))
        try await WatchPane.with(fixture) { pane in
            try await pane.waitForScreen("both alarms") { $0.contains("Garden") && $0.contains("Plain") }
            let styled = try await pane.capture(withAttributes: true).split(separator: "\n").map(String.init)
            func colour(of id: UUID, on title: String) throws -> Set<String> {
                let line = try #require(styled.first { $0.contains(title) }, "\(styled)")
                return Self.attributes(before: String(id.lowercasedText().prefix(8)), in: line)
            }
            let greenIndex = String(TerminalColor.paletteIndex(red: 52, green: 199, blue: 89))
            #expect(try colour(of: gardenID, on: "Garden") == ["38", "5", greenIndex])
            let accent = Color.accentColor.bytes
            let accentIndex = String(TerminalColor.paletteIndex(red: accent.red, green: accent.green, blue: accent.blue))
            #expect(try colour(of: plainID, on: "Plain") == ["38", "5", accentIndex])
            #expect(greenIndex != accentIndex)
            try await pane.quit()
        }
    }

    @Test("Control characters in a title are shown as spaces: they neither restyle nor break the view")
    func inertTitle() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await WatchPane.with(fixture) { pane in
            let id = try await fixture.reveille("timer", "20m", "--title", "Bad\u{1B}[31mRed\nNext").line
            let screen = try await pane.waitForScreen("the timer") { $0.contains(id.prefix(8)) }
            let line = try #require(screen.split(separator: "\n").first { $0.contains(id.prefix(8)) })
            #expect(line.hasSuffix("Bad [31mRed Next"), "\(screen)")
            let styled = try await pane.capture(withAttributes: true)
            let styledLine = try #require(styled.split(separator: "\n").first { $0.contains(id.prefix(8)) })
            #expect(!Self.attributes(before: "Red", in: String(styledLine)).contains("31"), "\(styledLine.debugDescription)")
            try await pane.quit()
        }
    }

    @Test("A terminating signal restores the terminal too, and exits 128 + the signal")
    func terminatedBySignal() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await WatchPane.with(fixture) { pane in
            try await pane.waitForScreen("the empty list") { $0.contains("No alarms.") }
            let pid = try #require(pane.watchProcess(), "the reveille watch process")
            kill(pid, SIGTERM)
            let (status, screen) = try await pane.waitForExit()
            #expect(status == 128 + SIGTERM, "\(screen)")
        }
    }

    @Test("Without a terminal, watch exits 64 and suggests --json")
    func needsTerminal() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let result = try await fixture.reveille("watch")
        #expect(result.status == .exited(64), "\(result)")
        #expect(result.error.contains("--json"), "\(result)")
        #expect(result.output.isEmpty, "nothing is drawn: \(result.output.debugDescription)")
    }

    // MARK: Reading the screen

    /// The time left shown on the line with `title`, in seconds.
    static func timeLeft(of title: String, in screen: String) -> Int? {
        guard let line = screen.split(separator: "\n").first(where: { $0.contains(title) }),
            let match = line.firstMatch(of: /(\d\d):(\d\d):(\d\d)/),
            let hours = Int(match.1), let minutes = Int(match.2), let seconds = Int(match.3)
        else { return nil }
        return hours * 3_600 + minutes * 60 + seconds
    }

    /// The SGR parameters in effect before `text` on a line captured with `capture-pane -e`.
    static func attributes(before text: String, in line: String) -> Set<String> {
        guard let end = line.range(of: text)?.lowerBound else { return [] }
        var parameters: Set<String> = []
        for match in line[..<end].matches(of: /\x1B\[([0-9;]*)m/) {
            let list = match.1.split(separator: ";").map(String.init)
            if list.isEmpty || list.contains("0") { parameters.removeAll() }
            parameters.formUnion(list.filter { $0 != "0" })
        }
        return parameters
    }
}

extension AgentFixture {
    /// The state `reveille show ID --json` reports.
    func state(of id: String) async throws -> String {
        let shown = try await reveille("show", id, "--json")
        guard shown.status == .exited(0) else { throw TestEnvironmentError.failed("show failed: \(shown)") }
        return try JSONDecoder().decode(AlarmDescription.self, from: Data(shown.output.utf8)).state
    }
}

/// `reveille watch` in a 100×30 pane of a private tmux server, run by a shell that, when it ends,
/// prints its exit status and the terminal's modes (`stty -a`), as a person would see them, and
/// waits for Enter.
struct WatchPane: Sendable {
    static let tmux = "/usr/bin/tmux"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: tmux) }
    /// How long to wait for something to appear.
    static let timeout: Duration = .seconds(10)
    static let session = "watch"

    let fixture: AgentFixture
    let folder: URL
    var socket: String { folder.appendingPathComponent("tmux.sock").path }

    /// Runs `body` with a new pane, and ends the tmux server afterwards, whether `body` failed or not.
    static func with(_ fixture: AgentFixture, _ body: (WatchPane) async throws -> Void) async throws {
        let pane = WatchPane(fixture: fixture, folder: Fixtures.temporaryDirectory("reveille-tmux"))
        do {
            try await pane.start()
            try await body(pane)
        } catch {
            let screen = (try? await pane.capture()) ?? "(no screen)"
            await pane.close()
            throw TestEnvironmentError.failed("\(error)\nThe screen:\n\(screen)")
        }
        await pane.close()
    }

    private func start() async throws {
        // The whole sandbox environment, so the command talks to the sandbox's bus and agent;
        // tmux sets TERM itself.
        let variables = fixture.sandbox.environment.filter { $0.key != "TERM" }.sorted { $0.key < $1.key }
        let script =
            #""$0" watch; status=$?; printf 'watch exited with status %s\n' "$status"; stty -a; printf 'press Enter '; read -r _; exit "$status""#
        try await tmux(
            [
                "start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";",
                "new-session", "-d", "-s", Self.session, "-x", "100", "-y", "30",
            ]
                + variables.flatMap { ["-e", "\($0.key)=\($0.value)"] }
                + ["--", "/bin/sh", "-c", script, Built.path("reveille")])
    }

    /// Runs a tmux command on this server; returns its standard output.
    @discardableResult
    func tmux(_ arguments: [String]) async throws -> String {
        let sandbox = fixture.sandbox
        let full = ["-S", socket, "-f", "/dev/null"] + arguments
        return try await offPool { try sandbox.run(Self.tmux, full) }
    }

    /// What the pane shows; with `withAttributes`, with the escape sequences of its colours and styles.
    func capture(withAttributes: Bool = false) async throws -> String {
        try await tmux(["capture-pane", "-p", "-t", Self.session] + (withAttributes ? ["-e"] : []))
    }

    /// Waits until the screen satisfies `condition` (checked every 50 ms, up to 10 s); returns it.
    @discardableResult
    func waitForScreen(_ what: String, _ condition: (String) throws -> Bool) async throws -> String {
        var screen = ""
        do {
            try await waitUntil(what) {
                screen = try await capture()
                return try condition(screen)
            }
        } catch {
            throw TestEnvironmentError.failed("\(error)\nThe screen:\n\(screen)")
        }
        return screen
    }

    /// Waits until `condition` holds, checking every 50 ms, up to 10 s.
    func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + Self.timeout
        while try await !condition() {
            guard ContinuousClock.now < deadline else {
                throw TestEnvironmentError.failed("waited \(Self.timeout) for \(what)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Presses a key, by tmux's name for it (`p`, `Down`).
    func press(_ key: String) async throws {
        try await tmux(["send-keys", "-t", Self.session, key])
    }

    /// Types bytes, as a terminal would send them.
    func pressBytes(_ bytes: [UInt8]) async throws {
        try await tmux(["send-keys", "-t", Self.session, "-H"] + bytes.map { String($0, radix: 16) })
    }

    /// The process of `reveille watch` in this pane.
    func watchProcess() -> pid_t? {
        let reveille = Built.path("reveille")
        return ProcessTable.allProcessIDs().first { pid in
            ProcessTable.commandLine(of: pid) == [reveille, "watch"]
                && ProcessTable.environment(of: pid)?[DesktopSandbox.markerVariable] == fixture.sandbox.root.path
        }
    }

    /// Waits until `reveille watch` has ended and the shell shows its status; checks that the
    /// terminal was restored: the normal screen is back with the cursor shown, the live view is
    /// gone from it, and the terminal is in its usual (cooked) mode. Then ends the shell. Returns
    /// the exit status of `reveille watch` and the screen the shell showed.
    @discardableResult
    func waitForExit() async throws -> (status: Int32, screen: String) {
        let screen = try await waitForScreen("the shell after reveille watch") { $0.contains("press Enter") }
        let line = try #require(screen.firstMatch(of: /watch exited with status (\d+)/), "\(screen)")
        let status = try #require(Int32(line.1))
        let modes = try await tmux(["display-message", "-p", "-t", Self.session, "#{alternate_on} #{cursor_flag}"])
        #expect(modes.split(whereSeparator: \.isWhitespace) == ["0", "1"], "normal screen (0), cursor shown (1)")
        #expect(!screen.contains("Reveille  "), "the live view is gone:\n\(screen)")
        // stty -a lists the modes, `-icanon` and `-echo` when they are off.
        let words = screen.split(whereSeparator: \.isWhitespace)
        #expect(["icanon", "echo", "isig", "icrnl", "opost"].allSatisfy(words.contains), "cooked again:\n\(screen)")
        // The shell goes on after it, and ends on Enter. (Its status is not read from tmux: tmux
        // 3.3 can mark a pane dead before it has the status, and then may never show it.)
        try await press("Enter")
        try await waitUntil("the shell to end") {
            try await tmux(["display-message", "-p", "-t", Self.session, "#{pane_dead}"]).hasPrefix("1")
        }
        return (status, screen)
    }

    /// Presses q and checks that the view ended with status 0 and left the terminal as it was.
    func quit() async throws {
        try await press("q")
        let (status, _) = try await waitForExit()
        #expect(status == 0)
    }

    /// Ends the tmux server (and with it the pane) and removes its folder.
    func close() async {
        _ = try? await tmux(["kill-server"])
        try? FileManager.default.removeItem(at: folder)
    }
}
