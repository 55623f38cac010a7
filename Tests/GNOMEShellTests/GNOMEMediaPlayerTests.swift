import AlarmCore
import AlarmModel
import Foundation
import Testing
import TestRequirements
import TestSupport

/// A ringing alarm as a media player on the real GNOME Shell 43: what its lock screen and its
/// calendar menu show, and the shell's and gnome-settings-daemon's own ways to press it.
extension GNOMEShellTests {
    /// The time a banner's body starts with ("07:30 · Wake up").
    static func time(of banner: GNOMEShellServer.Banner) -> String { String(banner.body.prefix { $0 != " " }) }

    @Test(
        "Locked and ringing, GNOME 43's lock screen shows no media player; unlocked, the calendar's media card shows the alarm's title and time with Reveille's icon, and its Play/Pause button silences the alarm",
        .requires(GNOMEShellServer.lockScreenUnavailable))
    func mediaCard() async throws {
        let desktop = try await GNOMEDesktop.start(sound: true)
        defer { desktop.stop() }
        let shell = desktop.shell
        let sandbox = desktop.sandbox
        let watch = try desktop.watch()
        defer { watch.stop() }
        #expect(try shell.mediaCards().isEmpty, "no player while nothing rings")

        try await shell.lock()
        let id = try await desktop.alarm(in: 2, "--title", Self.title, "--snooze", "5m")
        try await watch.waitFor("the alarm to alert", id: id) { $0.state == "alerting" }
        _ = try await Self.waitForLockScreenListing(shell)
        try await sandbox.waitForCapturedBytes(atLeast: 100_000)
        // The shell knows the player (its calendar holds the card), but its lock screen has no place for one.
        let cards = try await shell.waitForMediaCards("the alarm's media card") { $0.count == 1 }
        #expect(cards[0].title == Self.title && cards[0].playing && cards[0].canGoNext && cards[0].hasArt, "\(cards)")
        #expect(try shell.lockScreenMediaPlayers() == 0)
        try await desktop.screenshot("1-locked-ringing", test: "media-player")

        try await shell.unlock()
        let banner = try await shell.waitForBanner(titled: Self.title)
        try await shell.openCalendar()
        let shown = try await shell.waitForMediaCards("the media card on screen") { $0.first?.shown == true }
        #expect(shown == [.init(title: Self.title, body: Self.time(of: banner), playing: true, canGoNext: true, hasArt: true, shown: true)])
        try await desktop.screenshot("2-calendar-media-card", test: "media-player")

        try await offPool { try shell.pressMediaCardButton("playPause") }
        try await watch.waitFor("Play/Pause to stop the one-shot alarm", id: id, gone: true)
        let silent = try await sandbox.waitForSilence(of: desktop.agent.pid)
        _ = try await shell.waitForMediaCards("the card to go with the player") { $0.isEmpty }
        try await waitUntil("the notification to leave the message list", every: .milliseconds(100)) {
            try await offPool { try shell.notificationTitles().contains(Self.title) } ? nil : ()
        }
        try await Task.sleep(for: .milliseconds(500))
        #expect(sandbox.capturedByteCount == silent, "nothing more is heard")
        try await desktop.screenshot("3-stopped", test: "media-player")
        // The banner the open menu held back goes once the menu closes.
        try await offPool { try shell.eval("Main.panel.statusArea.dateMenu.menu.close(false)") }
        try await shell.waitForNoBanner(titled: Self.title)
    }

    @Test(
        "Locked and ringing, the keyboard's Play/Pause key (gnome-settings-daemon's media keys, through the shell's grab) silences the alarm, not the paused music player that was on the bus first; once none rings, the key goes to the music again; still locked, playerctl's pause stops the next alarm",
        .requires(GNOMEShellServer.lockScreenUnavailable))
    func playPauseKey() async throws {
        let desktop = try await GNOMEDesktop.start(sound: true, mediaKeys: true)
        defer { desktop.stop() }
        let shell = desktop.shell
        let sandbox = desktop.sandbox
        let watch = try desktop.watch()
        defer { watch.stop() }
        // A paused music player on the bus before the alarm: gnome-settings-daemon 43's MPRIS
        // controller switches to a player that appears, unless the one it has is playing.
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/music_player.py").path
        let music = try sandbox.spawn("/usr/bin/python3", [script])
        defer { music.stop() }
        _ = try await music.waitForStandardOutput(containing: "ready", timeout: .seconds(30))
        try await Task.sleep(for: .milliseconds(500))
        try await shell.lock()
        let id = try await desktop.alarm(in: 2, "--title", Self.title, "--snooze", "5m")
        try await watch.waitFor("the alarm to alert", id: id) { $0.state == "alerting" }
        _ = try await Self.waitForLockScreenListing(shell)
        try await sandbox.waitForCapturedBytes(atLeast: 100_000)
        // gnome-settings-daemon picks the player that appeared last (none other plays here).
        try await Task.sleep(for: .milliseconds(500))

        try await offPool { try shell.pressKey("AudioPlay") }
        try await watch.waitFor("the Play/Pause key to stop the one-shot alarm", id: id, gone: true)
        let silent = try await sandbox.waitForSilence(of: desktop.agent.pid)
        try await Task.sleep(for: .milliseconds(500))
        #expect(sandbox.capturedByteCount == silent, "nothing more is heard")
        #expect(try shell.lockScreen().locked, "stopped without unlocking")
        #expect(desktop.agent.standardError.contains("Answered through the media player"), "\(desktop.agent.outputs())")
        #expect(!music.standardOutput.contains("music"), "the key went to the music, not the alarm: \(music.outputs())")

        // Nothing rings: the key is the music's again.
        try await offPool { try sandbox.waitForBusNameReleased("org.mpris.MediaPlayer2.reveille") }
        try await offPool { try shell.pressKey("AudioPlay") }
        _ = try await music.waitForStandardOutput(containing: "music PlayPause", timeout: .seconds(10))

        // Still locked, the next alarm is stopped by the real playerctl, as a script or a phone would.
        let next = try await desktop.alarm(in: 2, "--title", "Tea")
        try await watch.waitFor("the next alarm to alert", id: next) { $0.state == "alerting" }
        let mark = try await sandbox.waitForPlayers(of: desktop.agent.pid, count: 1)
        try await sandbox.waitForCapturedBytes(atLeast: mark + 50_000)
        _ = try await offPool { try sandbox.run("playerctl", ["-p", "reveille", "pause"]) }
        try await watch.waitFor("playerctl's pause to stop the alarm", id: next, gone: true)
        let quiet = try await sandbox.waitForSilence(of: desktop.agent.pid)
        try await Task.sleep(for: .milliseconds(500))
        #expect(sandbox.capturedByteCount == quiet, "nothing more is heard")
        #expect(try shell.lockScreen().locked, "stopped without unlocking")
    }

    @Test(
        "GNOME's session manager holds Reveille's idle inhibitor from the first alert to the last Stop (the screen stays lit), one for all, and none once the alert times out"
    )
    func idleInhibitor() async throws {
        let desktop = try await GNOMEDesktop.start(agentArguments: ["--ring-timeout", "4"], sessionManager: true)
        defer { desktop.stop() }
        let watch = try desktop.watch()
        defer { watch.stop() }
        let session = try #require(desktop.session)
        #expect(try await session.inhibitors(in: desktop.sandbox) == .init(idle: false, held: []))
        let reveille = GNOMESessionServer.Inhibitors(idle: true, held: ["io.github.reveille.Reveille (An alarm is ringing) 8"])

        let first = try await desktop.alarm(in: 2, "--title", "First")
        try await watch.waitFor("the first alarm to alert", id: first) { $0.state == "alerting" }
        try await session.waitFor(reveille, in: desktop.sandbox)
        let second = try await desktop.alarm(in: 1, "--title", "Second")
        try await watch.waitFor("the second alarm to alert", id: second) { $0.state == "alerting" }
        #expect(try await session.inhibitors(in: desktop.sandbox) == reveille, "one inhibitor while two alarms ring")
        #expect(try await desktop.reveille("stop", first).status == .exited(0))
        try await watch.waitFor("the first alarm to stop", id: first, gone: true)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await session.inhibitors(in: desktop.sandbox) == reveille, "held while the second alarm rings")
        // The second alarm is left to ring out: the time-out releases the inhibitor.
        try await session.waitFor(.init(idle: false, held: []), in: desktop.sandbox)
        try await watch.waitFor("the second alarm to time out", id: second, gone: true)
        #expect(desktop.agent.standardError.contains("Released the idle inhibitor"), "\(desktop.agent.outputs())")
    }
    @Test(
        "With GNOME's idle delay at 2 s, the session does not go idle and the shell does not fade the screen while the alarm rings; once it is stopped, it does"
    )
    func screenStaysLit() async throws {
        let desktop = try await GNOMEDesktop.start(sessionManager: true)
        defer { desktop.stop() }
        let (shell, sandbox) = (desktop.shell, desktop.sandbox)
        let watch = try desktop.watch()
        defer { watch.stop() }
        /// The session's presence as gnome-session has it (3: idle), and whether the shell's
        /// screen shield is fading the screen out (its lightbox shown) or has locked it.
        func idleness() async throws -> (idle: Bool, fading: Bool) {
            let status = try await offPool {
                try sandbox.run(
                    "gdbus",
                    [
                        "call", "--session", "--dest", "org.gnome.SessionManager", "--object-path", "/org/gnome/SessionManager/Presence",
                        "--method", "org.freedesktop.DBus.Properties.Get", "org.gnome.SessionManager.Presence", "status",
                    ])
            }
            let fading = try await offPool {
                try shell.eval(
                    "['_longLightbox', '_shortLightbox'].some(l => Main.screenShield[l]?.visible) || Main.screenShield.active",
                    as: Bool.self)
            }
            return (status.contains("uint32 3"), fading)
        }
        let id = try await desktop.alarm(in: 2, "--title", Self.title)
        try await watch.waitFor("the alarm to alert", id: id) { $0.state == "alerting" }
        try await #require(desktop.session).waitFor(
            .init(idle: true, held: ["io.github.reveille.Reveille (An alarm is ringing) 8"]), in: sandbox)
        try await offPool { _ = try sandbox.run("gsettings", ["set", "org.gnome.desktop.session", "idle-delay", "2"]) }
        // Three times the idle delay, nobody touching anything.
        try await Task.sleep(for: .seconds(6))
        let ringing = try await idleness()
        #expect(!ringing.idle && !ringing.fading, "the screen stays lit while the alarm rings: \(ringing)")
        try await desktop.screenshot("4-ringing-after-idle-delay", test: "media-player")

        #expect(try await desktop.reveille("stop", id).status == .exited(0))
        try await watch.waitFor("the alarm to stop", id: id, gone: true)
        var seen = ringing
        try await waitUntil("the idle session to fade the screen", timeout: .seconds(20), every: .milliseconds(200), detail: { "\(seen)" })
        {
            seen = try await idleness()
            return seen.idle && seen.fading ? () : nil
        }
    }
}
