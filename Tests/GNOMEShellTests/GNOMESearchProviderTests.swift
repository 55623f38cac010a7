import AlarmModel
import CommandLineText
import Foundation
import Testing
import TestRequirements
import TestSupport

/// Reveille's search provider in the real GNOME Shell's overview: installed as the package installs
/// it (its `.ini` on the shell's `XDG_DATA_DIRS`, `reveille-search` D-Bus activated), typed into as
/// a person types, its result seen on the screen, Enter pressed, and the timer it sets ringing.
@Suite(
    "GNOME Shell: the overview's search sets a timer", .onItsOwnThread, .serialized, .timeLimit(.minutes(5)),
    .requires(Built.unavailable))
struct GNOMESearchProviderTests {
    @Test("Typing timer 1m tea in the overview shows “Timer for 1 min: tea”; Enter sets the timer, which rings in a minute")
    func timerFromTheOverview() async throws {
        let desktop = try await GNOMEDesktop.start(searchProvider: true)
        defer { desktop.stop() }
        let shell = desktop.shell
        let watch = try desktop.watch()
        defer { watch.stop() }

        try await offPool { try shell.typeInOverviewSearch("timer 1m tea") }
        let shown = try await shell.waitForEval(
            "Reveille's result in the overview's search",
            """
            (() => {
                const St = imports.gi.St;
                const texts = [];
                const walk = a => { if (!a.visible) return; if (a instanceof St.Label && a.text) texts.push(a.text); a.get_children().forEach(walk); };
                walk(Main.overview._overview.controls._searchController._searchResults);
                return texts.includes('Timer for 1 min: tea') ? texts : null;
            })()
            """, as: [String].self, timeout: .seconds(30),
            detail: "Main.overview._overview.controls._searchController._searchResults._statusText.text")
        #expect(shown.contains("Timer for 1 min: tea"), "\(shown)")
        #expect(shown.contains { $0.hasPrefix("rings at ") }, "the line under it says when it rings: \(shown)")
        let screenshot = try await desktop.screenshot("1-search", test: "search-provider")
        #expect(FileManager.default.fileExists(atPath: screenshot.path))

        // Enter, on the keyboard, in the search entry: the shell activates its first result,
        // Reveille's, and closes the overview.
        try await offPool { try shell.pressKey("Return") }
        let timer = try await waitUntil(
            "the timer set from the overview in reveille watch", timeout: .seconds(30), detail: { watch.process.standardOutput }
        ) {
            try watch.snapshots().last?.first { $0.title == "tea" }
        }
        #expect(timer.kind == "timer" && timer.state == "countdown", "\(timer)")
        let left = try #require(timer.remaining)
        #expect(left > 50 && left <= 60, "a minute from the press: \(left) s left")
        let listed = try await desktop.reveille("list", "--json")
        #expect(listed.output.contains(#""title":"tea""#), "\(listed)")

        // It rings: the shell's banner for it.
        let banner = try await shell.waitForBanner(titled: "tea", timeout: .seconds(90))
        #expect(banner.buttons == ["Stop"], "\(banner)")
        try await desktop.screenshot("2-ringing", test: "search-provider")
        try await offPool { try shell.pressBannerButton("Stop") }
        try await watch.waitFor("Stop to end the timer", id: timer.id, gone: true)
    }
}
