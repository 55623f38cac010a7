import AlarmAgent
import AlarmKit
import CommandLineText
import Foundation
import Testing
import TestRequirements
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
@Suite("Agent: resume and time-zone changes", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
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

    @Test("A tzdata update replacing the zone's file moves a clock-time alarm by the new rules, which the runtime's copy lacks")
    func zoneRulesUpdated() async throws {
        let zones = try ZoneFolder(zone: "Europe/Berlin")
        defer { zones.remove() }
        // The system's database (TZDIR) has Berlin on UTC+2 all year: rules no runtime has.
        let database = zones.folder.appendingPathComponent("zoneinfo")
        try ZoneCompiler.compile("Zone Europe/Berlin 2:00 - EET", into: database)
        let file = database.appendingPathComponent("Europe/Berlin").path
        let fixture = try await AgentFixture.start(
            agentArguments: ["--verbose", "--localtime", zones.localTime.path, "--system-bus", zones.noBus],
            agentEnvironment: ["TZDIR": database.path], unsettingForAgent: ["TZ"])
        defer { fixture.stop() }
        let added = try await fixture.reveille("add", "7:30", "--title", "Wake")
        #expect(added.status == .exited(0), "\(added)")
        let id = added.line
        let before = try await list(fixture)[id]
        #expect(isNext(before?.fireDate, utcHour: 5, minute: 30), "07:30 at UTC+2: \(before.map { "\($0)" } ?? "missing")")
        let sources = try #require(try await statusJSON(fixture)["eventSources"] as? String)
        #expect(sources.contains("time-zone rules (\(file))"), "\(sources)")

        // The update, as dpkg makes it: the new file is renamed over the old one. UTC+3 now.
        let staging = zones.folder.appendingPathComponent("staging")
        try ZoneCompiler.compile("Zone Europe/Berlin 3:00 - MSK", into: staging)
        guard rename(staging.appendingPathComponent("Europe/Berlin").path, file) == 0 else {
            throw TestEnvironmentError.failed("rename: \(String(cString: strerror(errno)))")
        }
        // The agent logs the check after the engine has computed the alarms again.
        let log = try await agentLog(fixture, containing: "source=\(file)")
        #expect(log.contains("The time zone was checked again"), "\(log)")
        let after = try await list(fixture)[id]
        #expect(isNext(after?.fireDate, utcHour: 4, minute: 30), "07:30 at UTC+3: \(after.map { "\($0)" } ?? "missing")")
        #expect(after?.state == "scheduled")
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

    @Test(
        "Without a system bus the agent says so once, serves, says alarms cannot wake the machine and why, and lists the localtime link as watched"
    )
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

    @Test(
        "The system bus missing at start, then there, gone, and back: the agent watches logind and timedate1 whenever it is up, and waits without spinning"
    )
    func systemBusComesAndGoes() async throws {
        let zones = try ZoneFolder(zone: "Europe/Berlin")
        defer { zones.remove() }
        let socket = zones.folder.appendingPathComponent("system_bus_socket")
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let agent = try await startAgent(
            fixture, ["--verbose", "--localtime", zones.localTime.path, "--system-bus", "unix:path=" + socket.path])
        let running = AgentFixture(sandbox: fixture.sandbox, agent: agent)
        _ = try await agentLog(agent, containing: "The system bus cannot be reached")
        let waiting = try #require(try await statusJSON(running)["eventSources"] as? String)
        #expect(
            waiting.contains("the system bus cannot be reached") && waiting.contains("connecting again when \(socket.path) is made anew"),
            "\(waiting)")

        // Nothing polls while it waits.
        let cpuBefore = ProcessTable.cpuTime(of: agent.pid)
        try await Task.sleep(for: .seconds(1))
        #expect(ProcessTable.cpuTime(of: agent.pid) - cpuBefore < .milliseconds(100), "the agent spun while waiting for the bus")

        let first = try await SystemBusDouble.start(in: fixture.sandbox, zoneLink: zones.current, socket: socket)
        _ = try await agentLog(agent, containing: "Watching logind and timedate1 on the system bus for resume")
        #expect(try await statusJSON(running)["watchedEvents"] as? [String] == ["clock-set", "time-zone", "resume"])

        try await offPool { first.stop() }
        _ = try await agentLog(agent, containing: "The system bus went away")
        let lost = try #require(try await statusJSON(running)["eventSources"] as? String)
        #expect(lost.contains("the system bus went away; connecting again when \(socket.path) is made anew"), "\(lost)")

        let second = try await SystemBusDouble.start(in: fixture.sandbox, zoneLink: zones.current, socket: socket)
        defer { second.stop() }
        _ = try await agentLog(agent, containing: "Watching logind and timedate1 on the system bus again")
        #expect(try await statusJSON(running)["watchedEvents"] as? [String] == ["clock-set", "time-zone", "resume"])
        try await second.suspend()
        _ = try await agentLog(agent, containing: "Resumed from suspend: every deadline was checked again")
        #expect(agent.isRunning)
    }

    @Test(
        "With CAP_WAKE_ALARM alarms are wake timers; without it, or with --no-wake, plain timers, and status says why; a timer rings either way"
    )
    func wakeTimers() async throws {
        let zones = try ZoneFolder(zone: "Europe/Berlin")
        defer { zones.remove() }
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let agentArguments = ["--localtime", zones.localTime.path, "--system-bus", zones.noBus, "--silent"]
        // This process may set wake timers when it holds CAP_WAKE_ALARM (root does).
        let mayWake = SystemClock(wakeTimers: true).wakeTimers
        struct Run {
            var name: String
            var program: String
            var arguments: [String]
            var clocks: Set<Int>
            var says: String?
        }
        let reveilled = Built.path("reveilled")
        var runs = [
            // setpriv drops the capability from the bounding set, so not even root's agent holds it.
            Run(
                name: "without CAP_WAKE_ALARM", program: "setpriv",
                arguments: ["--bounding-set=-wake_alarm", "--", reveilled] + agentArguments, clocks: [0, 7],
                says:
                    "the agent may not set wake timers: that takes CAP_WAKE_ALARM (sudo setcap cap_wake_alarm+ep \(URL(fileURLWithPath: reveilled).resolvingSymlinksInPath().path))"
            ),
            Run(
                name: "--no-wake", program: reveilled, arguments: agentArguments + ["--no-wake"], clocks: [0, 7],
                says: "the agent was started with --no-wake"),
        ]
        if mayWake {
            runs.append(Run(name: "with CAP_WAKE_ALARM", program: reveilled, arguments: agentArguments, clocks: [8, 9], says: nil))
        }
        for run in runs {
            let agent = try fixture.sandbox.spawn(run.program, run.arguments, unsetting: ["TZ"])
            try await offPool { try fixture.sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }
            let running = AgentFixture(sandbox: fixture.sandbox, agent: agent)
            let status = try await statusJSON(running)
            let wake = try #require(status["wakeFromSuspend"] as? String)
            #expect(status["canWakeFromSuspend"] as? Bool == false, "no real-time clock wakes this machine: \(run.name)")
            if let says = run.says {
                #expect(wake.contains(says), "\(run.name): \(wake)")
            } else {
                #expect(!wake.contains("CAP_WAKE_ALARM") && !wake.contains("--no-wake"), "\(run.name): \(wake)")
            }
            // A long timer keeps an elapsed deadline armed; a short one rings.
            let long = try await fixture.reveille("timer", "1h")
            #expect(long.status == .exited(0), "\(long)")
            let short = try await AlertingTests.timer(running, "1s")
            try await AlertingTests.waitForState("alerting", of: short, in: running)
            let clocks = try await eventually("the agent's timers on \(run.clocks)", detail: { "\(Self.timerClocks(of: agent.pid))" }) {
                Self.timerClocks(of: agent.pid) == run.clocks ? true : nil
            }
            #expect(clocks, "\(run.name)")
            for id in [long.line, short.uuidString] {
                let removed = try await fixture.reveille("cancel", id)
                #expect(removed.status == .exited(0), "\(removed)")
            }
            agent.terminate()
            #expect(try await agent.waitForExit(timeout: .seconds(30)) == .exited(0), "\(run.name): \(agent.outputs())")
        }
    }

    // MARK: - Helpers

    /// What `status` must say first about the real-time clocks of this machine.
    static var expectedWakeReason: String {
        let clocks = ((try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/rtc")) ?? []).filter { $0.hasPrefix("rtc") }
        if clocks.isEmpty { return "no real-time clock that could wake it" }
        if !clocks.contains(where: { FileManager.default.fileExists(atPath: "/sys/class/rtc/\($0)/wakealarm") }) {
            return "real-time clock cannot wake it"
        }
        return "CAP_WAKE_ALARM"
    }

    /// The wall and boot clocks of the armed timerfds a process holds, as the kernel lists them
    /// (`/proc/PID/fdinfo`, `clockid:`): 0 `CLOCK_REALTIME`, 7 `CLOCK_BOOTTIME`,
    /// 8 `CLOCK_REALTIME_ALARM`, 9 `CLOCK_BOOTTIME_ALARM`. Monotonic ones, which the runtime's own
    /// timers use, are left out, and so are disarmed ones (`it_value: (0, 0)`): the agent's worker
    /// pool keeps a boot-clock timer for sleeping tasks, armed only while one sleeps.
    static func timerClocks(of pid: Int32) -> Set<Int> {
        let folder = "/proc/\(pid)/fdinfo"
        var clocks = Set<Int>()
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let info = try? String(contentsOfFile: "\(folder)/\(entry)", encoding: .utf8) else { continue }
            let lines = info.split(separator: "\n")
            guard !lines.contains(where: { $0.hasPrefix("it_value:") && $0.hasSuffix("(0, 0)") }) else { continue }
            for line in lines where line.hasPrefix("clockid:") {
                if let id = Int(line.dropFirst("clockid:".count).trimmingCharacters(in: .whitespaces)), [0, 7, 8, 9].contains(id) {
                    clocks.insert(id)
                }
            }
        }
        return clocks
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
        _ = try await eventually(
            "watch --json to show the alarm at 07:30 in \(to)",
            detail: { watch.outputs() + "\nagent log:\n" + (fixture.agent?.standardError.suffix(3_000) ?? "") }
        ) { () -> Bool? in
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

    /// Whether an ISO-8601 instant is at `utcHour:minute` UTC, and ahead within a day.
    func isNext(_ text: String?, utcHour: Int, minute: Int) -> Bool {
        guard let instant = date(text) else { return false }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.hour, .minute, .second], from: instant)
        let ahead = instant.timeIntervalSinceNow
        return parts.hour == utcHour && parts.minute == minute && parts.second == 0 && ahead > 0 && ahead <= 86_400
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
