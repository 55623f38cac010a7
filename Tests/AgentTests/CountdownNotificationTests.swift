import AlarmKit
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The countdowns a person sees around an alert, end to end: the real agent, dunst under Xvfb as
/// the notification server, a bus monitor reading what goes to it, and `reveille watch` in a tmux
/// pane. Times are judged on this process's clock, from when the monitor read each call.
@Suite(
    "Agent: countdowns before and after an alert", .onItsOwnThread, .serialized,
    .requires(Built.unavailable ?? (WatchPane.isAvailable ? nil : "tmux is not installed (scripts/install-deps --tests installs it)")),
    .timeLimit(.minutes(5)))
struct CountdownNotificationTests {
    /// Maps the monitor's stamps (the continuous clock) to this process's wall clock.
    struct WallClock {
        let wall = Date()
        let continuous = ContinuousClock.now

        func date(_ instant: ContinuousClock.Instant?) throws -> Date {
            let instant = try #require(instant, "the monitor stamps every message")
            return wall.addingTimeInterval((instant - continuous) / .seconds(1))
        }
    }

    /// An instant as the command takes it (`2026-12-01T07:30:05+00:00`).
    static func instantText(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date).replacingOccurrences(of: "Z", with: "+00:00")
    }

    /// The next whole second at least `seconds` away.
    static func wholeSecond(after seconds: TimeInterval) -> Date {
        Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + seconds).rounded(.up))
    }

    /// Whether a call is the countdown notification of the alarm titled `title`.
    static func isCountdown(_ call: NotifyCall, _ title: String) -> Bool {
        call.urgency == .byte(0) && call.hints["category"] == .string("x-reveille.countdown") && call.body.contains(title)
    }

    @Test("A scheduled alarm with a pre-alert shows its countdown notification, ticking, then rings at its instant with Stop and Snooze")
    func preAlertThenRing() async throws {
        let fixture = try await AlertingTests.start()
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let monitor = try sandbox.monitorNotifyCalls()
        let clock = WallClock()
        // A fixed instant (not a timer), with four seconds of countdown before it.
        let instant = Self.wholeSecond(after: 7)
        let added = try await fixture.reveille(
            "add", Self.instantText(instant), "--countdown", "4s", "--snooze", "1m", "--title", "Dentist")
        #expect(added.status == .exited(0), "\(added)")
        let id = try #require(UUID(uuidString: added.line), "\(added)")
        #expect(try await AlertingTests.list(fixture).first?.state == "scheduled")

        // The countdown appears four seconds before the instant, in a quiet notification that
        // says how long is left.
        let first = try await monitor.waitForNotify(matching: { Self.isCountdown($0, "Dentist") && $0.returnedID != nil })
        let shownAt = try clock.date(first.receivedAt)
        #expect(first.summary == "Dentist")
        #expect(first.body == "0:04 left · Dentist", "\(first.body.debugDescription)")
        #expect(first.actionKeys == ["pause", "cancel"])
        #expect(first.hints["value"] == .int32(0))
        #expect(shownAt >= instant.addingTimeInterval(-4.1), "shown \(instant.timeIntervalSince(shownAt)) s before the instant")
        #expect(shownAt < instant.addingTimeInterval(-3), "shown only \(instant.timeIntervalSince(shownAt)) s before the instant")
        #expect(try await AlertingTests.list(fixture).first?.state == "countdown")

        // It ticks in place, down to the last second.
        let last = try await monitor.waitForNotify(matching: { Self.isCountdown($0, "Dentist") && $0.body.hasPrefix("0:01 left") })
        #expect(last.replacesID == first.returnedID, "the same bubble, updated")

        // At the instant: the alert, with Stop and Snooze, and the countdown taken away after it.
        let alert = try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Dentist") && $0.returnedID != nil })
        let rangAt = try clock.date(alert.receivedAt)
        #expect(rangAt >= instant.addingTimeInterval(-0.05), "the alert came \(instant.timeIntervalSince(rangAt)) s early")
        #expect(rangAt < instant.addingTimeInterval(1.5), "the alert came \(rangAt.timeIntervalSince(instant)) s late")
        #expect(alert.actionKeys == ["default", "stop", "snooze"])
        #expect(alert.actionLabels["stop"] == "Stop")
        #expect(alert.actionLabels["snooze"] == "Snooze")
        #expect(alert.replacesID == 0, "a new bubble, not the countdown's")
        let countdownID = try #require(first.returnedID)
        try await monitor.waitForMessage(matching: {
            $0.kind == .methodCall && $0.member == "CloseNotification" && $0.body.first == .uint32(countdownID)
        })
        try await sandbox.waitForDisplayedCount(1)
        try await AlertingTests.waitForState("alerting", of: id, in: fixture)
        try await sandbox.waitForCapturedBytes(atLeast: 100_000)

        try await offPool { try sandbox.pickAction("stop") }
        try await AlertingTests.waitForState(nil, of: id, in: fixture)
        try await fixture.waitForSilence()
    }

    @Test("Snooze on a ringing alarm shows its countdown, in a notification with the time left and in reveille watch, then it rings again")
    func snoozeCountdown() async throws {
        let fixture = try await AlertingTests.start()
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let monitor = try sandbox.monitorNotifyCalls()
        let clock = WallClock()
        try await WatchPane.with(fixture) { pane in
            try await pane.waitForScreen("the empty list") { $0.contains("No alarms.") }
            let instant = Self.wholeSecond(after: 2)
            let added = try await fixture.reveille("add", Self.instantText(instant), "--snooze", "6s", "--title", "Nap")
            #expect(added.status == .exited(0), "\(added)")
            let id = try #require(UUID(uuidString: added.line), "\(added)")
            let prefix = String(id.uuidString.lowercased().prefix(8))
            let alert = try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Nap") && $0.returnedID != nil })
            try await pane.waitForScreen("Nap ringing") { $0.contains("\(prefix)  RINGING  Nap") }

            // Snooze, picked in dunst's menu as a person does: dunst sends ActionInvoked.
            try await offPool { try sandbox.pickAction("snooze") }
            let invoked = try await monitor.waitForMessage(matching: {
                $0.kind == .signal && $0.member == "ActionInvoked" && $0.body.first == .uint32(alert.returnedID ?? 0)
            })
            let snoozedAt = try clock.date(invoked.receivedAt)

            // A countdown notification with the time left, posted after the snooze.
            let countdown = try await monitor.waitForNotify(matching: { Self.isCountdown($0, "Nap") && $0.returnedID != nil })
            #expect(countdown.body == "0:06 left · Nap", "\(countdown.body.debugDescription)")
            #expect(countdown.summary == "Nap")
            #expect(try clock.date(countdown.receivedAt) >= snoozedAt)
            #expect(try clock.date(countdown.receivedAt) < snoozedAt.addingTimeInterval(1), "the countdown shows within a second")

            // watch shows the snoozed alarm counting down, with its bar and time left.
            let row = try Regex(#"\#(prefix)  running  \[[█·]{20}\] 00:00:0[1-6]  Nap"#)
            let screen = try await pane.waitForScreen("Nap's snooze countdown") { $0.contains(row) }
            #expect(!screen.contains("RINGING"), "\(screen)")
            let left = try #require(WatchViewTests.timeLeft(of: "Nap", in: screen))
            try await pane.waitForScreen("Nap's time left to tick down from \(left)") {
                guard let now = WatchViewTests.timeLeft(of: "Nap", in: $0) else { return false }
                return now < left
            }

            // Six seconds after the snooze it rings again: a new alert, and watch says so.
            let again = try await monitor.waitForNotify(matching: { call in
                AlertingTests.isAlert(call, "Nap") && call.serial != alert.serial && call.sender == alert.sender
            })
            let rangAgainAt = try clock.date(again.receivedAt)
            #expect(
                rangAgainAt >= snoozedAt.addingTimeInterval(6 - 0.05),
                "it rang again \(rangAgainAt.timeIntervalSince(snoozedAt)) s after the snooze")
            #expect(
                rangAgainAt < snoozedAt.addingTimeInterval(6 + 1.5),
                "it rang again \(rangAgainAt.timeIntervalSince(snoozedAt)) s after the snooze")
            try await pane.waitForScreen("Nap ringing again") { $0.contains("\(prefix)  RINGING  Nap") }
            try await pane.press("s")
            try await pane.waitForScreen("Nap gone") { !$0.contains("Nap") }
            try await pane.quit()
        }
    }
}
