import CommandLineText
import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The snooze choices end to end (`reveilled --snooze-choices`): the real agent and dunst on a
/// private bus, the alert's extra actions as dunst receives them, and a choice picked in dunst's
/// menu as a person picks it.
@Suite("Agent: snooze choices on a ringing alarm", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
struct SnoozeChoiceTests {
    @Test(
        "With --snooze-choices 5m,10m the alert offers Snooze 5 min and 10 min; picking 10 min counts down 600 s; a forged snooze-12345 does nothing"
    )
    func pickAChoice() async throws {
        let fixture = try await AgentFixture.start(notificationServer: true, agentArguments: ["--snooze-choices", "5m,10m"])
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let monitor = try sandbox.monitorNotifyCalls()
        let added = try await fixture.reveille("add", "in 2s", "--title", "Wake up", "--snooze", "9m")
        #expect(added.status == .exited(0), "\(added)")
        let id = try #require(UUID(uuidString: added.line), "\(added)")

        let alert = try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Wake up") && $0.returnedID != nil })
        let notification = try #require(alert.returnedID)
        #expect(alert.actionKeys == ["default", "stop", "snooze", "snooze-300", "snooze-600"])
        #expect(alert.actionLabels["snooze"] == "Snooze")
        #expect(alert.actionLabels["snooze-300"] == "Snooze 5 min")
        #expect(alert.actionLabels["snooze-600"] == "Snooze 10 min")
        try await sandbox.waitForDisplayedCount(1)
        try await AlertingTests.waitForState("alerting", of: id, in: fixture)

        // A key that is no choice, sent as ActionInvoked for the alert's notification: nothing.
        let impostor = try DBusConnection.connect(address: sandbox.busAddress)
        defer { impostor.close() }
        try impostor.emitSignal(
            path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications", name: "ActionInvoked",
            arguments: [.uint32(notification), .string("snooze-12345")], destination: alert.sender)
        try await monitor.waitForMessage(matching: { message in
            message.kind == .signal && message.member == "ActionInvoked" && message.destination == alert.sender
                && message.body.count == 2 && message.body[1].string == "snooze-12345"
        })
        #expect(try await AlertingTests.list(fixture).first { $0.id == id.uuidString.lowercased() }?.state == "alerting")

        // Snooze 10 min, picked in dunst's menu. Had the forged key snoozed the alarm, its
        // notification would be gone and this pick would find no such action.
        let picked = try await offPool { try sandbox.pickAction("snooze-600") }
        #expect(picked == notification)
        try await AlertingTests.waitForState("countdown", of: id, in: fixture)
        let snoozed = try #require(try await AlertingTests.list(fixture).first { $0.id == id.uuidString.lowercased() })
        let remaining = try #require(snoozed.remaining, "\(snoozed)")
        #expect((590...600).contains(remaining), "\(remaining) s left")
        // The alarm's own snooze length is unchanged: the choice was for this time only.
        #expect(snoozed.countdown?.postAlert == 540)
        // The alert's notification is taken away (the countdown's own takes its place).
        try await monitor.waitForMessage(matching: { message in
            message.kind == .methodCall && message.isMember("org.freedesktop.Notifications", "CloseNotification")
                && message.body.first == .uint32(notification)
        })
        let history = try await fixture.reveille("history", "--json")
        #expect(history.output.components(separatedBy: #""outcome":"snoozed""#).count == 2, "\(history.output)")
    }

    @Test("Without --snooze-choices the alert offers Stop and Snooze only")
    func noChoices() async throws {
        let fixture = try await AgentFixture.start(notificationServer: true)
        defer { fixture.stop() }
        let monitor = try fixture.sandbox.monitorNotifyCalls()
        let added = try await fixture.reveille("add", "in 1s", "--title", "Plain", "--snooze", "9m")
        let id = try #require(UUID(uuidString: added.line), "\(added)")
        let alert = try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Plain") })
        #expect(alert.actionKeys == ["default", "stop", "snooze"])
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
    }

    @Test(
        "A bad --snooze-choices is a usage error (exit 64) naming the bad item",
        arguments: [("5m,7x", "7x"), ("0", "0"), ("13h", "13h"), ("1m,2m,3m,4m,5m,6m", "at most 5")])
    func badList(_ list: String, _ named: String) async throws {
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let result = try await fixture.run(Built.path("reveilled"), ["--snooze-choices", list])
        #expect(result.status == .exited(64), "\(result)")
        #expect(result.error.contains("--snooze-choices") && result.error.contains(named), "\(result)")
    }
}
