import AlarmCore
import CommandLineText
import AlarmModel
import AlarmKit
import Foundation
import Testing
import TestRequirements
import TestSupport

/// Alerts end to end: the real agent, dunst under Xvfb as the notification server, and ALSA's
/// `default` captured to a file, paced to twice real time, as a person would see and hear them.
@Suite("Agent: alerting on the desktop", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
struct AlertingTests {
    /// Twice real time for 48 kHz stereo 16-bit sound.
    static let pace = 2 * 48_000 * 4

    /// A sandbox with the agent ringing at full volume from the first frame.
    static func start(notificationServer: Bool = true, arguments: [String] = []) async throws -> AgentFixture {
        try await AgentFixture.start(
            notificationServer: notificationServer, pacedBytesPerSecond: pace, agentArguments: ["--ramp", "0"] + arguments)
    }

    /// Writes `wav` into the sandbox's home and returns its path.
    static func write(_ wav: WAVFile, named name: String, in fixture: AgentFixture) throws -> String {
        let url = fixture.sandbox.home.appendingPathComponent(name)
        try wav.write(to: url)
        return url.path
    }

    /// A sound whose every sample is `value`: a capture tells which alert it came from.
    static func constant(_ value: Int16) -> WAVFile { WAVFile(frames: 4_800) { _, _ in value } }

    /// Starts a timer and returns its id.
    static func timer(_ fixture: AgentFixture, _ arguments: String...) async throws -> UUID {
        let added = try await fixture.run(Built.path("reveille"), ["timer"] + arguments)
        #expect(added.status == .exited(0), "\(added)")
        return try #require(UUID(uuidString: added.line), "\(added)")
    }

    /// The alarms as `reveille list --json` shows them.
    static func list(_ fixture: AgentFixture) async throws -> [AlarmDescription] {
        let result = try await fixture.reveille("list", "--json")
        return try JSONDecoder().decode([AlarmDescription].self, from: Data(result.output.utf8))
    }

    /// Waits until `reveille list` shows the alarm in `state` (`nil`: gone); `context` is added to
    /// the failure (what the agent logged, say).
    static func waitForState(
        _ state: String?, of id: UUID, in fixture: AgentFixture, context: () -> String = { "" }
    ) async throws {
        var seen: String?
        try await waitUntil(
            "alarm \(id) to be \(state ?? "gone")", every: .milliseconds(50),
            detail: { "it is \(seen ?? "gone")" + { $0.isEmpty ? "" : "\n" + $0 }(context()) }
        ) { () async throws -> Void? in
            seen = try await list(fixture).first { $0.id == id.uuidString.lowercased() }?.state
            return seen == state ? () : nil
        }
    }

    /// Whether a Notify call is an alert (urgency critical) with this summary.
    static func isAlert(_ call: NotifyCall, _ summary: String) -> Bool { call.summary == summary && call.urgency == .byte(2) }

    @Test("A timer alerts: the Notify call, the looping sound; Repeat counts down and alerts again; Stop ends it")
    func timerAlertsRepeatsAndStops() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let monitor = try sandbox.monitorNotifyCalls()
        let wav = WAVFile.ramp(frames: 12_000)  // 0.25 s
        let path = try Self.write(wav, named: "ramp.wav", in: fixture)

        let id = try await Self.timer(fixture, "2s", "--title", "Tea", "--snooze", "2s", "--sound", path)
        let alert = try await monitor.waitForNotify(matching: { Self.isAlert($0, "Tea") })
        #expect(alert.appName == "Reveille")
        #expect(alert.actionKeys == ["default", "stop", "repeat"])
        #expect(alert.actionLabels["stop"] == "Stop")
        #expect(alert.actionLabels["repeat"] == "Repeat")
        #expect(alert.expireTimeout == 0)
        #expect(alert.hints["resident"] == .boolean(true))
        #expect(alert.hints["suppress-sound"] == .boolean(true))
        #expect(alert.hints["desktop-entry"] == .string("io.github.reveille.Reveille"))
        #expect(alert.hints["category"] == .string("x-reveille.alarm"))
        #expect(alert.hints["SWAYNC_BYPASS_DND"] == .boolean(true))
        #expect(alert.body.contains("Tea"))

        // The sound loops seamlessly: the file, then the file again, sample for sample.
        try await sandbox.waitForCapturedBytes(atLeast: 3 * wav.dataByteCount)
        let samples = sandbox.capturedSamples()
        let firstPass = Array(samples[0..<wav.samples.count]) == wav.samples
        let secondPass = Array(samples[wav.samples.count..<(2 * wav.samples.count)]) == wav.samples
        #expect(firstPass, "the capture starts with the sound file, sample for sample")
        #expect(secondPass, "the sound loops with no gap or click")
        try await Self.waitForState("alerting", of: id, in: fixture)

        // Repeat, picked in dunst's menu as a person does: silence, and the countdown.
        try await offPool { try sandbox.pickAction("repeat") }
        let afterRepeat = try await fixture.waitForSilence()
        let countdown = try await Self.list(fixture).first
        #expect(countdown?.state == "countdown")
        #expect(countdown?.countdown?.postAlert == 2)

        // It alerts again after two seconds, and sounds again.
        try await monitor.waitForNotify(matching: { _ in
            monitor.notifyCalls().filter { Self.isAlert($0, "Tea") }.count >= 2
        })
        try await sandbox.waitForCapturedBytes(atLeast: afterRepeat + 2 * wav.dataByteCount)

        // Stop: silence, the timer is gone, the alert's notification is taken away.
        try await offPool { try sandbox.pickAction("stop") }
        try await fixture.waitForSilence()
        try await Self.waitForState(nil, of: id, in: fixture)
        try await sandbox.waitForDisplayedCount(0)
        let history = try await fixture.reveille("history", "--json")
        #expect(history.output.contains(#""outcome":"snoozed""#))
        #expect(history.output.contains(#""outcome":"stopped""#))
    }

    @Test("Two alarms ring; stopping one leaves the other sounding")
    func independentAlerts() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let first = try await Self.timer(
            fixture, "1s", "--title", "First", "--sound", try Self.write(Self.constant(1_000), named: "a.wav", in: fixture))
        let second = try await Self.timer(
            fixture, "1s", "--title", "Second", "--sound", try Self.write(Self.constant(2_000), named: "b.wav", in: fixture))
        try await Self.waitForState("alerting", of: first, in: fixture)
        try await Self.waitForState("alerting", of: second, in: fixture)
        try await waitUntil("both sounds in the capture") {
            let samples = Set(sandbox.capturedSamples())
            return samples.contains(1_000) && samples.contains(2_000) ? () : nil
        }

        #expect(try await fixture.reveille("stop", first.uuidString).status == .exited(0))
        // The first player has closed its device, and its pacing pipe is written out.
        let mark = try await sandbox.waitForPlayers(of: try #require(fixture.agent).pid, count: 1)
        try await sandbox.waitForCapturedBytes(atLeast: mark + 200_000)
        let later = Set(sandbox.capturedSamples().dropFirst(mark / 2))
        #expect(later.contains(2_000), "the second alarm still sounds")
        #expect(!later.contains(1_000), "the first alarm is silent")
        try await Self.waitForState("alerting", of: second, in: fixture)
        #expect(try await offPool { try sandbox.displayedCount() } == 1)
        #expect(try await fixture.reveille("stop", second.uuidString).status == .exited(0))
        try await fixture.waitForSilence()
    }

    @Test("dunst killed and started again mid-alert: the alert is posted again and never stops sounding")
    func serverRestart() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let monitor = try sandbox.monitorNotifyCalls()
        let id = try await Self.timer(fixture, "1s", "--title", "Bread")
        try await monitor.waitForNotify(matching: { Self.isAlert($0, "Bread") })
        try await offPool { try sandbox.stopNotificationServer(.kill) }
        let duringOutage = sandbox.capturedByteCount
        try await offPool { try sandbox.startNotificationServer() }
        try await monitor.waitForNotify(matching: { _ in
            monitor.notifyCalls().filter { Self.isAlert($0, "Bread") }.count >= 2
        })
        try await sandbox.waitForDisplayedCount(1)
        try await sandbox.waitForCapturedBytes(atLeast: duringOutage + 100_000)
        try await Self.waitForState("alerting", of: id, in: fixture)
        try await offPool { try sandbox.pickAction("stop") }
        try await Self.waitForState(nil, of: id, in: fixture)
        try await fixture.waitForSilence()
    }

    @Test("A notification server that hangs does not hold the sound back: the alert rings at once")
    func hungServerRingsAnyway() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let server = try #require(try sandbox.busNameOwnerPID("org.freedesktop.Notifications"))
        // The sound waits for the server's answer to the alert's Notify for a few milliseconds at
        // most; libnotify waits 25 s for a server that never answers (here, for the countdown's
        // Notify first, then the alert's).
        #expect(kill(server, SIGSTOP) == 0)
        defer { kill(server, SIGCONT) }
        let id = try await Self.timer(fixture, "1s", "--title", "Toast")
        try await Self.waitForState("alerting", of: id, in: fixture)
        try await sandbox.waitForCapturedBytes(atLeast: 100_000, timeout: .seconds(10))
        kill(server, SIGCONT)
        #expect(try await fixture.reveille("stop", String(id.uuidString.prefix(8))).status == .exited(0))
        try await fixture.waitForSilence()
    }

    @Test("No notification server: the sound rings, status says so, and reveille stop ends it")
    func noServer() async throws {
        let fixture = try await Self.start(notificationServer: false)
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let id = try await Self.timer(fixture, "1s", "--title", "Eggs")
        try await Self.waitForState("alerting", of: id, in: fixture)
        try await sandbox.waitForCapturedBytes(atLeast: 200_000)
        let status = try await fixture.reveille("status")
        #expect(status.output.contains("notices  none"), "\(status)")
        #expect(status.output.contains("sound    available"), "\(status)")
        #expect(try await fixture.reveille("stop", String(id.uuidString.prefix(8))).status == .exited(0))
        try await fixture.waitForSilence()
        let history = try await fixture.reveille("history", "--json")
        #expect(history.output.contains(#""outcome":"stopped""#))
    }

    @Test("No sound output: status says so, the log says it once, and alerts still show")
    func noSoundOutput() async throws {
        let fixture = try await Self.start(arguments: ["--sound-device", "no-such-device"])
        defer { fixture.stop() }
        let monitor = try fixture.sandbox.monitorNotifyCalls()
        let status = try await fixture.reveille("status")
        #expect(status.output.contains("sound    unavailable: cannot open the device"), "\(status)")
        for title in ["One", "Two"] {
            let id = try await Self.timer(fixture, "1s", "--title", title)
            try await monitor.waitForNotify(matching: { Self.isAlert($0, title) })
            #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
        }
        let log = fixture.agent?.standardError ?? ""
        #expect(log.components(separatedBy: "No sound output").count - 1 == 1, "\(log)")
        #expect(fixture.sandbox.capturedByteCount == 0)
    }

    @Test("A notification server that fails to start by D-Bus activation is not started again for every update")
    func failingActivation() async throws {
        let services = Fixtures.temporaryDirectory("reveille-services")
        let starts = services.appendingPathComponent("starts")
        try """
        [D-BUS Service]
        Name=org.freedesktop.Notifications
        Exec=/bin/sh -c 'echo started >> \(starts.path); exit 1'

        """.write(to: services.appendingPathComponent("org.freedesktop.Notifications.service"), atomically: true, encoding: .utf8)
        let sandbox = try await offPool {
            try DesktopSandbox(startsNotificationServer: false, serviceDirectories: [services], pacedBytesPerSecond: Self.pace)
        }
        defer { sandbox.stop() }
        let agent = try sandbox.spawn(Built.path("reveilled"), ["--ramp", "0"])
        try await offPool { try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }
        let fixture = AgentFixture(sandbox: sandbox, agent: agent)
        // A 4 s countdown (updated each second) and then an alert: one attempt, not five or six.
        let id = try await Self.timer(fixture, "4s", "--title", "Quiet bus")
        try await Self.waitForState("alerting", of: id, in: fixture)
        try await sandbox.waitForCapturedBytes(atLeast: 100_000)
        let attempts = ((try? String(contentsOf: starts, encoding: .utf8)) ?? "").split(separator: "\n").count
        #expect(attempts >= 1, "the first post tries activation")
        #expect(attempts <= 2, "\(attempts) activations")
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
    }

    @Test("A sound file that went missing after scheduling falls back to another sound, never silence")
    func missingSoundFallsBack() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let path = try Self.write(Self.constant(3_000), named: "gone.wav", in: fixture)
        let id = try await Self.timer(fixture, "2s", "--title", "Gone", "--sound", path)
        try FileManager.default.removeItem(atPath: path)
        try await Self.waitForState("alerting", of: id, in: fixture)
        try await sandbox.waitForCapturedBytes(atLeast: 200_000)
        let samples = Set(sandbox.capturedSamples())
        #expect(!samples.contains(3_000), "the deleted file is not what plays")
        #expect(samples.contains { abs(Int($0)) > 1_000 }, "the fallback sound is audible")
        #expect(fixture.agent?.standardError.contains("An alarm's sound is missing; ringing another") == true)
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
        try await fixture.waitForSilence()
    }

    @Test(
        "A FIFO as the sound never holds the agent: refused at once when scheduling, and an alarm whose file became one rings on time, with another sound"
    )
    func fifoSound() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let fifo = sandbox.home.appendingPathComponent("fifo.wav")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        // Two at once: with both workers stuck in open() the agent would answer no one.
        async let first = fixture.reveille("timer", "5m", "--sound", fifo.path)
        async let second = fixture.reveille("timer", "5m", "--sound", fifo.path)
        for refused in try await [first, second] {
            #expect(refused.status == .exited(64), "\(refused)")
            #expect(refused.error.contains("not a sound file (not a regular file): \(fifo.path)"), "\(refused)")
        }
        let listed = try await fixture.reveille("list")
        #expect(listed.status == .exited(0), "\(listed)")

        // Scheduled with a real file that is then replaced by a FIFO: it rings on time all the same.
        let path = try Self.write(Self.constant(3_000), named: "becomes-fifo.wav", in: fixture)
        let id = try await Self.timer(fixture, "2s", "--title", "Fifo", "--sound", path)
        let due = Date().addingTimeInterval(2)
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        try await Self.waitForState("alerting", of: id, in: fixture)
        try await sandbox.waitForCapturedBytes(atLeast: 100_000)
        #expect(Date().timeIntervalSince(due) < 3, "the alarm rang \(Date().timeIntervalSince(due)) s after it was due")
        #expect(!Set(sandbox.capturedSamples()).contains(3_000), "the old file is not what plays")
        #expect(fixture.agent?.standardError.contains("An alarm's sound is missing; ringing another") == true)
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
    }

    @Test("A sound that cannot play is refused when scheduling, with the reason; nothing is scheduled")
    func badSoundRefused() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let missing = try await fixture.reveille("timer", "5m", "--sound", "/nowhere/bell.wav")
        #expect(missing.status == .exited(64), "\(missing)")
        #expect(missing.error.contains("no such file: /nowhere/bell.wav"))

        let text = fixture.sandbox.home.appendingPathComponent("notes.wav")
        try Data("not a sound".utf8).write(to: text)
        let undecodable = try await fixture.reveille("timer", "5m", "--sound", text.path)
        #expect(undecodable.status == .exited(64), "\(undecodable)")
        #expect(undecodable.error.contains("cannot decode sound file \(text.path)"), "\(undecodable)")

        let unknown = try await fixture.reveille("timer", "5m", "--sound", "no-such-sound-at-all")
        #expect(unknown.status == .exited(64), "\(unknown)")
        #expect(unknown.error.contains("no sound named \"no-such-sound-at-all\""), "\(unknown)")

        let theme = try await fixture.reveille("timer", "5m", "--sound", "bell")
        #expect(theme.status == .exited(0), "a freedesktop theme sound is accepted: \(theme)")
        #expect(try await Self.list(fixture).count == 1)
    }

    @Test("An unanswered alert ends at the ring time-out: silence, and a notification that it was missed")
    func ringTimeout() async throws {
        let fixture = try await Self.start(arguments: ["--ring-timeout", "2"])
        defer { fixture.stop() }
        let monitor = try fixture.sandbox.monitorNotifyCalls()
        let id = try await Self.timer(fixture, "1s", "--title", "Laundry")
        try await monitor.waitForNotify(matching: { Self.isAlert($0, "Laundry") })
        let missed = try await monitor.waitForNotify(matching: { $0.summary == "Missed: Laundry" })
        #expect(missed.body.contains("nobody answered"))
        try await fixture.waitForSilence()
        try await Self.waitForState(nil, of: id, in: fixture)
        let history = try await fixture.reveille("history", "--json")
        #expect(history.output.contains(#""outcome":"timedOut""#))
    }

    @Test("Closing the ringing alert's bubble stops it, as the X on a ringing alarm does")
    func dismissStops() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let monitor = try fixture.sandbox.monitorNotifyCalls()
        let id = try await Self.timer(fixture, "1s", "--title", "Kettle")
        try await monitor.waitForNotify(matching: { Self.isAlert($0, "Kettle") })
        try await Task.sleep(for: .milliseconds(1_200))  // past the window in which a close means "suppressed"
        try await offPool { try fixture.sandbox.closeAll() }
        try await Self.waitForState(nil, of: id, in: fixture)
        try await fixture.waitForSilence()
    }

    @Test("The countdown notification's Pause, Resume and Cancel act on the timer")
    func countdownActions() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let monitor = try sandbox.monitorNotifyCalls()
        let id = try await Self.timer(fixture, "10m", "--title", "Oven")
        let shown = try await monitor.waitForNotify(matching: { $0.urgency == .byte(0) && $0.actionKeys.contains("pause") })
        #expect(shown.body.contains("left"))
        try await offPool { try sandbox.pickAction("pause") }
        try await Self.waitForState("paused", of: id, in: fixture)
        try await monitor.waitForNotify(matching: { $0.actionKeys.contains("resume") })
        try await offPool { try sandbox.pickAction("resume") }
        try await Self.waitForState("countdown", of: id, in: fixture)
        try await offPool { try sandbox.pickAction("cancel") }
        try await Self.waitForState(nil, of: id, in: fixture)
        try await sandbox.waitForDisplayedCount(0)
        #expect(sandbox.capturedByteCount == 0, "a countdown makes no sound")
    }
}

/// Many alerts at once.
@Suite("Agent: two hundred alerts in the same second", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
struct ManyAlertsTests {
    @Test("200 alarms due in the same second: every notification is posted and every sound plays on its own")
    func twoHundredAtOnce() async throws {
        // 8 kHz mono sounds, each stream paced to four times real time: 200 streams stay light.
        let pace = 4 * 8_000 * 2
        // dunst draws every bubble it shows again for each new one, and answers a Notify call
        // only between draws: with all 200 on screen that took it 30–55 s alone on a 2-core
        // machine, and over 300 s once with the whole suite beside it. Its default dunstrc shows
        // 20 at once and queues the rest; 10 keep it quick, and a queued one is posted all the same.
        let fixture = try await AgentFixture.start(
            notificationServer: true, pacedBytesPerSecond: pace, agentArguments: ["--ramp", "0", "--verbose"],
            dunstNotificationLimit: 10)
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        try await fixture.authorizeTestProcess()
        let client = try fixture.client()
        defer { client.connection.close() }
        let monitor = try sandbox.monitorNotifyCalls()
        let count = 200
        func value(_ index: Int) -> Int16 { Int16(1_000 + index) }
        // Each alarm's sound is a constant sample value of its own: the capture tells them apart.
        // First an hour ahead, to learn how long 200 Schedule calls take on this machine now; then
        // all moved (Schedule with the same id replaces) to one second, with room to spare.
        let ids = (0..<count).map { _ in UUID() }
        var definitions: [AlarmDefinition] = []
        for index in 0..<count {
            let wav = WAVFile(frames: 800, channels: 1, sampleRate: 8_000) { _, _ in value(index) }
            let path = try AlertingTests.write(wav, named: "s\(index).wav", in: fixture)
            var definition = Fixtures.definition(.fixed(Date().addingTimeInterval(3_600)), title: "Many \(index)")
            definition.sound = .named(path)
            definitions.append(definition)
        }
        let firstPass = ContinuousClock.now
        for (id, definition) in zip(ids, definitions) { _ = try await client.schedule(id: id, definition: definition) }
        let passTook = (ContinuousClock.now - firstPass) / .seconds(1)
        let started = ContinuousClock.now
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3 * passTook + 2).rounded(.up))
        for (id, var definition) in zip(ids, definitions) {
            definition.schedule = .fixed(due)
            _ = try await client.schedule(id: id, definition: definition)
        }
        let scheduled = ContinuousClock.now
        func alerts() -> [NotifyCall] { monitor.notifyCalls().filter { $0.urgency == .byte(2) && $0.summary.hasPrefix("Many ") } }
        let untilDue = Duration.seconds(max(0, due.timeIntervalSinceNow))
        // A wait, not a measure: the benchmark (`reveille-bench alert`) prints how long the last
        // one took.
        try await waitUntil(
            "\(count) alert notifications", timeout: untilDue + .seconds(300),
            detail: {
                let shown = (try? sandbox.displayedCount()).map(String.init) ?? "?"
                return "\(Set(alerts().map(\.summary)).count) posted (\(alerts().count) calls); dunst shows \(shown); agent log:\n"
                    + (fixture.agent?.standardError.suffix(3_000) ?? "")
            }
        ) { Set(alerts().map(\.summary)).count == count ? () : nil }
        let lastNotify = alerts().compactMap(\.receivedAt).max() ?? .now
        print(
            "scheduling 200 alarms took \(scheduled - started); the last of the 200 Notify calls went out \(lastNotify - scheduled) after")
        let listener = CaptureListener(sandbox, fromStart: true)
        try await waitUntil(
            "all \(count) sounds in the capture", timeout: .seconds(60),
            detail: {
                "heard \((0..<count).filter { listener.heard(value($0)) }.count)"
            }
        ) {
            listener.listen()
            return (0..<count).allSatisfy { listener.heard(value($0)) } ? () : nil
        }
        print("200 sounds heard \(ContinuousClock.now - started) after scheduling began")

        // Stop the even ones: the odd ones go on sounding, the even ones fall silent.
        for (index, id) in ids.enumerated() where index % 2 == 0 { try await client.stop(id: id) }
        // The stopped players have closed their devices, and their pacing pipes are written out.
        try await sandbox.waitForPlayers(of: try #require(fixture.agent).pid, count: count / 2, timeout: .seconds(60))
        listener.forget()
        try await waitUntil("the ringing half heard again", timeout: .seconds(60)) {
            listener.listen()
            return (0..<count).filter { $0 % 2 == 1 }.allSatisfy { listener.heard(value($0)) } ? () : nil
        }
        let stillHeard = (0..<count).filter { listener.heard(value($0)) }
        #expect(stillHeard.allSatisfy { $0 % 2 == 1 }, "stopped alarms still sound: \(stillHeard.filter { $0 % 2 == 0 })")
        for (index, id) in ids.enumerated() where index % 2 == 1 { try await client.stop(id: id) }
        try await sandbox.waitForSilence(timeout: .seconds(60))
        let late = (fixture.agent?.standardError ?? "").split(separator: "\n").compactMap { line -> Double? in
            guard let range = line.range(of: "firstFrameLateness=") else { return nil }
            return Double(line[range.upperBound...].prefix { $0 == "." || $0 == "-" || $0.isNumber || $0 == "e" })
        }.sorted()
        print(
            "first frames: \(late.count), lateness min \(late.first ?? 0) median \(late.isEmpty ? 0 : late[late.count / 2]) max \(late.last ?? 0)"
        )
    }
}
