import AlarmCore
import AlarmModel
import Foundation
import Testing
import TestRequirements
import TestSupport

extension GNOMEShellTests {
    /// Waits until the lock screen is lit and lists Reveille in its notification section; returns it.
    static func waitForLockScreenListing(_ shell: GNOMEShellServer) async throws -> GNOMEShellServer.LockScreen {
        try await shell.waitForEval(
            "the lock screen to light up and list Reveille",
            """
            (() => { const screen = \(GNOMEShellServer.lockScreenScript);
                return !screen.dark && screen.sources.some(s => s.title === 'Reveille') ? screen : null; })()
            """, as: GNOMEShellServer.LockScreen.self, detail: GNOMEShellServer.lockScreenScript)
    }

    @Test(
        "Locked, with do-not-disturb on: the alarm lights the lock screen, which lists Reveille (no buttons there); unlocked, its banner has Stop, which stops it",
        .requires(GNOMEShellServer.lockScreenUnavailable))
    func lockScreen() async throws {
        let desktop = try await GNOMEDesktop.start(banners: false)
        defer { desktop.stop() }
        let shell = desktop.shell
        let watch = try desktop.watch()
        defer { watch.stop() }

        try await shell.lock()
        // The agent follows the lock (org.gnome.ScreenSaver ActiveChanged): GNOME does not light a
        // locked screen for notifications while banners are off, so alarms lift it while they ring.
        _ = try await Self.status(desktop, dndStartingWith: "on (org.gnome.desktop.notifications show-banners): alarms lift it")
        let dark = try shell.lockScreen()
        #expect(dark.locked && dark.dark && dark.sources.isEmpty, "\(dark)")
        try await desktop.screenshot("1-locked", test: "lock-screen")

        let id = try await desktop.alarm(in: 2, "--title", Self.title, "--snooze", "5m")
        try await watch.waitFor("the alarm to alert", id: id) { $0.state == "alerting" }
        let lit = try await Self.waitForLockScreenListing(shell)
        try await desktop.screenshot("2-locked-alert", test: "lock-screen")
        let reveille = try #require(lit.sources.first { $0.title == "Reveille" }, "\(lit)")
        #expect(reveille.critical && reveille.unseen == 1, "\(lit)")
        #expect(!lit.banner && lit.buttons.isEmpty, "no banner over the lock screen, no Stop or Snooze on it: \(lit)")
        #expect(try await desktop.banners(), "banners are on while the alarm rings")
        #expect(reveille.lines.isEmpty, "the app alone, without the alarm's title: \(lit)")

        // The person's choice to see details on the lock screen (GNOME's per-app setting): the
        // alarm's title and time are listed too.
        try await offPool { [sandbox = desktop.sandbox] in
            _ = try sandbox.run(
                "gsettings",
                [
                    "set",
                    "org.gnome.desktop.notifications.application:/org/gnome/desktop/notifications/application/io-github-reveille-reveille/",
                    "details-in-lock-screen", "true",
                ])
        }
        let detailed = try await shell.waitForEval(
            "the lock screen to show the alarm's title",
            """
            (() => { const s = \(GNOMEShellServer.lockScreenScript).sources.find(s => s.title === 'Reveille');
                return s && s.lines.some(l => l.includes(\(GNOMEShellServer.literal(Self.title)))) ? s.lines : null; })()
            """, as: [String].self, detail: GNOMEShellServer.lockScreenScript)
        // "Wake up 07:30 · Wake up": the title (in bold), then the body.
        #expect(detailed.count == 1 && detailed[0].hasPrefix("\(Self.title) ") && detailed[0].hasSuffix(" · \(Self.title)"), "\(detailed)")
        try await desktop.screenshot("2b-locked-alert-details", test: "lock-screen")

        try await shell.unlock()
        let banner = try await shell.waitForBanner(titled: Self.title)
        #expect(banner.buttons == ["Stop", "Snooze"])
        try await desktop.screenshot("3-unlocked", test: "lock-screen")
        try await offPool { try shell.pressBannerButton("Stop") }
        try await watch.waitFor("Stop to remove the alarm", id: id, gone: true)
        try await shell.waitForNoBanner(titled: Self.title)
        // Do-not-disturb is put back once the alarm no longer rings.
        try await waitUntil("do-not-disturb on again (show-banners false)", every: .milliseconds(50)) {
            try await desktop.banners() ? nil : ()
        }
    }

    @Test(
        "An alarm ringing when the screen locks is listed on the lock screen, which lights up; unlocked, its banner is back, and Snooze snoozes it",
        .requires(GNOMEShellServer.lockScreenUnavailable))
    func ringingWhenLocked() async throws {
        let desktop = try await GNOMEDesktop.start()
        defer { desktop.stop() }
        let shell = desktop.shell
        let watch = try desktop.watch()
        defer { watch.stop() }
        let id = try await desktop.alarm(in: 2, "--title", Self.title, "--snooze", "5m")
        try await watch.waitFor("the alarm to alert", id: id) { $0.state == "alerting" }
        _ = try await shell.waitForBanner(titled: Self.title)

        // The banner was seen: GNOME lists only unseen notifications on its lock screen, and the
        // agent posts the ringing alert again when the screen locks.
        try await shell.lock()
        let lit = try await Self.waitForLockScreenListing(shell)
        try await desktop.screenshot("1-locked-ringing", test: "ringing-when-locked")
        let reveille = try #require(lit.sources.first { $0.title == "Reveille" }, "\(lit)")
        #expect(reveille.critical && reveille.unseen == 1, "\(lit)")

        try await shell.unlock()
        let banner = try await shell.waitForBanner(titled: Self.title)
        #expect(banner.buttons == ["Stop", "Snooze"])
        try await desktop.screenshot("2-unlocked", test: "ringing-when-locked")
        let pressed = Date()
        try await offPool { try shell.pressBannerButton("Snooze") }
        let snoozed = try #require(try await watch.waitFor("Snooze to count down", id: id) { $0.state == "countdown" })
        let due = try #require(snoozed.fireDate.flatMap { try? Date($0, strategy: .iso8601) }).timeIntervalSince(pressed)
        #expect(due > 298 && due < 302, "snoozed until \(snoozed.fireDate ?? "?")")
    }
}

extension GNOMEShellTests {
    @Test(
        "Do-not-disturb on, an alarm ringing when the screen locks: banners are lifted, the lock screen lights up and lists it",
        .requires(GNOMEShellServer.lockScreenUnavailable))
    func ringingWhenLockedDoNotDisturb() async throws {
        let desktop = try await GNOMEDesktop.start(banners: false)
        defer { desktop.stop() }
        let shell = desktop.shell
        let watch = try desktop.watch()
        defer { watch.stop() }
        let id = try await desktop.alarm(in: 2, "--title", Self.title, "--snooze", "5m")
        try await watch.waitFor("the alarm to alert", id: id) { $0.state == "alerting" }
        _ = try await shell.waitForBanner(titled: Self.title)
        try await shell.lock()
        let lit = try await Self.waitForLockScreenListing(shell)
        try await desktop.screenshot("1-locked-ringing", test: "ringing-when-locked-do-not-disturb")
        #expect(lit.sources.contains { $0.title == "Reveille" && $0.critical }, "\(lit)")
        #expect(try await desktop.banners(), "banners are lifted while the alarm rings on the locked screen")
        #expect(try await desktop.reveille("stop", id).status == .exited(0))
        try await waitUntil("do-not-disturb on again (show-banners false)", every: .milliseconds(50)) {
            try await desktop.banners() ? nil : ()
        }
    }
}
