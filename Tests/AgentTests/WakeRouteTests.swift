import AlarmKit
import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

/// Waking the machine without `CAP_WAKE_ALARM`: the real agent (its capability taken away with
/// `setpriv`) asks the person's systemd user manager for a transient `WakeSystem` timer, or else
/// KDE's PowerDevil for a wake-up, on the private session bus, where doubles of both
/// (`Scripts/wake_services.py`) answer as the real services do and print what they were asked.
///
/// Nothing here suspends or wakes this machine (a user manager cannot run in the sandbox): what is
/// checked is what the agent asks for (a timer with `WakeSystem=true` at the earliest deadline,
/// replaced when it changes, gone when no alarm is left) and what `status` says. The guest in
/// `scripts/vm-test` shows the real user manager waking a real suspended machine.
@Suite("Agent: waking the machine through the user manager or PowerDevil", .onItsOwnThread, .serialized, .timeLimit(.minutes(5)))
struct WakeRouteTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Scripts/wake_services.py").path

    /// Runs `body` with a sandbox, the doubles of `services` (given `environment`) on its bus, a
    /// real-time clock folder whose clock can wake, and the agent without `CAP_WAKE_ALARM`.
    static func withAgent(
        services: [String], environment: [String: String] = [:],
        _ body: (AgentFixture, SandboxProcess?, SandboxProcess) async throws -> Void
    ) async throws {
        try #require(Built.unavailable == nil, "\(Built.unavailable ?? "")")
        let zones = try ZoneFolder(zone: "Europe/Berlin")
        defer { zones.remove() }
        let rtc = zones.folder.appendingPathComponent("rtc/rtc0")
        try FileManager.default.createDirectory(at: rtc, withIntermediateDirectories: true)
        try "".write(to: rtc.appendingPathComponent("wakealarm"), atomically: false, encoding: .utf8)
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        var doubles: SandboxProcess?
        if !services.isEmpty {
            let started = try fixture.sandbox.spawn(
                Built.systemPython, [script, fixture.sandbox.busAddress] + services, environment: environment)
            doubles = started
            _ = try await started.waitForStandardOutput(containing: "ready", timeout: .seconds(30))
        }
        defer { doubles?.stop() }
        // setpriv drops the capability from the bounding set, so not even root's agent holds it.
        let agent = try fixture.sandbox.spawn(
            "setpriv",
            [
                "--bounding-set=-wake_alarm", "--", Built.path("reveilled"), "--silent", "--localtime", zones.localTime.path,
                "--system-bus", zones.noBus, "--rtc-class", zones.folder.appendingPathComponent("rtc").path,
            ],
            unsetting: ["TZ"])
        defer { agent.stop() }
        try await offPool { try fixture.sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }
        try await body(AgentFixture(sandbox: fixture.sandbox, agent: agent), doubles, agent)
    }

    /// An alarm at `instant` (whole seconds); returns its id.
    static func add(_ fixture: AgentFixture, at instant: Date) async throws -> String {
        let result = try await fixture.reveille("add", instant.formatted(.iso8601))
        try #require(result.status == .exited(0), "\(result)")
        return result.line
    }

    static func cancel(_ fixture: AgentFixture, _ id: String) async throws {
        let result = try await fixture.reveille("cancel", id)
        try #require(result.status == .exited(0), "\(result)")
    }

    /// A whole-second instant `seconds` ahead.
    static func ahead(_ seconds: TimeInterval) -> Date {
        Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + seconds).rounded(.down))
    }

    /// `OnCalendar=` as the agent writes it for a whole-second instant.
    static func calendar(_ instant: Date) -> String {
        instant.formatted(
            Date.VerbatimFormatStyle(
                format:
                    "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) UTC",
                timeZone: TimeZone(identifier: "UTC")!, calendar: Calendar(identifier: .gregorian)))
    }

    /// The double's lines about the timer (`started`, `stopped`, `refused`, `reset`), in order.
    static func timerLines(_ doubles: SandboxProcess) -> [String] {
        doubles.standardOutput.split(separator: "\n").map(String.init).filter {
            ["started ", "stopped ", "refused ", "reset "].contains(where: $0.hasPrefix)
        }
    }

    /// Waits until the last timer line of the double is `line`, and returns all of them.
    @discardableResult
    static func waitForLastTimerLine(_ doubles: SandboxProcess, _ line: String) async throws -> [String] {
        try await waitUntil("the user manager double's last line to be \(line)", detail: { doubles.outputs() }) {
            let lines = timerLines(doubles)
            return lines.last == line ? lines : nil
        }
    }

    static func started(_ instant: Date) -> String {
        "started reveille-wake.timer OnCalendar=\(calendar(instant)) WakeSystem=true AccuracyUSec=1 RemainAfterElapse=false aux=reveille-wake.service:/bin/true"
    }

    /// `reveille status --json`'s wake fields, once it is no longer checking.
    static func wakeStatus(_ fixture: AgentFixture) async throws -> (canWake: Bool, text: String) {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let result = try await fixture.reveille("status", "--json")
            try #require(result.status == .exited(0), "\(result)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            let text = try #require(object["wakeFromSuspend"] as? String, "\(object)")
            let canWake = try #require(object["canWakeFromSuspend"] as? Bool, "\(object)")
            if !text.contains("still being asked") { return (canWake, text) }
            guard ContinuousClock.now < deadline else { throw TestEnvironmentError.failed("status kept checking: \(text)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test(
        "The user manager's WakeSystem timer is made for the earliest alarm, replaced when it changes, and gone when none is left; status names it"
    )
    func userManagerTimer() async throws {
        try await Self.withAgent(services: ["systemd"]) { fixture, doubles, agent in
            let doubles = try #require(doubles)
            // At start, before any alarm, the agent found out whether the user manager can wake the
            // machine: a timer a day ahead, taken back at once.
            let probe = try await Self.waitForLastTimerLine(doubles, "stopped reveille-wake.timer")
            #expect(
                probe.count == 2 && probe[0].hasPrefix("started reveille-wake.timer ") && probe[0].contains("WakeSystem=true"), "\(probe)")
            let status = try await Self.wakeStatus(fixture)
            #expect(status.canWake, "\(status.text)")
            #expect(
                status.text.hasPrefix(
                    "yes: the systemd user manager wakes the machine (a WakeSystem timer, reveille-wake.timer) for the next alarm, through "
                ),
                "\(status.text)")
            #expect(status.text.contains("the agent may not set wake timers itself (no CAP_WAKE_ALARM)"), "\(status.text)")

            let later = Self.ahead(3_600)
            let laterID = try await Self.add(fixture, at: later)
            try await Self.waitForLastTimerLine(doubles, Self.started(later))

            // An earlier alarm replaces the timer: the old one stopped first, then the new one.
            let earlier = Self.ahead(1_800)
            let earlierID = try await Self.add(fixture, at: earlier)
            let lines = try await Self.waitForLastTimerLine(doubles, Self.started(earlier))
            #expect(Array(lines.suffix(3)) == [Self.started(later), "stopped reveille-wake.timer", Self.started(earlier)], "\(lines)")

            // A later alarm changes nothing; cancelling the earliest moves the timer back.
            let latest = Self.ahead(7_200)
            let latestID = try await Self.add(fixture, at: latest)
            try await Self.cancel(fixture, earlierID)
            let back = try await Self.waitForLastTimerLine(doubles, Self.started(later))
            #expect(!back.contains(Self.started(latest)), "the timer followed an alarm that is not the earliest: \(back)")

            // No alarm left: no timer left.
            try await Self.cancel(fixture, laterID)
            try await Self.waitForLastTimerLine(doubles, Self.started(latest))
            try await Self.cancel(fixture, latestID)
            try await Self.waitForLastTimerLine(doubles, "stopped reveille-wake.timer")
            #expect(Self.timerLines(doubles).filter { $0.hasPrefix("started") }.count == 5, "\(Self.timerLines(doubles))")

            // The agent's exit leaves no timer behind.
            let exitAt = try await Self.add(fixture, at: later)
            _ = exitAt
            try await Self.waitForLastTimerLine(doubles, Self.started(later))
            agent.terminate()
            #expect(try await agent.waitForExit(timeout: .seconds(30)) == .exited(0), "\(agent.outputs())")
            #expect(Self.timerLines(doubles).last == "stopped reveille-wake.timer", "\(doubles.outputs())")
        }
    }

    @Test(
        "A user manager that may not wake the machine (systemd 252) is reported and left clean; PowerDevil's wake-up is used, moved and cleared"
    )
    func powerDevilAfterRefusal() async throws {
        try await Self.withAgent(services: ["systemd", "powerdevil"], environment: ["REFUSE_WAKE_SYSTEM": "1"]) { fixture, doubles, agent in
            let doubles = try #require(doubles)
            let status = try await Self.wakeStatus(fixture)
            #expect(status.canWake, "\(status.text)")
            #expect(status.text.hasPrefix("yes: KDE's PowerDevil wakes the machine (scheduleWakeup) for the next alarm"), "\(status.text)")
            #expect(
                status.text.contains(
                    "the systemd user manager (systemd 252.0-double) could not arm a WakeSystem timer (its start job failed, the timer failed, result resources): a user manager needs CAP_WAKE_ALARM for that, which systemd gives a local login's user manager from version 254"
                ),
                "\(status.text)")
            // The failed timer was reset, so the name is free and nothing is left loaded.
            #expect(
                Self.timerLines(doubles).suffix(2) == ["refused reveille-wake.timer", "reset reveille-wake.timer"], "\(doubles.outputs())")

            let later = Self.ahead(3_600)
            let laterID = try await Self.add(fixture, at: later)
            let wakeups = try await waitUntil("PowerDevil's wake-up at \(later)", detail: { doubles.outputs() }) { () -> [String]? in
                let lines = doubles.standardOutput.split(separator: "\n").filter { $0.hasPrefix("scheduled ") || $0.hasPrefix("cleared ") }
                return lines.last?.hasSuffix(" \(Int(later.timeIntervalSince1970)) io.github.reveille.Alarms1 /io/github/reveille/Wake")
                    == true
                    ? lines.map(String.init) : nil
            }
            // The user manager, which refused, is not asked again.
            #expect(
                !doubles.standardOutput.split(separator: "\n").dropFirst(4).contains {
                    $0.hasPrefix("started ") && $0.contains("\(Self.calendar(later))")
                })

            let earlier = Self.ahead(1_800)
            let earlierID = try await Self.add(fixture, at: earlier)
            let cookie = try #require(wakeups.last?.split(separator: " ")[1])
            try await waitUntil("the wake-up moved to \(earlier)", detail: { doubles.outputs() }) {
                let text = doubles.standardOutput
                return text.contains("cleared \(cookie)\n")
                    && text.hasSuffix(" \(Int(earlier.timeIntervalSince1970)) io.github.reveille.Alarms1 /io/github/reveille/Wake\n")
                    ? true : nil
            }
            // PowerDevil calls back when it wakes the machine: the agent answers.
            try await Self.call(fixture, "wakeup")
            _ = try await doubles.waitForStandardOutput(containing: "called back", timeout: .seconds(30))
            try await waitUntil("the agent to log the callback", detail: { agent.outputs() }) {
                agent.standardError.contains("PowerDevil woke the machine") ? true : nil
            }

            try await Self.cancel(fixture, earlierID)
            try await Self.cancel(fixture, laterID)
            try await waitUntil("every wake-up cleared", detail: { doubles.outputs() }) {
                let lines = doubles.standardOutput.split(separator: "\n").filter { $0.hasPrefix("scheduled ") || $0.hasPrefix("cleared ") }
                let scheduled = Set(lines.filter { $0.hasPrefix("scheduled ") }.map { $0.split(separator: " ")[1] })
                let cleared = Set(lines.filter { $0.hasPrefix("cleared ") }.map { $0.split(separator: " ")[1] })
                return scheduled == cleared && lines.count >= 6 ? true : nil
            }
        }
    }

    @Test("With no capability, a user manager that may not wake and no PowerDevil, status says no and gives every reason")
    func noRoute() async throws {
        try await Self.withAgent(services: ["systemd"], environment: ["REFUSE_WAKE_SYSTEM": "1"]) { fixture, _, _ in
            let status = try await Self.wakeStatus(fixture)
            #expect(!status.canWake)
            #expect(
                status.text.hasPrefix("no: the agent may not set wake timers: that takes CAP_WAKE_ALARM (sudo setcap cap_wake_alarm+ep "),
                "\(status.text)")
            #expect(
                status.text.contains(", and the systemd user manager (systemd 252.0-double) could not arm a WakeSystem timer"),
                "\(status.text)")
            #expect(
                status.text.contains(
                    ", and KDE's PowerDevil is not running (no org.kde.Solid.PowerManagement on the session bus); alarms missed while asleep ring on resume if no more than 10m late"
                ),
                "\(status.text)")
        }
        try await Self.withAgent(services: []) { fixture, _, _ in
            let status = try await Self.wakeStatus(fixture)
            #expect(!status.canWake)
            #expect(
                status.text.contains(
                    ", and the session bus has no systemd user manager (org.freedesktop.systemd1), and KDE's PowerDevil is not running"),
                "\(status.text)")
        }
    }

    /// Calls a method of the PowerDevil double.
    static func call(_ fixture: AgentFixture, _ method: String) async throws {
        let connection = try await offPool { [sandbox = fixture.sandbox] in try DBusConnection.connect(address: sandbox.busAddress) }
        defer { connection.close() }
        _ = try await connection.call(
            destination: "org.kde.Solid.PowerManagement", path: "/org/kde/Solid/PowerManagement",
            interface: "org.kde.Solid.PowerManagement",
            method: method)
    }
}
