import Foundation
import Glibc
import Testing
import TestRequirements
@testable import TestSupport

/// dunst as the real notification server, used through notify-send, dunstctl and the bus monitor.
@Suite("Notifications in the sandbox", .onItsOwnThread, .requires(sandboxMissing), .timeLimit(.minutes(5)))
struct NotificationTests {
    @Test("notify-send with actions is shown; picking Snooze in the menu makes notify-send print snooze")
    func pickSnooze() async throws {
        let sandbox = try DesktopSandbox()
        defer { stopAndExpectNothingLeft(sandbox) }
        let monitor = try sandbox.monitorNotifyCalls()
        // notify-send 0.8 waits for an action when given --action: run it as a child.
        let sender = try sandbox.spawn(
            "notify-send", ["-A", "stop=Stop", "-A", "snooze=Snooze", "-u", "critical", "Wake up", "It is time"])
        let call = try await monitor.waitForNotify(matching: { $0.summary == "Wake up" && $0.returnedID != nil })
        try await sandbox.waitForDisplayedCount(1)
        #expect(try sandbox.displayedCount() == 1)

        let id = try sandbox.pickAction("snooze")
        #expect(id == call.returnedID)
        #expect(try await sender.waitForExit(timeout: .seconds(10)) == .exited(0))
        #expect(sender.standardOutput == "snooze\n")
        let menu = try String(contentsOf: sandbox.dunstFiles.pickMenuURL, encoding: .utf8)
        #expect(menu.contains("#Stop (Wake up) [\(id),stop]"))
        #expect(menu.contains("#Snooze (Wake up) [\(id),snooze]"))
        // The signal went over the bus to notify-send (the monitor reads on its own thread).
        let invoked = try await monitor.waitForMessage(matching: { $0.member == "ActionInvoked" })
        #expect(invoked.body == [.uint32(id), .string("snooze")])
        #expect(invoked.destination == call.sender)
        #expect(monitor.signals("ActionInvoked").count == 1)
    }

    @Test("The monitor sees Notify's arguments with their wire types: urgency is a byte")
    func monitorSeesTypes() async throws {
        let sandbox = try DesktopSandbox()
        defer { stopAndExpectNothingLeft(sandbox) }
        let monitor = try sandbox.monitorNotifyCalls()
        let body = "Line one\nLine \"two\" with quotes\n  string \"fake\""
        let sender = try sandbox.spawn(
            "notify-send",
            [
                "-u", "critical", "-a", "Reveille test", "-i", "alarm-clock", "-c", "x-reveille.alarm", "-t", "0",
                "-h", "boolean:resident:true", "-h", "string:desktop-entry:io.github.reveille.Reveille",
                "-A", "stop=Stop", "-A", "snooze=Snooze", "Wake up", body,
            ])
        let call = try await monitor.waitForNotify(matching: { $0.returnedID != nil })
        #expect(call.appName == "Reveille test")
        #expect(call.appIcon == "alarm-clock")
        #expect(call.summary == "Wake up")
        #expect(call.body == body)
        #expect(call.replacesID == 0)
        #expect(call.actions == ["stop", "Stop", "snooze", "Snooze"])
        #expect(call.actionKeys == ["stop", "snooze"])
        #expect(call.actionLabels == ["stop": "Stop", "snooze": "Snooze"])
        #expect(call.urgency == .byte(2))
        #expect(call.hints["resident"] == .boolean(true))
        #expect(call.hints["category"] == .string("x-reveille.alarm"))
        #expect(call.hints["desktop-entry"] == .string("io.github.reveille.Reveille"))
        #expect(call.expireTimeout == 0)
        #expect(call.returnedID ?? 0 > 0)
        #expect(call.sender.hasPrefix(":"))
        sender.terminate()
    }

    @Test("Without -u the urgency is normal (1) and the timeout is the server's default (-1)")
    func defaults() async throws {
        let sandbox = try DesktopSandbox()
        defer { stopAndExpectNothingLeft(sandbox) }
        let monitor = try sandbox.monitorNotifyCalls()
        let sender = try sandbox.spawn("notify-send", ["Plain"])
        #expect(try await sender.waitForExit(timeout: .seconds(10)) == .exited(0))
        let call = try await monitor.waitForNotify(matching: { $0.summary == "Plain" })
        #expect(call.urgency == .byte(1))
        #expect(call.expireTimeout == -1)
        #expect(call.actions.isEmpty)
    }

    @Test("A click (dunstctl action 0) runs the default action")
    func defaultAction() async throws {
        let sandbox = try DesktopSandbox()
        defer { stopAndExpectNothingLeft(sandbox) }
        let monitor = try sandbox.monitorNotifyCalls()
        let sender = try sandbox.spawn("notify-send", ["-t", "0", "-A", "default=Open", "-A", "stop=Stop", "Timer"])
        let call = try await monitor.waitForNotify(matching: { $0.returnedID != nil })
        try await sandbox.waitForDisplayedCount(1)
        let invoked = try sandbox.invokeDefaultAction()
        #expect(invoked.key == "default")
        #expect(invoked.id == call.returnedID)
        #expect(try await sender.waitForExit(timeout: .seconds(10)) == .exited(0))
        #expect(sender.standardOutput == "default\n")
    }

    @Test("Picking an action the menu does not offer fails and shows the menu")
    func missingAction() async throws {
        let sandbox = try DesktopSandbox()
        defer { stopAndExpectNothingLeft(sandbox) }
        let monitor = try sandbox.monitorNotifyCalls()
        let sender = try sandbox.spawn("notify-send", ["-t", "0", "-A", "stop=Stop", "Only stop"])
        try await monitor.waitForNotify(matching: { $0.returnedID != nil })
        try await sandbox.waitForDisplayedCount(1)
        do {
            try sandbox.pickAction("snooze")
            Issue.record("picking snooze should fail")
        } catch SandboxError.noSuchAction(let suffix, let menu) {
            #expect(suffix == ",snooze]")
            #expect(menu.contains("#Stop (Only stop) ["))
        }
        #expect(sender.isRunning, "no action was invoked")
        #expect(monitor.signals("ActionInvoked").isEmpty)
    }

    @Test("Picking with no notification shown times out with a clear message")
    func nothingToPick() throws {
        let sandbox = try DesktopSandbox()
        defer { stopAndExpectNothingLeft(sandbox) }
        do {
            try sandbox.pickAction("stop", timeout: .milliseconds(500))
            Issue.record("picking should fail")
        } catch SandboxError.timeout(let what) {
            #expect(what.contains("opened no menu"))
        }
    }

    @Test("dunst killed and restarted takes the name again")
    func restart() async throws {
        let sandbox = try DesktopSandbox()
        defer { stopAndExpectNothingLeft(sandbox) }
        let monitor = try sandbox.monitorNotifyCalls()
        let first = try #require(sandbox.notificationServerPID)

        try sandbox.stopNotificationServer(.kill)
        #expect(sandbox.notificationServerPID == nil)
        #expect(!ProcessTable.isRunning(first))
        #expect(try sandbox.busNameOwner("org.freedesktop.Notifications") == nil)

        try sandbox.startNotificationServer()
        let second = try #require(sandbox.notificationServerPID)
        #expect(second != first)
        #expect(try sandbox.busNameOwnerPID("org.freedesktop.Notifications") == second)

        // The monitor saw the name lost and taken again (it reads the bus on its own thread).
        let changes = try await Poll.until("both owner changes", timeout: .seconds(30), detail: monitor.summary) {
            let changes = monitor.messages().filter { $0.member == "NameOwnerChanged" }.map { $0.body.map(\.string) }
            return changes.count >= 2 ? changes : nil
        }
        #expect(changes.count == 2)
        #expect(changes.first?[2] == "")
        #expect(changes.last?[1] == "")

        // The new server works. The notification stays until closed (`-t 0`): with dunst's default
        // 10 s timeout, a test thread starved on a busy machine could count after it expired.
        let sender = try sandbox.spawn("notify-send", ["-t", "0", "After restart"])
        #expect(try await sender.waitForExit(timeout: .seconds(10)) == .exited(0))
        try await sandbox.waitForDisplayedCount(1)

        // A clean stop (SIGTERM) too.
        try sandbox.stopNotificationServer(.terminate)
        #expect(!ProcessTable.isRunning(second))
        #expect(try sandbox.busNameOwner("org.freedesktop.Notifications") == nil)
    }

    @Test("Paused, dunst holds notifications back and shows them when resumed")
    func pause() async throws {
        let sandbox = try DesktopSandbox()
        defer { stopAndExpectNothingLeft(sandbox) }
        #expect(try sandbox.isPaused() == false)
        try sandbox.setPaused(true)
        #expect(try sandbox.isPaused() == true)
        let sender = try sandbox.spawn("notify-send", ["-u", "critical", "Held back"])
        #expect(try await sender.waitForExit(timeout: .seconds(10)) == .exited(0))
        #expect(try sandbox.waitingCount() == 1)
        #expect(try sandbox.displayedCount() == 0)
        try sandbox.setPaused(false)
        try await sandbox.waitForDisplayedCount(1)
        #expect(try sandbox.waitingCount() == 0)
    }

    @Test("Closed notifications are in dunst's history with their fields")
    func history() async throws {
        let sandbox = try DesktopSandbox()
        defer { stopAndExpectNothingLeft(sandbox) }
        let monitor = try sandbox.monitorNotifyCalls()
        let sender = try sandbox.spawn(
            "notify-send",
            [
                "-a", "Reveille", "-c", "x-reveille.alarm", "-u", "critical", "Wake up", "Body \"quoted\"\nsecond line",
            ])
        #expect(try await sender.waitForExit(timeout: .seconds(10)) == .exited(0))
        let call = try await monitor.waitForNotify(matching: { $0.returnedID != nil })
        try await sandbox.waitForDisplayedCount(1)
        #expect(try sandbox.history().isEmpty)
        try sandbox.closeAll()
        try await sandbox.waitForDisplayedCount(0)
        let history = try sandbox.history()
        #expect(history.count == 1)
        let entry = try #require(history.first)
        #expect(entry.id == Int32(call.returnedID ?? 0))
        #expect(entry.appName == "Reveille")
        #expect(entry.summary == "Wake up")
        #expect(entry.body == "Body \"quoted\"\nsecond line")
        #expect(entry.category == "x-reveille.alarm")
        #expect(entry.timeout == 0, "critical notifications do not expire in dunst")
        #expect(try sandbox.historyCount() == 1)
        // NotificationClosed went out with reason 2 (dismissed by the user).
        let closed = try await monitor.waitForMessage(matching: { $0.member == "NotificationClosed" })
        #expect(closed.body == [.uint32(call.returnedID ?? 0), .uint32(2)])
    }
}
