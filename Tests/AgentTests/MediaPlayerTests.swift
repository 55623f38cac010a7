import AlarmKit
import CommandLineText
import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

/// A ringing alarm is an MPRIS media player, seen and pressed by the real `playerctl` and by a
/// client that speaks to it as KDE Connect's desktop side does, on the sandbox's real bus, while
/// the sound is captured at the sandbox's ALSA `default` and the notifications go to dunst.
@Suite(
    "Agent: a ringing alarm as a media player (MPRIS)", .onItsOwnThread, .serialized, .requires(Built.mediaPlayerUnavailable),
    .timeLimit(.minutes(5)))
struct MediaPlayerTests {

    static let busName = "org.mpris.MediaPlayer2.reveille"

    /// Runs `playerctl` with `arguments` on the sandbox's bus.
    static func playerctl(_ fixture: AgentFixture, _ arguments: String...) async throws -> CommandResult {
        try await fixture.run("playerctl", arguments)
    }

    /// The players `playerctl -l` lists.
    static func players(_ fixture: AgentFixture) async throws -> [String] {
        try await playerctl(fixture, "-l").output.split(separator: "\n").map(String.init)
    }

    /// Waits until `playerctl -l` lists Reveille's player (`listed`) or does not.
    static func waitForPlayer(_ fixture: AgentFixture, listed: Bool) async throws {
        var seen: [String] = []
        try await waitUntil(
            "playerctl to \(listed ? "list" : "no longer list") reveille", every: .milliseconds(50), detail: { "it lists \(seen)" }
        ) {
            seen = try await players(fixture)
            return seen.contains("reveille") == listed ? () : nil
        }
    }

    /// `playerctl -p reveille metadata --format` with `format`.
    static func metadata(_ fixture: AgentFixture, _ format: String) async throws -> String {
        try await playerctl(fixture, "-p", "reveille", "metadata", "--format", format).line
    }

    /// A player property read over the bus.
    static func property(_ fixture: AgentFixture, _ name: String) async throws -> DBusValue? {
        let connection = try DBusConnection.connect(address: fixture.sandbox.busAddress)
        defer { connection.close() }
        let reply = try await connection.call(
            destination: busName, path: "/org/mpris/MediaPlayer2", interface: "org.freedesktop.DBus.Properties", method: "Get",
            arguments: [.string("org.mpris.MediaPlayer2.Player"), .string(name)])
        return reply.first?.unwrapped
    }

    /// Adds a one-shot alarm at the whole second at least `seconds` from now (an instant), and
    /// returns its id.
    static func alarm(_ fixture: AgentFixture, in seconds: Int, _ arguments: String...) async throws -> UUID {
        let instant = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + Double(seconds)).rounded(.up))
        let added = try await fixture.run(Built.path("reveille"), ["add", instant.ISO8601Format()] + arguments)
        #expect(added.status == .exited(0), "\(added)")
        return try #require(UUID(uuidString: added.line), "\(added)")
    }

    /// The time the alert's notification shows in its body ("07:30 · Wake up").
    static func notifiedTime(_ monitor: NotifyMonitor, _ title: String) async throws -> String {
        let alert = try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, title) })
        return String(alert.body.prefix { $0 != " " })
    }

    @Test(
        "playerctl lists the player only while an alarm rings: Playing, its title, time and icon; next snoozes it (silent, counting down); pause stops it"
    )
    func playerctlSnoozesAndStops() async throws {
        let fixture = try await AlertingTests.start()
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let agent = try #require(fixture.agent)
        let monitor = try sandbox.monitorNotifyCalls()
        #expect(try await Self.players(fixture).isEmpty, "no player while nothing rings")
        #expect(try sandbox.busNameOwner(Self.busName) == nil)

        let wake = try await Self.alarm(
            fixture, in: 4, "--title", "Wake up", "--snooze", "5m", "--sound",
            try AlertingTests.write(AlertingTests.constant(1_000), named: "a.wav", in: fixture))
        try await AlertingTests.waitForState("alerting", of: wake, in: fixture)
        let time = try await Self.notifiedTime(monitor, "Wake up")
        try await Self.waitForPlayer(fixture, listed: true)
        #expect(try await Self.playerctl(fixture, "-p", "reveille", "status").line == "Playing")
        #expect(try await Self.metadata(fixture, "{{xesam:title}}|{{xesam:artist}}|{{xesam:album}}") == "Wake up|\(time)|")
        let trackID = wake.uuidString.lowercased().replacingOccurrences(of: "-", with: "_")
        let shownTrackID = try await Self.metadata(fixture, "{{mpris:trackid}}")
        // playerctl prints an object path as GVariant text, quoted; a string (the title) it prints bare.
        #expect(shownTrackID == "'/io/github/reveille/Alarms1/alarm/\(trackID)'", "mpris:trackid is the alarm's object path")
        let art = try #require(URL(string: try await Self.metadata(fixture, "{{mpris:artUrl}}")))
        #expect(
            art.isFileURL && art.lastPathComponent == "io.github.reveille.Reveille.svg" && FileManager.default.fileExists(atPath: art.path),
            "\(art)")
        #expect(try await Self.property(fixture, "CanGoNext") == .boolean(true))
        #expect(try await Self.property(fixture, "CanGoPrevious") == .boolean(false))
        #expect(try sandbox.busNameOwnerPID(Self.busName) == agent.pid)
        try await sandbox.waitForCapturedBytes(atLeast: 100_000)

        // Next: the alarm is snoozed for its five minutes, silent, and the player is gone.
        let pressed = Date()
        #expect(try await Self.playerctl(fixture, "-p", "reveille", "next").status == .exited(0))
        try await AlertingTests.waitForState("countdown", of: wake, in: fixture)
        try await fixture.waitForSilence()
        let snoozed = try #require(try await AlertingTests.list(fixture).first { $0.id == wake.uuidString.lowercased() })
        let due = try #require(snoozed.fireDate.flatMap { try? Date($0, strategy: .iso8601) }).timeIntervalSince(pressed)
        #expect(due > 298 && due < 302, "snoozed until \(snoozed.fireDate ?? "?")")
        try await Self.waitForPlayer(fixture, listed: false)
        try await offPool { try sandbox.waitForBusNameReleased(Self.busName) }

        // Pause: a timer that rings is stopped (gone), silent, and the player is gone again.
        let tea = try await AlertingTests.timer(
            fixture, "1s", "--title", "Tea", "--sound", try AlertingTests.write(AlertingTests.constant(2_000), named: "b.wav", in: fixture))
        try await AlertingTests.waitForState("alerting", of: tea, in: fixture)
        try await Self.waitForPlayer(fixture, listed: true)
        #expect(try await Self.metadata(fixture, "{{xesam:title}}") == "Tea")
        #expect(try await Self.property(fixture, "CanGoNext") == .boolean(false), "a timer without Repeat cannot go next")
        let listener = CaptureListener(sandbox)
        try await waitUntil("the timer's sound", detail: { "captured \(sandbox.capturedByteCount)" }) {
            listener.listen()
            return listener.heard(2_000) ? () : nil
        }
        _ = try await Self.playerctl(fixture, "-p", "reveille", "next")
        try await Task.sleep(for: .milliseconds(300))
        try await AlertingTests.waitForState("alerting", of: tea, in: fixture)
        #expect(try await Self.playerctl(fixture, "-p", "reveille", "pause").status == .exited(0))
        try await AlertingTests.waitForState(nil, of: tea, in: fixture)
        let silent = try await fixture.waitForSilence()
        try await Task.sleep(for: .milliseconds(500))
        #expect(sandbox.capturedByteCount == silent, "nothing more is heard")
        try await Self.waitForPlayer(fixture, listed: false)
        #expect(try await fixture.reveille("list", "--json").output.contains(wake.uuidString.lowercased()), "the snoozed alarm counts down")
    }

    @Test(
        "Several alarms ring: the newest is the track; Stop stops it, the one before becomes the track and sounds on; the last Stop takes the player away"
    )
    func newestIsTheTrack() async throws {
        let fixture = try await AlertingTests.start()
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let agent = try #require(fixture.agent)
        let first = try await AlertingTests.timer(
            fixture, "1s", "--title", "First", "--sound",
            try AlertingTests.write(AlertingTests.constant(1_000), named: "a.wav", in: fixture))
        try await AlertingTests.waitForState("alerting", of: first, in: fixture)
        try await Self.waitForPlayer(fixture, listed: true)
        #expect(try await Self.metadata(fixture, "{{xesam:title}}") == "First")
        let second = try await AlertingTests.timer(
            fixture, "1s", "--title", "Second", "--sound",
            try AlertingTests.write(AlertingTests.constant(2_000), named: "b.wav", in: fixture))
        try await AlertingTests.waitForState("alerting", of: second, in: fixture)
        try await waitUntil("the newest alarm to be the track", every: .milliseconds(50)) {
            try await Self.metadata(fixture, "{{xesam:title}}") == "Second" ? () : nil
        }

        #expect(try await Self.playerctl(fixture, "-p", "reveille", "stop").status == .exited(0))
        try await AlertingTests.waitForState(nil, of: second, in: fixture)
        try await AlertingTests.waitForState("alerting", of: first, in: fixture)
        let mark = try await sandbox.waitForPlayers(of: agent.pid, count: 1)
        try await sandbox.waitForCapturedBytes(atLeast: mark + 200_000)
        let later = Set(sandbox.capturedSamples().dropFirst(mark / 2))
        #expect(later.contains(1_000) && !later.contains(2_000), "the first alarm sounds on, the second is silent")
        #expect(try await Self.metadata(fixture, "{{xesam:title}}") == "First")
        #expect(try await Self.playerctl(fixture, "-p", "reveille", "status").line == "Playing")

        #expect(try await Self.playerctl(fixture, "-p", "reveille", "play-pause").status == .exited(0))
        try await AlertingTests.waitForState(nil, of: first, in: fixture)
        try await fixture.waitForSilence()
        try await Self.waitForPlayer(fixture, listed: false)
    }

    @Test(
        "KDE Connect's media control (its desktop side, speaking as its plugin does) lists the player with the alarm's title and time; the phone's pause stops it and the list empties"
    )
    func kdeConnect() async throws {
        let fixture = try await AlertingTests.start()
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let monitor = try sandbox.monitorNotifyCalls()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/kdeconnect_mpris.py").path
        let plugin = try sandbox.spawn(Built.systemPython, [script, "--press", "PlayPause", "--timeout", "60"])
        defer { plugin.stop() }
        _ = try await plugin.waitForStandardOutput(containing: #""ready": true"#, timeout: .seconds(30))

        let wake = try await Self.alarm(
            fixture, in: 4, "--title", "Wake up", "--snooze", "5m", "--sound",
            try AlertingTests.write(AlertingTests.constant(1_000), named: "a.wav", in: fixture))
        // Not waited for as "alerting" in the list: the plugin presses PlayPause as soon as the
        // player plays, so the alert may end before a list sees it ring (the CI rehearsal's
        // time-out). Its Notify on the bus, and the plugin's packets below, show that it rang.
        let time = try await Self.notifiedTime(monitor, "Wake up")
        let status = try await plugin.waitForExit(timeout: .seconds(60))
        #expect(status == .exited(0), "\(plugin.outputs())")
        try await AlertingTests.waitForState(nil, of: wake, in: fixture)
        try await fixture.waitForSilence()

        let packets = plugin.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let lists = packets.compactMap { $0["playerList"] as? [String] }
        #expect(lists == [["Reveille"], []], "the phone is shown the player while it rings, then none: \(lists)")
        let playing = try #require(packets.first { $0["isPlaying"] as? Bool == true }, "\(packets)")
        #expect(playing["player"] as? String == "Reveille")
        #expect(playing["title"] as? String == "Wake up")
        #expect(playing["artist"] as? String == time)
        #expect(playing["canPause"] as? Bool == true && playing["canPlay"] as? Bool == true)
        #expect(playing["canGoNext"] as? Bool == true && playing["canGoPrevious"] as? Bool == false && playing["canSeek"] as? Bool == false)
        let art = try #require(packets.first { $0["albumArt"] != nil }, "the phone fetched the art: \(packets)")
        #expect((art["bytes"] as? Int ?? 0) > 1_000, "\(art)")
        #expect(packets.contains { $0["pressed"] as? String == "PlayPause" })
    }
}

extension Built {
    /// Why the media player's suite cannot run here: the agent tests' needs and Debian's `playerctl`.
    static var mediaPlayerUnavailable: String? {
        unavailable ?? (Executables.find("playerctl") == nil ? "playerctl is not installed (scripts/install-deps installs it)" : nil)
    }
}
