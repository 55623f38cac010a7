import AlarmCore
import AlarmModel
import Foundation
import Testing
import TestRequirements
import TestSupport

/// Reveille on GNOME, for real: the real GNOME Shell (43, headless) is the notification server
/// and the real agent rings into it. What a person sees is read from the shell itself (its
/// banner, its lock screen) and from its own screenshots, kept in `.build/screenshots/gnome-shell`;
/// what a person does is a press of the banner's buttons, run by the shell's own click handler.
///
/// The suite fails, not skips, where GNOME Shell is not installed (`.requires`;
/// `scripts/install-deps --tests` installs it). Its tests run one at a time: each shell draws with the CPU (llvmpipe).
@Suite(
    "GNOME Shell: alerts as a person on GNOME sees them", .onItsOwnThread, .serialized, .timeLimit(.minutes(2)),
    .requires(Built.unavailable))
struct GNOMEShellTests {
    static let title = "Wake up"

    @Test(
        "An alert is GNOME's banner from Reveille with the alarm's tint as its image, its title, Stop and Snooze; Stop in the banner stops the alarm"
    )
    func bannerAndStop() async throws {
        let desktop = try await GNOMEDesktop.start()
        defer { desktop.stop() }
        let shell = desktop.shell
        let before = try await desktop.screenshot("1-before", test: "banner-and-stop")
        let watch = try desktop.watch()
        defer { watch.stop() }

        let id = try await desktop.alarm(in: 2, "--title", Self.title, "--snooze", "5m")
        try await watch.waitFor("the alarm to alert", id: id) { $0.state == "alerting" }
        let banner = try await shell.waitForBanner(titled: Self.title)
        #expect(banner.urgency == 3, "critical")
        #expect(banner.buttons == ["Stop", "Snooze"])
        #expect(banner.body.hasSuffix("· \(Self.title)"), "\(banner.body)")
        #expect(banner.source == "Reveille" && banner.app == "io.github.reveille.Reveille.desktop", "\(banner)")
        // The alarm's tint (orange: reveille add's) is the banner's image, which the shell draws in
        // the place of the app's themed icon: the disc with the Stop glyph the agent drew ahead,
        // as a PNG file in its runtime folder (image-path), not a themed icon.
        let image = try #require(banner.icon, "an image of the alarm's own: \(banner)")
        #expect(image.hasSuffix("/reveille/tint/tint-ff9500ff-stop-ffffffff.png"), "\(banner)")
        #expect(banner.iconFile == nil || banner.iconFile == image, "not a themed icon: \(banner)")

        // What the screen shows where the banner is: drawn (many colours, no even background),
        // not there before, and the tint's disc in it.
        let alert = try await desktop.screenshot("2-alert", test: "banner-and-stop")
        let region = try await ScreenshotRegion.compare(alert, with: before, at: banner, counting: "#ff9500", in: desktop.sandbox)
        #expect(region.changedShare > 0.5 && region.colours > 50 && region.dominant < 0.9, "\(region) at \(banner)")
        #expect(region.matching >= 300, "\(region.matching) pixels of the alarm's orange in the banner at \(banner)")

        try await offPool { try shell.pressBannerButton("Stop") }
        try await watch.waitFor("Stop to remove the one-shot alarm", id: id, gone: true)
        try await shell.waitForNoBanner(titled: Self.title)
        #expect(try shell.notificationTitles().contains(Self.title) == false, "nothing of it is left in the message list")
        let after = try await desktop.screenshot("3-stopped", test: "banner-and-stop")
        let cleared = try await ScreenshotRegion.compare(after, with: before, at: banner, in: desktop.sandbox)
        #expect(cleared.changedShare < 0.02, "the banner's place is the desktop again: \(cleared)")
    }

    @Test("In German (LANG=de_DE.UTF-8), the shell's banner reads Stopp and Schlummern and the alarm's time on the 24-hour clock")
    func germanBanner() async throws {
        let environment = try TranslationCatalogs.environment(lang: "de_DE.UTF-8")
        let desktop = try await GNOMEDesktop.start(agentEnvironment: environment)
        defer { desktop.stop() }
        let watch = try desktop.watch()
        defer { watch.stop() }
        let id = try await desktop.alarm(in: 2, "--title", "Aufstehen", "--snooze", "9m")
        let ringing = try #require(try await watch.waitFor("the alarm to alert", id: id) { $0.state == "alerting" })
        let banner = try await desktop.shell.waitForBanner(titled: "Aufstehen")
        #expect(banner.buttons == ["Stopp", "Schlummern"], "\(banner)")
        let due = try #require(ringing.schedule?.fixed.flatMap { try? Date($0, strategy: .iso8601) }, "\(ringing)")
        // The 24-hour time as `date` writes it in German.
        let time = try TranslationCatalogs.date("%R", at: due, locale: "de_DE.UTF-8", zone: nil)
        #expect(banner.body == "\(time) · Aufstehen", "\(banner)")
        try await desktop.screenshot("german-alert", test: "german-banner")
        try await offPool { try desktop.shell.pressBannerButton("Stopp") }
        try await watch.waitFor("Stopp to remove the one-shot alarm", id: id, gone: true)
    }

    @Test("Do-not-disturb on (banners off): the alert still gets its banner; Snooze in it snoozes for the alarm's snooze time")
    func doNotDisturbAndSnooze() async throws {
        let desktop = try await GNOMEDesktop.start(banners: false)
        defer { desktop.stop() }
        let shell = desktop.shell
        let before = try await desktop.screenshot("1-before", test: "do-not-disturb-snooze")
        let watch = try desktop.watch()
        defer { watch.stop() }

        let id = try await desktop.alarm(in: 2, "--title", Self.title, "--snooze", "5m")
        try await watch.waitFor("the alarm to alert", id: id) { $0.state == "alerting" }
        let banner = try await shell.waitForBanner(titled: Self.title)
        #expect(banner.buttons == ["Stop", "Snooze"])
        #expect(try await desktop.banners() == false, "GNOME shows critical banners during do-not-disturb: the setting is left alone")
        let alert = try await desktop.screenshot("2-alert", test: "do-not-disturb-snooze")
        let region = try await ScreenshotRegion.compare(alert, with: before, at: banner, in: desktop.sandbox)
        #expect(region.changedShare > 0.5 && region.colours > 50, "\(region) at \(banner)")

        let pressed = Date()
        try await offPool { try shell.pressBannerButton("Snooze") }
        let snoozed = try #require(try await watch.waitFor("Snooze to count down", id: id) { $0.state == "countdown" })
        let fireDate = try #require(snoozed.fireDate.flatMap { try? Date($0, strategy: .iso8601) }, "\(snoozed)")
        let due = fireDate.timeIntervalSince(pressed)
        #expect(due > 298 && due < 302, "snoozed until \(snoozed.fireDate ?? "?"), \(due) s after the press")
        try await shell.waitForNoBanner(titled: Self.title)
    }
}
