import AlarmKit
import Foundation
import Testing
import TestSupport

/// Resume from suspend and time-zone changes, end to end: the real `reveilled` and `reveille` on a
/// private session bus, a second private bus playing the system bus with doubles of logind and
/// timedate1 (`SystemBusDouble`), and a `localtime` link of the test's own in place of
/// `/etc/localtime`, replaced the way timedatectl replaces it. The agent runs without `TZ`, so the
/// link names its zone.
///
/// What is real: the agent's inotify watch of the link's folder, its system-bus subscriptions
/// (match rules, sender tracking) and the engine's re-arming, observed through what a person sees
/// (`reveille watch --json`, `list --json`, `status`). What is a double: logind and timedate1, and so
/// the suspend itself: this machine cannot be suspended in a test, so the resume test shows that
/// `PrepareForSleep(false)` from logind's owner makes the agent check every deadline again (its log),
/// and that alarms come through it unchanged; catching up on alerts missed while asleep is the
/// engine's (`ClockChangeTests` in AlarmCoreTests, on a virtual clock).
@Suite("Agent: resume and time-zone changes", .serialized, .enabled(if: Built.unavailable == nil, "\(Built.unavailable ?? "")"))
struct WakeSourcesTests {
    @Test("Replacing the localtime link moves a clock-time alarm to 07:30 in the new zone; an instant and a timer stay")
    func localTimeReplaced() async throws {
        let zones = try ZoneFolder(zone: "America/New_York")
        defer { zones.remove() }
        let fixture = try await AgentFixture.start(
            agentArguments: ["--localtime", zones.localTime.path, "--system-bus", zones.noBus], unsettingForAgent: ["TZ"])
        defer { fixture.stop() }
        try await expectZoneChange(fixture, from: "America/New_York", to: "Asia/Tokyo") {
            try zones.point(at: "Asia/Tokyo")
        }
        let log = try await agentLog(fixture, containing: "The time zone changed")
        #expect(log.contains("source=\(zones.localTime.path)"), "\(log)")
    }

    @Test("timedate1's Timezone change alone moves a clock-time alarm; an instant and a timer stay")
    func timedate1Changed() async throws {
        // localtime → zones/current → zoneinfo: the double re-points zones/current, which the
        // agent's watch of the localtime folder does not see; only the signal tells it.
        let zones = try ZoneFolder(zone: "America/New_York", throughSecondLink: true)
        defer { zones.remove() }
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let system = try await SystemBusDouble.start(in: fixture.sandbox, zoneLink: zones.current)
        defer { system.stop() }
        let agent = try await startAgent(fixture, ["--localtime", zones.localTime.path, "--system-bus", system.address])
        _ = try await agentLog(agent, containing: "Watching logind and timedate1")
        try await expectZoneChange(AgentFixture(sandbox: fixture.sandbox, agent: agent), from: "America/New_York", to: "Asia/Tokyo") {
            try await system.setTimeZone("Asia/Tokyo")
        }
        let log = try await agentLog(agent, containing: "The time zone changed")
        #expect(log.contains("source=timedate1 (Asia/Tokyo)"), "\(log)")
        #expect(!log.contains("source=\(zones.localTime.path)"), "the link's folder did not change: \(log)")
    }

    @Test("logind's PrepareForSleep(false) makes the agent check every deadline again; alarms come through unchanged")
    func resume() async throws {
        let zones = try ZoneFolder(zone: "Europe/Berlin")
        defer { zones.remove() }
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let system = try await SystemBusDouble.start(in: fixture.sandbox, zoneLink: zones.current)
        defer { system.stop() }
        let agent = try await startAgent(fixture, ["--verbose", "--localtime", zones.localTime.path, "--system-bus", system.address])
        let running = AgentFixture(sandbox: fixture.sandbox, agent: agent)
        _ = try await agentLog(agent, containing: "Watching logind and timedate1")
        let ids = try await addThree(running)
        let before = try await list(running)

        let status = try await statusJSON(running)
        #expect(status["watchedEvents"] as? [String] == ["clock-set", "time-zone", "resume"])
        #expect((status["eventSources"] as? String)?.contains("resume (logind)") == true, "\(status)")

        try await system.suspend()
        let log = try await agentLog(agent, containing: "Resumed from suspend: every deadline was checked again")
        let sleeping = try #require(log.range(of: "The machine is going to sleep"), "\(log)")
        #expect(sleeping.lowerBound < log.range(of: "Resumed from suspend")!.lowerBound)

        let after = try await list(running)
        #expect(after[ids.relative]?.fireDate == before[ids.relative]?.fireDate)
        #expect(after[ids.fixed]?.fireDate == before[ids.fixed]?.fireDate)
        #expect(after[ids.timer]?.state == "countdown")
        #expect(abs(try #require(date(after[ids.timer]?.fireDate)).timeIntervalSince(try #require(date(before[ids.timer]?.fireDate)))) < 1)
    }

    @Test("Without a system bus the agent says so once, serves, says alarms cannot wake the machine and why, and lists the localtime link as watched")
    func noSystemBus() async throws {
        let zones = try ZoneFolder(zone: "America/New_York")
        defer { zones.remove() }
        let fixture = try await AgentFixture.start(
            agentArguments: ["--localtime", zones.localTime.path, "--system-bus", zones.noBus], unsettingForAgent: ["TZ"])
        defer { fixture.stop() }
        let log = try await agentLog(fixture, containing: "The system bus cannot be reached")
        #expect(log.components(separatedBy: "The system bus cannot be reached").count == 2, "logged once: \(log)")

        let status = try await statusJSON(fixture)
        #expect(status["running"] as? Bool == true)
        #expect(status["canWakeFromSuspend"] as? Bool == false)
        let wake = try #require(status["wakeFromSuspend"] as? String)
        #expect(wake.hasPrefix("no: "))
        #expect(wake.contains(Self.expectedWakeReason), "\(wake)")
        #expect(wake.contains("alarms missed while asleep ring on resume if no more than 10m late"), "\(wake)")
        #expect(status["watchedEvents"] as? [String] == ["clock-set", "time-zone"])
        let sources = try #require(status["eventSources"] as? String)
        #expect(sources.hasPrefix("clock set (timerfd), time zone (\(zones.localTime.path))"), "\(sources)")
        #expect(sources.contains("not resume or timedate1: the system bus cannot be reached"), "\(sources)")

        let text = try await fixture.reveille("status")
        #expect(text.status == .exited(0), "\(text)")
        #expect(text.output.contains("\nwake     no: "), "\(text)")
        #expect(text.output.contains("\nevents   clock set (timerfd), time zone ("), "\(text)")

        let added = try await fixture.reveille("timer", "5m")
        #expect(added.status == .exited(0), "the agent serves: \(added)")
        #expect(fixture.agent?.isRunning == true)
    }

    @Test("When the system bus goes away the agent serves on, watching the localtime link")
    func systemBusLost() async throws {
        let zones = try ZoneFolder(zone: "America/New_York")
        defer { zones.remove() }
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let system = try await SystemBusDouble.start(in: fixture.sandbox, zoneLink: zones.current)
        defer { system.stop() }
        let agent = try await startAgent(fixture, ["--localtime", zones.localTime.path, "--system-bus", system.address])
        let running = AgentFixture(sandbox: fixture.sandbox, agent: agent)
        _ = try await agentLog(agent, containing: "Watching logind and timedate1")

        try await offPool { system.stop() }
        _ = try await agentLog(agent, containing: "The system bus went away")
        let status = try await statusJSON(running)
        #expect(status["running"] as? Bool == true)
        #expect(status["watchedEvents"] as? [String] == ["clock-set", "time-zone"])
        #expect((status["eventSources"] as? String)?.contains("the system bus went away") == true, "\(status)")
        try await expectZoneChange(running, from: "America/New_York", to: "Asia/Tokyo") {
            try zones.point(at: "Asia/Tokyo")
        }
        #expect(agent.isRunning)
    }

    // MARK: - Helpers

    /// What `status` must say about the RTC of this machine.
    static var expectedWakeReason: String {
        let manager = FileManager.default
        if !manager.fileExists(atPath: "/sys/class/rtc/rtc0") { return "no real-time clock that could wake it" }
        if !manager.fileExists(atPath: "/sys/class/rtc/rtc0/wakealarm") { return "real-time clock cannot wake it" }
        if !manager.isWritableFile(atPath: "/sys/class/rtc/rtc0/wakealarm") { return "which only root may set" }
        return "is writable here, but the agent does not set it"
    }

    /// Starts the agent without `TZ` in an existing sandbox and waits until it owns its name.
    func startAgent(_ fixture: AgentFixture, _ arguments: [String]) async throws -> SandboxProcess {
        let agent = try fixture.sandbox.spawn(Built.path("reveilled"), arguments + ["--silent"], unsetting: ["TZ"])
        try await offPool { try fixture.sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }
        return agent
    }

    /// The ids of a clock-time alarm at 07:30, an alarm at an instant, and a two-hour timer.
    struct Three {
        var relative: String
        var fixed: String
        var timer: String
    }

    static let instant = "2031-01-15T12:00:00Z"

    func addThree(_ fixture: AgentFixture) async throws -> Three {
        func add(_ arguments: String...) async throws -> String {
            let result = try await fixture.run(Built.path("reveille"), arguments)
            guard result.status == .exited(0) else { throw TestEnvironmentError.failed("reveille \(arguments): \(result)") }
            return result.line
        }
        return Three(
            relative: try await add("add", "7:30", "--title", "Wake"),
            fixed: try await add("add", "2031-01-15T12:00:00+00:00", "--title", "Flight"),
            timer: try await add("timer", "2h", "--title", "Bread"))
    }

    /// Adds the three alarms in `from`, makes `change`, and checks what the person then sees: the
    /// clock-time alarm's next alert is 07:30 in `to` (seen first as `watch --json` prints it), the
    /// instant and the timer's end are unchanged.
    func expectZoneChange(
        _ fixture: AgentFixture, from: String, to: String, change: () async throws -> Void
    ) async throws {
        let ids = try await addThree(fixture)
        let before = try await list(fixture)
        #expect(isNext0730(before[ids.relative]?.fireDate, in: from), "\(before[ids.relative].map { "\($0)" } ?? "missing")")
        #expect(before[ids.fixed]?.fireDate == Self.instant)
        let timerEnd = try #require(date(before[ids.timer]?.fireDate))

        let watch = try fixture.sandbox.spawn(Built.path("reveille"), ["watch", "--json"])
        defer { watch.terminate() }
        _ = try await watch.waitForStandardOutput(containing: ids.relative, timeout: .seconds(30))
        try await change()
        _ = try await eventually("watch --json to show the alarm at 07:30 in \(to)", detail: { watch.outputs() }) { () -> Bool? in
            let lines = watch.standardOutput.split(separator: "\n").dropFirst()
            return lines.contains { line in
                let alarms = (try? JSONDecoder().decode([AlarmDescription].self, from: Data(line.utf8))) ?? []
                return isNext0730(alarms.first { $0.id == ids.relative }?.fireDate, in: to)
            } ? true : nil
        }

        let after = try await list(fixture)
        #expect(isNext0730(after[ids.relative]?.fireDate, in: to), "\(after[ids.relative].map { "\($0)" } ?? "missing")")
        #expect(after[ids.relative]?.state == "scheduled")
        #expect(after[ids.fixed]?.fireDate == Self.instant, "an instant never moves with the zone")
        #expect(after[ids.timer]?.state == "countdown")
        let newEnd = try #require(date(after[ids.timer]?.fireDate))
        #expect(abs(newEnd.timeIntervalSince(timerEnd)) < 1, "a timer ends when it should: \(timerEnd) → \(newEnd)")
    }

    /// `reveille list --json`, by id.
    func list(_ fixture: AgentFixture) async throws -> [String: AlarmDescription] {
        let result = try await fixture.reveille("list", "--json")
        guard result.status == .exited(0) else { throw TestEnvironmentError.failed("list: \(result)") }
        let alarms = try JSONDecoder().decode([AlarmDescription].self, from: Data(result.output.utf8))
        return Dictionary(uniqueKeysWithValues: alarms.map { ($0.id, $0) })
    }

    /// `reveille status --json`.
    func statusJSON(_ fixture: AgentFixture) async throws -> [String: Any] {
        let result = try await fixture.reveille("status", "--json")
        guard result.status == .exited(0),
            let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        else { throw TestEnvironmentError.failed("status: \(result)") }
        return object
    }

    /// Whether an ISO-8601 instant is 07:30:00 local time in `zone`, and the next one: within a day.
    func isNext0730(_ text: String?, in zone: String) -> Bool {
        guard let instant = date(text), let timeZone = TimeZone(identifier: zone) else { return false }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute, .second], from: instant)
        let ahead = instant.timeIntervalSinceNow
        return parts.hour == 7 && parts.minute == 30 && parts.second == 0 && ahead > 0 && ahead <= 86_400
    }

    func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        return (try? Date(text, strategy: .iso8601))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
    }

    /// The agent's log once it contains `text`; throws after 30 s.
    func agentLog(_ fixture: AgentFixture, containing text: String) async throws -> String {
        try await agentLog(try #require(fixture.agent), containing: text)
    }

    func agentLog(_ agent: SandboxProcess, containing text: String) async throws -> String {
        try await eventually("the agent to log \(text.debugDescription)", detail: { agent.outputs() }) { () -> String? in
            let log = agent.standardError
            return log.contains(text) ? log : nil
        }
    }

    /// Checks `condition` every 20 ms until it gives a value; throws after 30 s.
    func eventually<T>(
        _ what: String, detail: () -> String = { "" }, _ condition: () throws -> T?
    ) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            if let value = try condition() { return value }
            guard ContinuousClock.now < deadline else {
                throw TestEnvironmentError.failed("waited 30 s for \(what)\n\(detail())")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
