import AlarmCore
import AlarmModel
import AlarmRecords
import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

@testable import AlarmDesktop

/// The presenter against the real dunst on a private bus, through `reveille-notify-probe`.
@Suite(
    "NotificationPresenter with dunst", .onItsOwnThread, .serialized,
    .requires(sandboxMissing), .timeLimit(.minutes(5)))
struct NotificationPresenterTests {
    func closeCalls(_ monitor: NotifyMonitor, id: UInt32) -> [BusMessage] {
        monitor.messages().filter {
            $0.kind == .methodCall && $0.isMember("org.freedesktop.Notifications", "CloseNotification")
                && $0.body.first == .uint32(id)
        }
    }

    @Test("An alert's Notify call has the title, the actions in order, urgency as a byte 2, no expiry, the hints")
    func alertCall() async throws {
        let sandbox = try DesktopSandbox()
        defer { sandbox.stop() }
        let monitor = try sandbox.monitorNotifyCalls()
        let probe = try await Probe(sandbox)
        let id = UUID()
        probe.send("alert", id.uuidString, "Wake up", "snooze")
        let call = try await monitor.waitForNotify(matching: { $0.summary == "Wake up" && $0.returnedID != nil })
        #expect(call.appName == "Reveille")
        #expect(call.appIcon == "io.github.reveille.Reveille")
        #expect(call.replacesID == 0)
        #expect(call.actions == ["default", "Show", "stop", "Stop", "snooze", "Snooze"])
        #expect(call.urgency == .byte(2))
        #expect(call.expireTimeout == 0)
        #expect(call.hints["resident"] == .boolean(true))
        #expect(call.hints["suppress-sound"] == .boolean(true))
        #expect(call.hints["desktop-entry"] == .string("io.github.reveille.Reveille"))
        #expect(call.hints["category"] == .string("x-reveille.alarm"))
        #expect(call.hints["SWAYNC_BYPASS_DND"] == .boolean(true))
        // dunst has the actions capability: no terminal instructions.
        #expect(!call.body.contains("reveille stop"))
        try await sandbox.waitForDisplayedCount(1)

        // endAlert closes it.
        probe.send("endAlert", id.uuidString)
        try await probe.flush()
        _ = try await eventually("CloseNotification") { closeCalls(monitor, id: call.returnedID!).first }
        try await sandbox.waitForDisplayedCount(0)
        await probe.stop()
    }

    @Test("The secondary action is repeat for a Repeat button, open for .custom")
    func secondaryKeys() async throws {
        let sandbox = try DesktopSandbox()
        defer { sandbox.stop() }
        let monitor = try sandbox.monitorNotifyCalls()
        let probe = try await Probe(sandbox)
        probe.send("alert", UUID().uuidString, "Tea", "repeat", "timer")
        probe.send("alert", UUID().uuidString, "Open me", "open")
        probe.send("alert", UUID().uuidString, "Plain", "none")
        let tea = try await monitor.waitForNotify(matching: { $0.summary == "Tea" })
        let open = try await monitor.waitForNotify(matching: { $0.summary == "Open me" })
        let plain = try await monitor.waitForNotify(matching: { $0.summary == "Plain" })
        #expect(tea.actions == ["default", "Show", "stop", "Stop", "repeat", "Repeat"])
        #expect(open.actions == ["default", "Show", "stop", "Stop", "open", "Open"])
        #expect(plain.actions == ["default", "Show", "stop", "Stop"])
        await probe.stop()
    }

    @Test("Picking snooze in dunst's menu reaches onAction as .secondary, and the presenter closes the notification")
    func pickSnooze() async throws {
        let sandbox = try DesktopSandbox()
        defer { sandbox.stop() }
        let monitor = try sandbox.monitorNotifyCalls()
        let probe = try await Probe(sandbox)
        let id = UUID()
        probe.send("alert", id.uuidString, "Wake up", "snooze")
        let call = try await monitor.waitForNotify(matching: { $0.summary == "Wake up" && $0.returnedID != nil })
        try await sandbox.waitForDisplayedCount(1)
        // Past the suppression window, so nothing but the action can explain what follows.
        try await Task.sleep(for: .milliseconds(1100))

        let picked = try sandbox.pickAction("snooze")
        #expect(picked == call.returnedID)
        try await probe.waitForResponse("secondary", for: id)
        let close = try await eventually("our CloseNotification") { closeCalls(monitor, id: picked).first }
        #expect(close.sender == call.sender)
        try await sandbox.waitForDisplayedCount(0)
        // The close that follows the action is not reported (no dismissed, no stop).
        #expect(try await probe.settledResponses(for: id) == ["secondary"])
        await probe.stop()
    }

    @Test("Picking stop reaches onAction as .stop")
    func pickStop() async throws {
        let sandbox = try DesktopSandbox()
        defer { sandbox.stop() }
        let probe = try await Probe(sandbox)
        let id = UUID()
        probe.send("alert", id.uuidString, "Wake up", "snooze")
        try await sandbox.waitForDisplayedCount(1)
        try sandbox.pickAction("stop")
        try await probe.waitForResponse("stop", for: id)
        try await sandbox.waitForDisplayedCount(0)
        #expect(probe.responses(for: id) == ["stop"])
        await probe.stop()
    }

    @Test("ActionInvoked and NotificationClosed from a connection that does not own the name are ignored")
    func impostorIgnored() async throws {
        let sandbox = try DesktopSandbox()
        defer { sandbox.stop() }
        let monitor = try sandbox.monitorNotifyCalls()
        let probe = try await Probe(sandbox)
        let id = UUID()
        probe.send("alert", id.uuidString, "Wake up", "snooze")
        let call = try await monitor.waitForNotify(matching: { $0.summary == "Wake up" && $0.returnedID != nil })
        try await Task.sleep(for: .milliseconds(1100))
        let impostor = try DBusConnection.connect(address: sandbox.busAddress)
        defer { impostor.close() }
        for (name, arguments) in [
            ("ActionInvoked", [DBusValue.uint32(call.returnedID!), .string("stop")]),
            ("NotificationClosed", [DBusValue.uint32(call.returnedID!), .uint32(2)]),
        ] {
            try impostor.emitSignal(
                path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications", name: name,
                arguments: arguments, destination: call.sender)
        }
        _ = try await eventually("the impostor's signals on the bus") {
            monitor.messages().filter { $0.kind == .signal && $0.destination == call.sender }.count >= 2 ? true : nil
        }
        #expect(try await probe.settledResponses(for: id).isEmpty)
        // The real server's action still works.
        try sandbox.pickAction("stop")
        try await probe.waitForResponse("stop", for: id)
        #expect(probe.responses(for: id) == ["stop"])
        await probe.stop()
    }

    @Test("A click on the bubble (default action) reaches onAction as .default")
    func defaultAction() async throws {
        let sandbox = try DesktopSandbox()
        defer { sandbox.stop() }
        let probe = try await Probe(sandbox)
        let id = UUID()
        probe.send("alert", id.uuidString, "Wake up", "snooze")
        try await sandbox.waitForDisplayedCount(1)
        try await Task.sleep(for: .milliseconds(1100))
        let invoked = try sandbox.invokeDefaultAction()
        #expect(invoked.key == "default")
        try await probe.waitForResponse("default", for: id)
        #expect(try await probe.settledResponses(for: id) == ["default"])
        await probe.stop()
    }

    @Test("A person closing the alert later is .dismissed; a close right after posting is .suppressed, never a stop")
    func dismissedAndSuppressed() async throws {
        let sandbox = try DesktopSandbox()
        defer { sandbox.stop() }
        let probe = try await Probe(sandbox)

        let quick = UUID()
        probe.send("alert", quick.uuidString, "Quick", "none")
        try await sandbox.waitForDisplayedCount(1)
        try sandbox.closeAll()
        try await probe.waitForResponse("suppressed", for: quick)
        #expect(probe.responses(for: quick) == ["suppressed"])

        let late = UUID()
        probe.send("alert", late.uuidString, "Late", "none")
        try await sandbox.waitForDisplayedCount(1)
        try await Task.sleep(for: .milliseconds(1200))
        try sandbox.closeAll()
        try await probe.waitForResponse("dismissed", for: late)
        #expect(probe.responses(for: late) == ["dismissed"])
        await probe.stop()
    }

    @Test("dunst killed and started again: the alert still ringing is posted again")
    func serverRestart() async throws {
        let sandbox = try DesktopSandbox()
        defer { sandbox.stop() }
        let monitor = try sandbox.monitorNotifyCalls()
        let probe = try await Probe(sandbox)
        let id = UUID()
        probe.send("alert", id.uuidString, "Wake up", "snooze")
        let first = try await monitor.waitForNotify(matching: { $0.summary == "Wake up" && $0.returnedID != nil })
        try sandbox.stopNotificationServer(.kill)
        try sandbox.startNotificationServer()
        let calls = try await eventually("a second Notify") {
            let calls = monitor.notifyCalls().filter { $0.summary == "Wake up" && $0.returnedID != nil }
            return calls.count >= 2 ? calls : nil
        }
        #expect(calls.count == 2)
        #expect(calls[1].sender == first.sender)
        #expect(calls[1].replacesID == 0)
        #expect(calls[1].urgency == .byte(2))
        #expect(calls[1].actions == first.actions)
        try await sandbox.waitForDisplayedCount(1)
        // And the new server's actions reach us.
        try sandbox.pickAction("stop")
        try await probe.waitForResponse("stop", for: id)
        await probe.stop()
    }

    @Test("No server at first: the alert is posted when one appears")
    func serverAppears() async throws {
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { sandbox.stop() }
        let monitor = try sandbox.monitorNotifyCalls()
        let probe = try await Probe(sandbox)
        let id = UUID()
        probe.send("alert", id.uuidString, "Wake up", "snooze")
        try await probe.flush()
        #expect(monitor.notifyCalls().allSatisfy { $0.returnedID == nil })
        try sandbox.startNotificationServer()
        let call = try await monitor.waitForNotify(matching: { $0.summary == "Wake up" && $0.returnedID != nil })
        #expect(call.urgency == .byte(2))
        try await sandbox.waitForDisplayedCount(1)
        await probe.stop()
    }

    @Test("No server at first: a running countdown is shown when one appears, and updated every second from then on")
    func countdownServerAppears() async throws {
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { sandbox.stop() }
        let monitor = try sandbox.monitorNotifyCalls()
        let probe = try await Probe(sandbox)
        probe.send("countdown", UUID().uuidString, "Tea", "30", "60")
        try await probe.flush()
        let shownWithoutServer = try await occurrences(of: "notifications shown without a server", over: .milliseconds(1_500)) {
            monitor.notifyCalls().filter { $0.returnedID != nil }.count
        }
        #expect(shownWithoutServer.count == 0 && monitor.notifyCalls().allSatisfy { $0.returnedID == nil }, "\(shownWithoutServer)")
        try sandbox.startNotificationServer()
        let shown = try await monitor.waitForNotify(matching: { $0.summary == "Counting down" && $0.returnedID != nil })
        let updated = try await monitor.waitForNotify(matching: {
            $0.summary == "Counting down" && $0.returnedID != nil && $0.replacesID == shown.returnedID
        })
        #expect(shown.body.hasPrefix("0:2") && updated.body.hasPrefix("0:2"), "\(shown.body) then \(updated.body)")
        #expect(updated.body != shown.body, "the countdown ticks again")
        await probe.stop()
    }

    @Test("Markup in the title is escaped in the body; the summary stays plain")
    func markupEscaped() async throws {
        let sandbox = try DesktopSandbox()
        defer { sandbox.stop() }
        let monitor = try sandbox.monitorNotifyCalls()
        let probe = try await Probe(sandbox)
        let title = #"Tom & "Jerry" <b>it's</b>"#
        probe.send("alert", UUID().uuidString, title, "snooze")
        let call = try await monitor.waitForNotify(matching: { $0.returnedID != nil })
        #expect(call.summary == title)
        #expect(call.body.contains("Tom &amp; &quot;Jerry&quot; &lt;b&gt;it&#39;s&lt;/b&gt;"))
        #expect(!call.body.contains("<b>"))
        await probe.stop()
    }

    @Test("A countdown is one quiet notification updated in place, at most once a second; paused shows Resume")
    func countdownInPlace() async throws {
        let sandbox = try DesktopSandbox()
        defer { sandbox.stop() }
        let monitor = try sandbox.monitorNotifyCalls()
        let probe = try await Probe(sandbox)
        let id = UUID()
        probe.send("countdown", id.uuidString, "Tea", "3.5", "10")
        let first = try await monitor.waitForNotify(matching: { $0.summary == "Counting down" && $0.returnedID != nil })
        #expect(first.replacesID == 0)
        #expect(first.body.hasPrefix("0:04 left"))
        #expect(first.actions == ["pause", "Pause", "cancel", "Cancel"])
        #expect(first.urgency == .byte(0))
        #expect(first.hints["transient"] == .boolean(true))
        #expect(first.hints["suppress-sound"] == .boolean(true))
        #expect(first.hints["value"] == .int32(60), "the bar agrees with the 4 s the text shows left")
        #expect(first.expireTimeout == 0)
        try await Task.sleep(for: .milliseconds(4200))
        let calls = monitor.notifyCalls().filter { $0.summary == "Counting down" }
        // 3.5 s left: 0:04 at once; 0:03 would come 0.5 s later, too soon, so 0:02 at 2.0 s left,
        // then each second on the boundary, but none at the very end, where the alert takes over
        // (an update in flight then would hold the alert back).
        #expect(calls.map { String($0.body.prefix(4)) } == ["0:04", "0:02", "0:01"], "\(calls.map(\.body))")
        #expect(calls.dropFirst().allSatisfy { $0.replacesID == first.returnedID })
        #expect(calls.last?.hints["value"] == .int32(90))
        let instants = calls.compactMap(\.receivedAt)
        for (earlier, later) in zip(instants, instants.dropFirst()) {
            #expect(earlier.duration(to: later) >= .milliseconds(900))
        }
        #expect(try sandbox.displayedCount() == 1)

        probe.send("paused", id.uuidString, "Tea", "42", "60")
        let paused = try await monitor.waitForNotify(matching: { $0.summary == "Paused" })
        #expect(paused.replacesID == first.returnedID)
        #expect(paused.actions == ["resume", "Resume", "cancel", "Cancel"])
        #expect(paused.body.hasPrefix("Paused · 0:42 left"))
        // A running countdown is refreshed every second: two seconds hold two refreshes.
        let refreshes = try await occurrences(of: "refreshes of a paused countdown", over: .seconds(2)) {
            monitor.notifyCalls().filter { $0.summary == "Paused" }.count
        }
        #expect(
            refreshes.count == 0 && monitor.notifyCalls().filter { $0.summary == "Paused" }.count == 1,
            "a paused countdown is not refreshed: \(refreshes)")

        try sandbox.pickAction("resume")
        try await probe.waitForResponse("resume", for: id)
        probe.send("endCountdown", id.uuidString)
        _ = try await eventually("CloseNotification") { closeCalls(monitor, id: first.returnedID!).first }
        try await sandbox.waitForDisplayedCount(0)
        await probe.stop()
    }
}

/// The notification's content, without a server.
@Suite("Notification content", .onItsOwnThread, .timeLimit(.minutes(5)))
struct NotificationContentTests {
    func record(_ presentation: AlarmPresentation, timer: Bool = false) -> AlarmRecord {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        return AlarmRecord(
            id: UUID(uuidString: "0A1B2C3D-0000-4000-8000-000000000000")!, owner: "test",
            definition: AlarmDefinition(
                schedule: timer ? nil : .fixed(now), countdownDuration: .init(preAlert: nil, postAlert: 300),
                presentation: presentation),
            phase: .alerting(.init(scheduledAt: now, startedAt: now, timesOutAt: nil)), anchor: now)
    }

    @Test("A label with markup and a link reaches the body as text")
    func escaping() {
        let alarm = record(
            AlarmPresentation(alert: .init(title: LocalizedStringResource(stringLiteral: #"<b>Tea</b> & <a href="http://x">'go'</a>"#))))
        let body = NotificationContent.alert(alarm, hasActions: true, timeZone: .utc).body
        #expect(body == "08:00 · &lt;b&gt;Tea&lt;/b&gt; &amp; &lt;a href=&quot;http://x&quot;&gt;&#39;go&#39;&lt;/a&gt;")
    }

    @Test("Without actions the body says how to stop the alarm from a terminal")
    func noActions() {
        let alarm = record(AlarmPresentation(alert: .init(title: "Wake up")))
        let content = NotificationContent.alert(alarm, hasActions: false, timeZone: .utc)
        #expect(content.body.contains("reveille stop 0a1b2c3d"))
        #expect(content.body.hasPrefix("08:00 · Wake up"))
        #expect(!NotificationContent.alert(alarm, hasActions: true).body.contains("reveille stop"))
    }

    @Test("Countdown text rounds up and shows hours when needed")
    func durations() {
        #expect(DurationFormat.countdown(0.2) == "0:01")
        #expect(DurationFormat.countdown(0) == "0:00")
        #expect(DurationFormat.countdown(59.5) == "1:00")
        #expect(DurationFormat.countdown(3723) == "1:02:03")
    }

    @Test("The countdown's bar agrees with the seconds its text shows left")
    func barFollowsText() throws {
        let presentation = AlarmPresentation(
            alert: .init(title: "Tea"), countdown: .init(title: "Counting down"))
        let alarm = record(presentation, timer: true)
        func content(_ remaining: TimeInterval) throws -> NotificationContent {
            try #require(NotificationContent.countdown(alarm, remaining: remaining, duration: 10, paused: false, hasActions: true))
        }
        // A refresh on the boundary and one that lands late in the same second look the same.
        #expect(try content(0.999) == content(0.51))
        #expect(try content(0.6).hints["value"] == .int32(90))
        #expect(try content(0.6).body.hasPrefix("0:01 left"))
        #expect(try content(10).hints["value"] == .int32(0))
        #expect(try content(9.2).hints["value"] == .int32(0))
        #expect(try content(8.9).hints["value"] == .int32(10))
        #expect(try content(0).hints["value"] == .int32(100))
    }

    @Test("A countdown without a countdown presentation shows nothing")
    func noCountdownPresentation() {
        let alarm = record(AlarmPresentation(alert: .init(title: "Wake up")))
        #expect(NotificationContent.countdown(alarm, remaining: 5, duration: 10, paused: false, hasActions: true) == nil)
    }
}
