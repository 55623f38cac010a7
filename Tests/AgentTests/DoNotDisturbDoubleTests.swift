import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

/// KDE Plasma, mako, SwayNotificationCenter and Budgie cannot run here (they need a Wayland
/// compositor, a Plasma session or Budgie's window manager and panel): doubles speak their real D-Bus interfaces on the real bus
/// (`Scripts/notification_desktops.py`), and the real agent watches and changes them.
@Suite(
    "Agent: do-not-disturb on Plasma, mako, swaync and Budgie (doubles)", .onItsOwnThread, .serialized, .requires(Built.unavailable),
    .timeLimit(.minutes(5)))
struct DoNotDisturbDoubleTests {
    /// A sandbox without dunst, the double of `desktop`, and the agent.
    static func start(_ desktop: String) async throws -> (AgentFixture, SandboxProcess) {
        let fixture = try await AgentFixture.start(startingAgent: false)
        do {
            let server = try await DesktopDoubles.startServer(desktop, in: fixture.sandbox)
            _ = try await DesktopDoubles.startAgent(in: fixture.sandbox)
            return (fixture, server)
        } catch {
            fixture.stop()
            throw error
        }
    }

    static let notifications = ("org.freedesktop.Notifications", "/org/freedesktop/Notifications")

    @Test("Plasma: Inhibited is watched; critical alerts show during it, unless CriticalInDndMode is off")
    func plasma() async throws {
        let (fixture, server) = try await Self.start("plasma")
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let (name, path) = Self.notifications
        try await DoNotDisturbDunstTests.waitForStatus(fixture) { $0["desktop"] as? String == "plasma" && $0["state"] as? String == "off" }
        let cookie = try await DesktopDoubles.call(
            sandbox, name, path, name, "Inhibit", [.string("org.kde.plasmashell"), .string("Do not disturb"), .dictionary([:])])
        try await DoNotDisturbDunstTests.waitForStatus(fixture) {
            $0["state"] as? String == "on" && $0["way"] as? String == "shown-as-critical"
        }
        let id = try await AlertingTests.timer(fixture, "1s", "--title", "Plasma")
        try await DesktopDoubles.waitForAlert("Plasma", from: server)
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))

        // The person turned "show critical notifications" off: only the sound gets through, and status says so.
        try "[DoNotDisturb]\nCriticalInDndMode=false\n".write(
            to: sandbox.configHome.appendingPathComponent("plasmanotifyrc"), atomically: true, encoding: .utf8)
        _ = try await DesktopDoubles.call(sandbox, name, path, name, "UnInhibit", cookie)
        _ = try await DesktopDoubles.call(
            sandbox, name, path, name, "Inhibit", [.string("org.kde.plasmashell"), .string("Do not disturb"), .dictionary([:])])
        try await DoNotDisturbDunstTests.waitForStatus(fixture) { $0["way"] as? String == "sound-only" }
        let status = try await fixture.reveille("status")
        #expect(status.output.contains("only their sound gets through"), "\(status)")
    }

    @Test("Plasma: an app's alarm names the app in the header (x-kde-origin-name, which Plasma lists); the person's own names none")
    func plasmaNamesTheApp() async throws {
        let (fixture, server) = try await Self.start("plasma")
        defer { fixture.stop() }
        let python = try await fixture.authorizePython()
        let scheduled = try await fixture.run(python, [AgentFixture.otherApp, "schedule", UUID().lowercasedText(), "Theirs", "1"])
        #expect(scheduled.status == .exited(0), "\(scheduled)")
        try await DesktopDoubles.waitForAlert("Theirs", from: server)
        let app = URL(fileURLWithPath: python).resolvingSymlinksInPath().lastPathComponent
        _ = try await server.waitForStandardOutput(containing: "origin Theirs: \(app)", timeout: .seconds(10))

        let own = try await AlertingTests.timer(fixture, "1s", "--title", "Mine")
        try await DesktopDoubles.waitForAlert("Mine", from: server)
        #expect(!server.standardOutput.contains("origin Mine"), "\(server.standardOutput)")
        #expect(try await fixture.reveille("stop", own.uuidString).status == .exited(0))
    }

    @Test(
        "Plasma: each alarm that starts wakes the blanked screen (the screen locker's SimulateUserActivity, PowerDevil's wakeup), a second one while the first rings too"
    )
    func plasmaWakesTheScreen() async throws {
        let (fixture, server) = try await Self.start("plasma")
        defer { fixture.stop() }
        #expect(
            !server.standardOutput.contains("SimulateUserActivity") && !server.standardOutput.contains("wakeup"),
            "woken with nothing ringing")
        func wakes(_ count: Int) async throws {
            try await waitUntil("the screen woken \(count) times", timeout: .seconds(10), detail: { server.outputs() }) {
                server.standardOutput.components(separatedBy: "screensaver SimulateUserActivity").count == count + 1
                    && server.standardOutput.components(separatedBy: "powerdevil wakeup").count == count + 1 ? true : nil
            }
        }
        let first = try await AlertingTests.timer(fixture, "1s", "--title", "Wake")
        try await DesktopDoubles.waitForAlert("Wake", from: server)
        try await wakes(1)
        // A second alarm while the first rings: the screen may have gone dark since, so it is woken again.
        let second = try await AlertingTests.timer(fixture, "1s", "--title", "Again")
        try await DesktopDoubles.waitForAlert("Again", from: server)
        try await wakes(2)
        #expect(try await fixture.reveille("stop", first.uuidString).status == .exited(0))
        #expect(try await fixture.reveille("stop", second.uuidString).status == .exited(0))
        // The next alarm, once none rings, wakes it again.
        _ = try await AlertingTests.timer(fixture, "1s", "--title", "Later")
        try await DesktopDoubles.waitForAlert("Later", from: server)
        try await wakes(3)
    }

    @Test(
        "Plasma: the screen saver's idle inhibitor is held from the first alert to the last Stop (the screen stays lit while alarms ring)")
    func plasmaKeepsTheScreenLit() async throws {
        let (fixture, server) = try await Self.start("plasma")
        defer { fixture.stop() }
        #expect(!server.standardOutput.contains("screensaver Inhibit"), "held with nothing ringing")
        let first = try await AlertingTests.timer(fixture, "1s", "--title", "Wake")
        try await DesktopDoubles.waitForAlert("Wake", from: server)
        _ = try await server.waitForStandardOutput(
            containing: "screensaver Inhibit io.github.reveille.Reveille (An alarm is ringing) 1", timeout: .seconds(10))
        let second = try await AlertingTests.timer(fixture, "1s", "--title", "Again")
        try await DesktopDoubles.waitForAlert("Again", from: server)
        #expect(try await fixture.reveille("stop", first.uuidString).status == .exited(0))
        try await AlertingTests.waitForState(nil, of: first, in: fixture)
        try await Task.sleep(for: .milliseconds(300))
        #expect(!server.standardOutput.contains("UnInhibit"), "held while the second alarm rings: \(server.standardOutput)")
        #expect(try await fixture.reveille("stop", second.uuidString).status == .exited(0))
        _ = try await server.waitForStandardOutput(containing: "screensaver UnInhibit 1", timeout: .seconds(10))
        #expect(
            server.standardOutput.components(separatedBy: "screensaver Inhibit").count == 2,
            "one inhibitor for both alarms: \(server.standardOutput)")
    }

    @Test("Plasma: when the shell takes the bubble off the screen (closed, expired), the alarm rings on until stopped")
    func plasmaHidesTheBubble() async throws {
        let (fixture, server) = try await Self.start("plasma")
        defer { fixture.stop() }
        let id = try await AlertingTests.timer(fixture, "1s", "--title", "Hide me")
        try await DesktopDoubles.waitForAlert("Hide me", from: server)
        _ = try await server.waitForStandardOutput(containing: "hid ", timeout: .seconds(10))
        // Past the presenter's suppression window (a close right after posting), it still rings:
        // no ending of it (its notification closed by the agent) over two seconds waited out in full.
        let ended = try await occurrences(of: "the alert ended (its notification closed by the agent)", over: .seconds(2)) {
            server.standardOutput.components(separatedBy: "close ").count - 1
        }
        #expect(ended.count == 0, "\(ended)\n\(server.outputs())")
        try await AlertingTests.waitForState("alerting", of: id, in: fixture)
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
        try await AlertingTests.waitForState(nil, of: id, in: fixture)
    }

    @Test("mako: the do-not-disturb mode is taken off while the alert rings and put back after")
    func mako() async throws {
        let (fixture, server) = try await Self.start("mako")
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        func modes() async throws -> [String] {
            let reply = try await DesktopDoubles.call(sandbox, "fr.emersion.Mako", "/fr/emersion/Mako", "fr.emersion.Mako", "ListModes")
            return reply.first?.arrayValue?.compactMap(\.stringValue) ?? []
        }
        // As `makoctl mode -a do-not-disturb` does.
        _ = try await DesktopDoubles.call(
            sandbox, "fr.emersion.Mako", "/fr/emersion/Mako", "fr.emersion.Mako", "SetModes", [.strings(["default", "do-not-disturb"])])
        try await DoNotDisturbDunstTests.waitForStatus(fixture) {
            $0["desktop"] as? String == "mako" && $0["state"] as? String == "on" && $0["way"] as? String == "lifted-while-ringing"
        }
        let id = try await AlertingTests.timer(fixture, "1s", "--title", "Mako")
        try await DesktopDoubles.waitForAlert("Mako", from: server)
        #expect(try await modes() == ["default"], "the mode is off before the alert is posted")
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
        try await DoNotDisturbDunstTests.waitForStatus(fixture) { $0["lifted"] as? Bool == false && $0["state"] as? String == "on" }
        #expect(try await modes() == ["default", "do-not-disturb"])
    }

    @Test("swaync: GetDnd is read, SubscribeV2 watched; the alert bypasses do-not-disturb with nothing changed")
    func swaync() async throws {
        let (fixture, server) = try await Self.start("swaync")
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let cc = ("org.erikreider.swaync.cc", "/org/erikreider/swaync/cc")
        // As `swaync-client --toggle-dnd` does.
        _ = try await DesktopDoubles.call(sandbox, cc.0, cc.1, cc.0, "ToggleDnd")
        try await DoNotDisturbDunstTests.waitForStatus(fixture) {
            $0["desktop"] as? String == "swaync" && $0["state"] as? String == "on" && $0["way"] as? String == "shown-as-critical"
        }
        let id = try await AlertingTests.timer(fixture, "1s", "--title", "Sway")
        try await DesktopDoubles.waitForAlert("Sway", from: server)
        #expect(try await DesktopDoubles.call(sandbox, cc.0, cc.1, cc.0, "GetDnd").first?.boolValue == true)
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
        _ = try await DesktopDoubles.call(sandbox, cc.0, cc.1, cc.0, "ToggleDnd")
        try await DoNotDisturbDunstTests.waitForStatus(fixture) { $0["state"] as? String == "off" }
    }

    @Test(
        "Budgie: budgie-daemon's GetDoNotDisturb is read and DoNotDisturbChanged watched; the alert, critical, shows during it with nothing changed"
    )
    func budgie() async throws {
        let (fixture, server) = try await Self.start("budgie")
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let dispatcher = ("org.budgie_desktop.Notifications", "/org/budgie_desktop/Notifications", "org.buddiesofbudgie.budgie.Dispatcher")
        try await DoNotDisturbDunstTests.waitForStatus(fixture) { $0["desktop"] as? String == "budgie" && $0["state"] as? String == "off" }
        // As Raven's do-not-disturb button does.
        _ = try await DesktopDoubles.call(sandbox, dispatcher.0, dispatcher.1, dispatcher.2, "ToggleDoNotDisturb")
        try await DoNotDisturbDunstTests.waitForStatus(fixture) {
            $0["state"] as? String == "on" && $0["way"] as? String == "shown-as-critical"
        }
        let status = try await fixture.reveille("status")
        #expect(status.output.contains("Budgie"), "\(status)")
        let id = try await AlertingTests.timer(fixture, "1s", "--title", "Budgie")
        try await DesktopDoubles.waitForAlert("Budgie", from: server)
        #expect(!server.standardOutput.contains("dropped 2 Budgie"), "\(server.standardOutput)")
        #expect(
            try await DesktopDoubles.call(sandbox, dispatcher.0, dispatcher.1, dispatcher.2, "GetDoNotDisturb").first?.boolValue == true)
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
        _ = try await DesktopDoubles.call(sandbox, dispatcher.0, dispatcher.1, dispatcher.2, "ToggleDoNotDisturb")
        try await DoNotDisturbDunstTests.waitForStatus(fixture) { $0["state"] as? String == "off" }
    }
}
