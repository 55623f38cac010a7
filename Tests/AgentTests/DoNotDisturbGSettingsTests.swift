import Foundation
import Testing
import TestRequirements
import TestSupport

/// Do-not-disturb kept in GSettings (GNOME, Cinnamon, MATE), with the real GSettings stack: dconf's
/// service on the sandbox's bus, the installed schemas, and the `gsettings` command as the person's
/// hand. The notification servers are doubles (gnome-shell, cinnamon and mate-notification-daemon
/// do not run here) answering `GetServerInformation` as the real ones do.
@Suite(
    "Agent: do-not-disturb in GSettings (GNOME, Cinnamon, MATE)", .onItsOwnThread, .serialized,
    .requires(Built.unavailable ?? DesktopDoubles.gsettingsUnavailable), .timeLimit(.minutes(5)))
struct DoNotDisturbGSettingsTests {
    static let gnome = ("org.gnome.desktop.notifications", "show-banners")

    /// A sandbox with dconf and the double of `desktop`'s server, no dunst, and no agent yet.
    static func start(_ desktop: String) async throws -> (AgentFixture, SandboxProcess) {
        let fixture = try await AgentFixture.start(startingAgent: false)
        do {
            try await DesktopDoubles.startDconf(in: fixture.sandbox)
            let server = try await DesktopDoubles.startServer(desktop, in: fixture.sandbox)
            return (fixture, server)
        } catch {
            fixture.stop()
            throw error
        }
    }

    @Test(
        "GNOME: banners off is read and watched; unlocked, nothing is changed; locked, it is lifted and put back",
        .requires(DesktopDoubles.schemaMissing("org.gnome.desktop.notifications")))
    func gnome() async throws {
        let (fixture, server) = try await Self.start("gnome")
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let (schema, key) = Self.gnome
        try await DesktopDoubles.set(schema, key, "false", in: sandbox)
        _ = try await DesktopDoubles.startAgent(in: sandbox)
        try await DoNotDisturbDunstTests.waitForStatus(fixture) {
            $0["state"] as? String == "on" && $0["way"] as? String == "shown-as-critical" && $0["desktop"] as? String == "gnome"
        }
        // Watched, not polled: the person turns banners on and off.
        try await DesktopDoubles.set(schema, key, "true", in: sandbox)
        try await DoNotDisturbDunstTests.waitForStatus(fixture) { $0["state"] as? String == "off" }
        try await DesktopDoubles.set(schema, key, "false", in: sandbox)
        try await DoNotDisturbDunstTests.waitForStatus(fixture) { $0["state"] as? String == "on" }

        // Unlocked: GNOME shows critical banners during do-not-disturb; the setting is left alone.
        let open = try await AlertingTests.timer(fixture, "1s", "--title", "Open")
        try await DesktopDoubles.waitForAlert("Open", from: server)
        #expect(try await DesktopDoubles.get(schema, key, in: sandbox) == "false")
        #expect(try await fixture.reveille("stop", open.uuidString).status == .exited(0))

        // Locked: no banners on the lock screen while do-not-disturb is on: lifted while ringing.
        _ = try await DesktopDoubles.call(
            sandbox, "org.gnome.ScreenSaver", "/org/gnome/ScreenSaver", "org.gnome.ScreenSaver", "SetActive", [.boolean(true)])
        try await DoNotDisturbDunstTests.waitForStatus(fixture) { $0["way"] as? String == "lifted-while-ringing" }
        let status = try await fixture.reveille("status")
        #expect(status.output.contains("the screen is locked"), "\(status)")
        let locked = try await AlertingTests.timer(fixture, "1s", "--title", "Locked")
        try await DesktopDoubles.waitForAlert("Locked", from: server)
        #expect(try await DesktopDoubles.get(schema, key, in: sandbox) == "true", "banners are on while the alert rings")
        #expect(try await fixture.reveille("stop", locked.uuidString).status == .exited(0))
        try await DesktopDoubles.waitFor(schema, key, "false", in: sandbox)
    }

    @Test(
        "Cinnamon: notifications off is lifted while the alert rings and put back",
        .requires(DesktopDoubles.schemaMissing("org.cinnamon.desktop.notifications")))
    func cinnamon() async throws {
        try await liftAndRestore("cinnamon", "org.cinnamon.desktop.notifications", "display-notifications", on: "false", off: "true")
    }

    @Test(
        "MATE: do-not-disturb is lifted while the alert rings and put back",
        .requires(DesktopDoubles.schemaMissing("org.mate.NotificationDaemon")))
    func mate() async throws {
        try await liftAndRestore("mate", "org.mate.NotificationDaemon", "do-not-disturb", on: "true", off: "false")
    }

    func liftAndRestore(_ desktop: String, _ schema: String, _ key: String, on: String, off: String) async throws {
        let (fixture, server) = try await Self.start(desktop)
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        try await DesktopDoubles.set(schema, key, on, in: sandbox)
        _ = try await DesktopDoubles.startAgent(in: sandbox)
        try await DoNotDisturbDunstTests.waitForStatus(fixture) {
            $0["state"] as? String == "on" && $0["way"] as? String == "lifted-while-ringing" && $0["desktop"] as? String == desktop
        }
        let id = try await AlertingTests.timer(fixture, "1s", "--title", "Break")
        try await DesktopDoubles.waitForAlert("Break", from: server)
        #expect(try await DesktopDoubles.get(schema, key, in: sandbox) == off, "lifted before the alert was posted")
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
        try await DesktopDoubles.waitFor(schema, key, on, in: sandbox)
    }

    @Test("A GNOME server whose schema is not installed: the agent runs on and says the setting is not read")
    func missingSchema() async throws {
        let (fixture, server) = try await Self.start("gnome")
        defer { fixture.stop() }
        let empty = fixture.sandbox.root.appendingPathComponent("no-schemas")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let agent = try await DesktopDoubles.startAgent(in: fixture.sandbox, environment: ["XDG_DATA_DIRS": empty.path])
        try await DoNotDisturbDunstTests.waitForStatus(fixture) { $0["desktop"] as? String == "gnome" }
        let status = try await fixture.reveille("status")
        #expect(status.output.contains("dnd      unknown"), "\(status)")
        let id = try await AlertingTests.timer(fixture, "1s", "--title", "Still")
        try await DesktopDoubles.waitForAlert("Still", from: server)
        #expect(agent.isRunning)
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
    }
}
