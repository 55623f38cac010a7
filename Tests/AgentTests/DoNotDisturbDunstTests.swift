import Foundation
import Testing
import TestRequirements
import TestSupport

/// Do-not-disturb on dunst, the real program: paused dunst holds every notification back, so the
/// agent un-pauses it for an alert and pauses it again after, never against the person.
@Suite(
    "Agent: breaking through dunst's do-not-disturb", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
struct DoNotDisturbDunstTests {
    /// A sandbox with dunst and the agent ringing at full volume from the first frame.
    static func start(_ arguments: [String] = []) async throws -> AgentFixture {
        try await AgentFixture.start(
            notificationServer: true, pacedBytesPerSecond: AlertingTests.pace, agentArguments: ["--ramp", "0"] + arguments)
    }

    /// The journal the agent writes before lifting do-not-disturb.
    static func journal(_ fixture: AgentFixture) -> URL {
        fixture.sandbox.dataHome.appendingPathComponent("reveille/dnd-restore.json")
    }

    /// Waits until dunst is (or is not) paused.
    static func waitForPaused(_ paused: Bool, _ fixture: AgentFixture) async throws {
        try await waitUntil("dunst paused = \(paused)") { try fixture.sandbox.isPaused() == paused ? () : nil }
    }

    /// Waits until the agent's log contains `text`.
    static func waitForLog(_ text: String, in agent: SandboxProcess?) async throws {
        do {
            try await waitUntil("the agent to log \"\(text)\"") { agent?.standardError.contains(text) == true ? () : nil }
        } catch {
            Issue.record("the agent's log:\n\(agent?.standardError ?? "")")
            throw error
        }
    }

    /// The match rule for property writes on the notification server's object (dunst's pause).
    static let pauseWrites =
        "type='method_call',interface='org.freedesktop.DBus.Properties',member='Set',path='/org/freedesktop/Notifications'"

    /// Whether `message` writes dunst's pause (`paused`, or `pauseLevel` above 0), and to what;
    /// `nil` for any other message.
    static func pauseWrite(_ message: BusMessage) -> Bool? {
        guard message.kind == .methodCall, message.isMember("org.freedesktop.DBus.Properties", "Set"),
            message.body.count == 3, message.body[0] == .string("org.dunstproject.cmd0")
        else { return nil }
        switch (message.body[1], message.body[2]) {
        case (.string("paused"), .variant(.boolean(let paused))): return paused
        case (.string("pauseLevel"), .variant(.uint32(let level))): return level > 0
        default: return nil
        }
    }

    /// The wall-clock instant of a monitored message's arrival.
    static func wallClock(of instant: ContinuousClock.Instant) -> Date {
        let (now, date) = (ContinuousClock.now, Date())
        return date.addingTimeInterval(-(now - instant).timeInterval)
    }

    /// `reveille status --json`'s `doNotDisturb` object.
    static func dndStatus(_ fixture: AgentFixture) async throws -> [String: Any] {
        let status = try await fixture.reveille("status", "--json")
        let object = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
        return try #require(object?["doNotDisturb"] as? [String: Any], "\(status)")
    }

    /// Waits until the agent's `doNotDisturb` status satisfies `condition`.
    static func waitForStatus(_ fixture: AgentFixture, _ condition: ([String: Any]) -> Bool) async throws {
        var last: [String: Any] = [:]
        try await waitUntil("the do-not-disturb status to change", every: .milliseconds(20), detail: { "it stayed \(last)" }) {
            () async throws -> Void? in
            last = try await dndStatus(fixture)
            return condition(last) ? () : nil
        }
    }

    @Test("Paused dunst: the alert is displayed at its instant, and after Stop dunst is paused again")
    func liftedAndRestored() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let monitor = try sandbox.monitorNotifyCalls(alsoMatching: [Self.pauseWrites])
        // The same alert with dunst not paused: how late this machine, as loaded now, posts alerts.
        let baseline = try await AlertingTests.timer(fixture, "1s", "--title", "Baseline")
        let baselineAlert = try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Baseline") })
        #expect(try await fixture.reveille("stop", baseline.uuidString).status == .exited(0))
        let baselineLateness = Self.wallClock(of: try #require(baselineAlert.receivedAt))
            .timeIntervalSince(try await Self.scheduledAt(of: baseline, fixture))

        try await offPool { try sandbox.setPaused(true) }
        try await Self.waitForStatus(fixture) { $0["state"] as? String == "on" }
        let status = try await fixture.reveille("status")
        // dunst 1.10 and later (Debian 13) have pauseLevel, which the agent reads instead of paused.
        let dunst = try await fixture.notificationServer().version.split(separator: ".").compactMap { Int($0) }
        let property = dunst.lexicographicallyPrecedes([1, 10]) ? "paused" : "pauseLevel"
        #expect(
            status.output.contains("dnd      on (dunst \(property)): alarms lift it while they ring and put it back after"), "\(status)")
        // No sound card here (ALSA's default is a file): silent mode is not read, and says why.
        #expect(status.output.contains("volume   no mixer found for ALSA \"default\"; the volume is not read"), "\(status)")

        let id = try await AlertingTests.timer(fixture, "2s", "--title", "Wake")
        let alert = try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Wake") })
        try await sandbox.waitForDisplayedCount(1)
        #expect(try await offPool { try sandbox.isPaused() } == false, "dunst is un-paused while the alert rings")
        #expect(FileManager.default.fileExists(atPath: Self.journal(fixture).path), "the old value is journalled")
        let ringing = try await Self.dndStatus(fixture)
        #expect(ringing["lifted"] as? Bool == true)
        #expect(ringing["way"] as? String == "lifted-while-ringing")

        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
        try await Self.waitForPaused(true, fixture)
        try await fixture.waitForSilence()
        #expect(!FileManager.default.fileExists(atPath: Self.journal(fixture).path), "the journal is gone once restored")

        // In the order the bus delivered them: the person's pause, the agent's lift, the alert,
        // then (after Stop) the agent's pause again. Dunst displays the alert the moment it
        // arrives because it was un-paused before, not after: no lateness bound (a timed
        // assertion on a loaded machine) is needed to know that.
        let messages = monitor.messages()
        let writes = messages.enumerated().compactMap { index, message in Self.pauseWrite(message).map { (index, $0) } }
        let alertIndex = try #require(messages.firstIndex { NotifyCall($0).map { AlertingTests.isAlert($0, "Wake") } ?? false })
        let personPaused = try #require(writes.last { $0.0 < alertIndex && $0.1 }, "the person's pause: \(writes)")
        let lifted = writes.filter { $0.0 > personPaused.0 && $0.0 < alertIndex }
        #expect(lifted.map(\.1) == [false], "the agent un-pauses dunst once, before the alert: \(writes), alert at \(alertIndex)")
        #expect(writes.filter { $0.0 > alertIndex }.map(\.1) == [true], "and pauses it again once, after: \(writes)")
        // How late the alert reached dunst after its instant (printed; `reveille-bench alert` measures).
        let lateness = Self.wallClock(of: try #require(alert.receivedAt)).timeIntervalSince(try await Self.scheduledAt(of: id, fixture))
        print("dnd-lateness-ms paused \(Int((lateness * 1000).rounded())) baseline \(Int((baselineLateness * 1000).rounded()))")
    }

    /// The instant the alarm's last alert was due, from `reveille history --json`.
    static func scheduledAt(of id: UUID, _ fixture: AgentFixture) async throws -> Date {
        let history = try await fixture.reveille("history", "--json")
        let entries = try JSONSerialization.jsonObject(with: Data(history.output.utf8)) as? [[String: Any]] ?? []
        let entry = entries.first { $0["alarmID"] as? String == id.uuidString.lowercased() }
        let text = try #require(entry?["scheduledAt"] as? String, "history has no entry for \(id): \(history)")
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        return try Date(text, strategy: .iso8601)
    }

    @Test("A person who pauses and un-pauses dunst during the ring keeps it un-paused after Stop")
    func personWins() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        try await offPool { try sandbox.setPaused(true) }
        let monitor = try sandbox.monitorNotifyCalls()
        let id = try await AlertingTests.timer(fixture, "1s", "--title", "Mine")
        try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Mine") })
        try await Self.waitForPaused(false, fixture)
        try await offPool { try sandbox.setPaused(true) }
        try await Self.waitForLog("Do-not-disturb was changed during the alert", in: fixture.agent)
        try await offPool { try sandbox.setPaused(false) }
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
        try await Self.waitForLog("The last alert ended; do-not-disturb stays as the person set it", in: fixture.agent)
        #expect(try await offPool { try sandbox.isPaused() } == false, "the person's un-pause stands")
        #expect(!FileManager.default.fileExists(atPath: Self.journal(fixture).path))
    }

    @Test("kill -9 while dunst is un-paused for an alert: the restarted agent pauses it again from its journal")
    func crashReplay() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        try await offPool { try sandbox.setPaused(true) }
        let monitor = try sandbox.monitorNotifyCalls()
        let id = try await AlertingTests.timer(fixture, "1s", "--title", "Crash")
        try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Crash") })
        try await Self.waitForPaused(false, fixture)
        fixture.agent?.kill()
        _ = try await fixture.agent?.waitForExit(timeout: .seconds(30))
        try await offPool { try sandbox.waitForBusNameReleased("io.github.reveille.Alarms1") }
        #expect(try await offPool { try sandbox.isPaused() } == false, "the crash left dunst un-paused")
        #expect(FileManager.default.fileExists(atPath: Self.journal(fixture).path))

        let restarted = try sandbox.spawn(Built.path("reveilled"), ["--ramp", "0"])
        try await offPool { try sandbox.waitForBusName("io.github.reveille.Alarms1") }
        try await Self.waitForLog("Do-not-disturb put back", in: restarted)
        #expect(restarted.standardError.contains("Putting back do-not-disturb left lifted by an agent that stopped"))
        // The alert still rings after the restart (lifted again); once stopped, dunst is paused.
        try await AlertingTests.waitForState("alerting", of: id, in: fixture)
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
        try await Self.waitForPaused(true, fixture)
        try await waitUntil("the journal to go") { FileManager.default.fileExists(atPath: Self.journal(fixture).path) ? nil : () }
    }

    @Test("An alarm without breakthrough waits while dunst is paused, rings quietly, and shows when dunst resumes")
    func noBreakthroughWaits() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        try await offPool { try sandbox.setPaused(true) }
        let monitor = try sandbox.monitorNotifyCalls()
        let sound = try AlertingTests.write(AlertingTests.constant(10_000), named: "loud.wav", in: fixture)
        let added = try await fixture.reveille("timer", "1s", "--title", "Polite", "--no-breakthrough", "--sound", sound, "--json")
        #expect(added.output.contains(#""breakthrough":false"#), "\(added)")
        let id = try #require(
            UUID(uuidString: (try JSONSerialization.jsonObject(with: Data(added.output.utf8)) as? [String: Any])?["id"] as? String ?? ""))
        try await AlertingTests.waitForState("alerting", of: id, in: fixture)
        try await Self.waitForLog("Do-not-disturb is on: the alert waits", in: fixture.agent)
        try await sandbox.waitForCapturedBytes(atLeast: 100_000)
        let quiet = Set(sandbox.capturedSamples())
        #expect(quiet.contains(1_000) && !quiet.contains(10_000), "it rings at a tenth of its volume")
        #expect(!monitor.notifyCalls().contains { AlertingTests.isAlert($0, "Polite") }, "nothing is posted while paused")
        #expect(try await offPool { try sandbox.isPaused() } == true, "dunst is not touched")
        let waiting = try await Self.dndStatus(fixture)
        #expect(waiting["held"] as? Int == 1)

        try await offPool { try sandbox.setPaused(false) }
        try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Polite") })
        try await sandbox.waitForDisplayedCount(1)
        let mark = sandbox.capturedByteCount
        try await sandbox.waitForCapturedBytes(atLeast: mark + 400_000)
        #expect(Set(sandbox.capturedSamples().dropFirst(mark / 2)).contains(10_000), "it rings fully once shown")
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
        try await fixture.waitForSilence()
        #expect(try await offPool { try sandbox.isPaused() } == false)

        // With do-not-disturb off, an alarm without breakthrough is an ordinary alarm.
        let mark2 = sandbox.capturedByteCount
        let plain = try await AlertingTests.timer(fixture, "1s", "--title", "Plain", "--no-breakthrough", "--sound", sound)
        try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Plain") })
        try await sandbox.waitForCapturedBytes(atLeast: mark2 + 200_000)
        #expect(Set(sandbox.capturedSamples().dropFirst(mark2 / 2)).contains(10_000), "it rings at full volume")
        #expect(try await fixture.reveille("stop", plain.uuidString).status == .exited(0))
        try await fixture.waitForSilence()
    }
}
