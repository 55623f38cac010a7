import AlarmKit
import Foundation
import Testing
import TestRequirements
import TestSupport

/// AlarmKit's intents on Linux: the app's own `org.freedesktop.Application` actions.
@Suite("Agent: intents", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
struct IntentTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/intent_app.py").path

    /// Starts the intent app (owning `appID`, claiming `claimedID` for its intents) with a 1-second
    /// timer, waits until it rings, and stops it with the person's command.
    func ringAndStop(_ fixture: AgentFixture, appID: String, claimedID: String) async throws -> SandboxProcess {
        let python = URL(fileURLWithPath: Built.systemPython).resolvingSymlinksInPath().path
        #expect(try await fixture.reveille("auth", "allow", python).status == .exited(0))
        let app = try fixture.sandbox.spawn(Built.systemPython, [Self.script, appID, claimedID, "1"])
        let scheduled = try await app.waitForStandardOutput(containing: "scheduled ", timeout: .seconds(30))
        let id = try #require(scheduled.split(separator: "\n").first { $0.hasPrefix("scheduled ") }?.split(separator: " ").last)
        let watch = try fixture.sandbox.spawn(Built.path("reveille"), ["watch", "--json"])
        _ = try await watch.waitForStandardOutput(containing: #""state":"alerting""#, timeout: .seconds(30))
        watch.terminate()
        let stopped = try await fixture.reveille("stop", String(id))
        #expect(stopped.status == .exited(0), "\(stopped)")
        return app
    }

    @Test("Stopping an alert runs the app's stop intent with ActivateAction and the alarm's id")
    func stopIntent() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let app = try await ringAndStop(fixture, appID: "org.example.Cooking", claimedID: "org.example.Cooking")
        #expect(try await app.waitForExit(timeout: .seconds(30)) == .exited(0), "\(app.outputs())")
        let id = try #require(app.standardOutput.split(separator: "\n").first?.split(separator: " ").last)
        #expect(app.standardOutput.contains("action stopped \(id)"), "\(app.outputs())")
    }

    @Test("An app cannot run intents on a bus name that is not its own")
    func claimedNameMustBeOwn() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        // The agent itself owns io.github.reveille.Alarms1: an app claiming it must be refused.
        let app = try await ringAndStop(fixture, appID: "org.example.Attacker", claimedID: "io.github.reveille.Alarms1")
        let log = try await waitForLog(fixture, containing: "An intent was not run")
        #expect(log.contains("An intent was not run"))
        #expect(!app.standardOutput.contains("action"))
        app.terminate()
    }

    static let gApplication = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Scripts/gapplication_app.py"
    ).path

    @Test("Open on a ringing alert activates the real GApplication that set it (org.freedesktop.Application.Activate), and stops the alarm")
    func openActivatesGApplication() async throws {
        let fixture = try await AgentFixture.start(notificationServer: true)
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let monitor = try sandbox.monitorNotifyCalls()
        try await fixture.authorizePython()
        let appID = "org.example.Opener"
        let app = try sandbox.spawn(Built.systemPython, [Self.gApplication, appID, "1"])
        defer { app.terminate() }
        let scheduled = try await app.waitForStandardOutput(containing: "scheduled ", timeout: .seconds(30))
        let id = try #require(scheduled.split(separator: "\n").first { $0.hasPrefix("scheduled ") }?.split(separator: " ").last)

        // The alert offers the app's Open button beside Stop.
        let alert = try await monitor.waitForNotify(matching: { $0.summary == "Open me" && $0.urgency == .byte(2) && $0.returnedID != nil })
        #expect(alert.actionKeys == ["default", "stop", "open"])
        #expect(alert.actionLabels["open"] == "Open")
        #expect(!app.standardOutput.contains("activate"), "nothing activated the app before Open: \(app.outputs())")

        // Open, picked in dunst's menu: GIO delivers Activate to the app, which says so and exits.
        try await offPool { try sandbox.pickAction("open") }
        #expect(try await app.waitForExit(timeout: .seconds(30)) == .exited(0), "\(app.outputs())\n\(fixture.agent?.outputs() ?? "")")
        let lines = app.standardOutput.split(separator: "\n")
        #expect(lines.last == "activate", "\(app.outputs())")
        #expect(!lines.contains { $0.hasPrefix("action ") }, "no stop intent as well: \(app.outputs())")
        // The Open button ends the alert: the one-shot alarm is gone.
        try await AlertingTests.waitForState(nil, of: try #require(UUID(uuidString: String(id))), in: fixture)
    }

    /// The agent's log (its standard error), once it contains `text`; throws after 30 s.
    func waitForLog(_ fixture: AgentFixture, containing text: String) async throws -> String {
        try await waitUntil("the agent to log \(text.debugDescription)", detail: { fixture.agent?.outputs() ?? "no agent" }) {
            let log = fixture.agent?.standardError ?? ""
            return log.contains(text) ? log : nil
        }
    }
}
