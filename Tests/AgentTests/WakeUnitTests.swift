@testable import AlarmAgent
import AlarmCore
import AlarmModel
import Foundation
import Synchronization
import Testing
import TestRequirements
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The parts of the wake sources that need no agent: reading the zone from the `localtime` link,
/// the inotify watch of it, and what `status` says about waking from suspend. Real files in a
/// temporary folder, the real kernel.
@Suite("Agent: time-zone file and wake capability", .onItsOwnThread)
struct WakeUnitTests {
    /// A temporary folder, removed by `remove()`.
    struct Folder {
        let url = Fixtures.temporaryDirectory("reveille-wake-unit")
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
        func link(_ name: String, to target: String) throws {
            try FileManager.default.createSymbolicLink(atPath: path(name), withDestinationPath: target)
        }
        func remove() { try? FileManager.default.removeItem(at: url) }
    }

    @Test(
        "A wall-clock set between the engine's reading and the timers being armed is reported at once; without one the wait runs to its deadline",
        .timeLimit(.minutes(1)))
    func setBeforeArming() async throws {
        let clock = SystemClock(wakeTimers: false)
        let now = clock.read()
        // The engine read the clock an hour ahead of what it says now: the clock was set back
        // an hour after that reading, before any timer was armed to see it.
        var stepped = now
        stepped.now = now.now.addingTimeInterval(3_600)
        let deadline = now.now.addingTimeInterval(30)
        let started = ContinuousClock.now
        let afterSet = try await clock.wait(for: WakeUp(wall: deadline, basis: stepped))
        #expect(afterSet == .clockChanged)
        #expect(ContinuousClock.now - started < .seconds(5), "reported at once, not at the deadline")

        // Read just before arming, with no set between: the wait lasts until its deadline.
        let fresh = clock.read()
        let soon = fresh.now.addingTimeInterval(0.3)
        let armed = Mutex(false)
        let reason = try await clock.wait(for: WakeUp(wall: soon, basis: fresh)) { armed.withLock { $0 = true } }
        #expect(reason == .deadline)
        #expect(Date() >= soon)
        #expect(armed.withLock { $0 }, "the clock says when its timers are set")
    }

    @Test("The zone is read from the link, through a chain of links, or from the timezone file beside a copy; TZ wins")
    func readingTheZone() throws {
        let folder = Folder()
        defer { folder.remove() }
        try folder.link("direct", to: "/usr/share/zoneinfo/Asia/Tokyo")
        #expect(SystemClock.systemTimeZone(localTimePath: folder.path("direct"), tz: nil)?.identifier == "Asia/Tokyo")

        try folder.link("current", to: "/usr/share/zoneinfo/America/New_York")
        try folder.link("chained", to: folder.path("current"))
        #expect(SystemClock.systemTimeZone(localTimePath: folder.path("chained"), tz: nil)?.identifier == "America/New_York")
        try folder.link("relative", to: "current")
        #expect(SystemClock.systemTimeZone(localTimePath: folder.path("relative"), tz: nil)?.identifier == "America/New_York")

        try folder.link("posix", to: "/usr/share/zoneinfo/posix/Europe/Berlin")
        #expect(SystemClock.systemTimeZone(localTimePath: folder.path("posix"), tz: nil)?.identifier == "Europe/Berlin")

        #expect(SystemClock.systemTimeZone(localTimePath: folder.path("missing"), tz: nil) == nil, "a link being replaced keeps the zone")

        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Europe/Berlin", toPath: folder.path("localtime"))
        try "Europe/Berlin\n".write(toFile: folder.path("timezone"), atomically: true, encoding: .utf8)
        #expect(SystemClock.systemTimeZone(localTimePath: folder.path("localtime"), tz: nil)?.identifier == "Europe/Berlin")

        #expect(SystemClock.systemTimeZone(localTimePath: folder.path("direct"), tz: ":Europe/Paris")?.identifier == "Europe/Paris")

        // A copy with no name beside it: the file's own rules, by its path.
        try FileManager.default.createDirectory(atPath: folder.path("nameless"), withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Asia/Kolkata", toPath: folder.path("nameless/localtime"))
        let copy = try #require(SystemClock.systemTimeZone(localTimePath: folder.path("nameless/localtime"), tz: nil))
        #expect(copy.identifier == folder.path("nameless/localtime"))
        #expect(copy.secondsFromGMT(at: 1_800_000_000) == 19_800)
        // TZ as a POSIX rule, as the C library reads it (`TZ=JST-9 date +%z` prints +0900); a name
        // that is neither a zone nor a rule leaves the system's zone.
        #expect(SystemClock.systemTimeZone(localTimePath: folder.path("direct"), tz: "JST-9")?.secondsFromGMT(at: 0) == 32_400)
        #expect(SystemClock.systemTimeZone(localTimePath: folder.path("direct"), tz: "Nowhere/Nothing")?.identifier == "Asia/Tokyo")
    }

    @Test("The watch reports a link renamed over the file and its deletion, and ends with its folder")
    func watchingTheLink() async throws {
        let folder = Folder()
        defer { folder.remove() }
        try folder.link("localtime", to: "/usr/share/zoneinfo/America/New_York")
        let watcher = try FileEntryWatcher(path: folder.path("localtime"))
        defer { watcher.stop() }
        let changes = Recorder(watcher.changes)

        try "x".write(toFile: folder.path("unrelated"), atomically: false, encoding: .utf8)
        try folder.link(".localtime.new", to: "/usr/share/zoneinfo/Asia/Tokyo")
        #expect(rename(folder.path(".localtime.new"), folder.path("localtime")) == 0)
        try await changes.wait(forCount: 1)

        try FileManager.default.removeItem(atPath: folder.path("localtime"))
        try await changes.wait(forCount: 2)

        folder.remove()
        try await changes.waitForEnd()
    }

    @Test("stop() ends the stream; a folder that does not exist cannot be watched")
    func stopping() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let watcher = try FileEntryWatcher(path: folder.path("localtime"))
        let changes = Recorder(watcher.changes)
        watcher.stop()
        try await changes.waitForEnd()
        #expect(throws: POSIXError.self) { try FileEntryWatcher(path: folder.path("nowhere/localtime")) }
    }

    @Test("Waking from suspend: yes with wake timers and an RTC that wakes; else no, with every reason")
    func wakeCapability() throws {
        let folder = Folder()
        defer { folder.remove() }
        let rtc = folder.path("rtc")
        let missing = WakeCapability.assess(rtcClassDirectory: rtc, wakeTimers: true, declined: false, graceWindow: 600)
        #expect(!missing.canWake)
        #expect(
            missing.explanation
                == "no: this machine has no real-time clock that could wake it (\(rtc) lists none); alarms missed while asleep ring on resume if no more than 10m late"
        )

        try FileManager.default.createDirectory(atPath: folder.path("rtc/rtc0"), withIntermediateDirectories: true)
        let noAlarm = WakeCapability.assess(
            rtcClassDirectory: rtc, wakeTimers: false, declined: false, executable: "/usr/bin/reveilled", graceWindow: 0)
        #expect(!noAlarm.canWake)
        #expect(
            noAlarm.explanation
                == "no: this machine's real-time clock cannot wake it (\(rtc)/rtc0/wakealarm is missing), and the agent may not set wake timers: that takes CAP_WAKE_ALARM (sudo setcap cap_wake_alarm+ep /usr/bin/reveilled); alarms missed while asleep are recorded as missed on resume"
        )

        // The second clock wakes; the first does not.
        try FileManager.default.createDirectory(atPath: folder.path("rtc/rtc1"), withIntermediateDirectories: true)
        try "".write(toFile: folder.path("rtc/rtc1/wakealarm"), atomically: false, encoding: .utf8)
        let waking = WakeCapability.assess(rtcClassDirectory: rtc, wakeTimers: true, declined: false, graceWindow: 600)
        #expect(waking.canWake)
        #expect(waking.explanation == "yes: alarms are wake timers (CLOCK_REALTIME_ALARM), and \(rtc)/rtc1 wakes the machine for them")

        let withoutCapability = WakeCapability.assess(
            rtcClassDirectory: rtc, wakeTimers: false, declined: false, executable: "/opt/reveilled", graceWindow: 600)
        #expect(!withoutCapability.canWake)
        #expect(
            withoutCapability.explanation
                == "no: the agent may not set wake timers: that takes CAP_WAKE_ALARM (sudo setcap cap_wake_alarm+ep /opt/reveilled); alarms missed while asleep ring on resume if no more than 10m late"
        )

        let declined = WakeCapability.assess(rtcClassDirectory: rtc, wakeTimers: false, declined: true, graceWindow: 600)
        #expect(!declined.canWake)
        #expect(declined.explanation.hasPrefix("no: the agent was started with --no-wake; "))
    }

    @Test("Without wake timers, status names the route that wakes the machine, or gives every route's reason")
    func wakeRoutes() throws {
        let folder = Folder()
        defer { folder.remove() }
        let rtc = folder.path("rtc")
        try FileManager.default.createDirectory(atPath: folder.path("rtc/rtc0"), withIntermediateDirectories: true)
        try "".write(toFile: folder.path("rtc/rtc0/wakealarm"), atomically: false, encoding: .utf8)
        let refused = "the systemd user manager (systemd 252) could not arm a WakeSystem timer"
        let throughPowerDevil = WakeCapability.assess(
            rtcClassDirectory: rtc, wakeTimers: false, declined: false, executable: "/usr/bin/reveilled", graceWindow: 600,
            routes: .init(inUse: "KDE's PowerDevil wakes the machine (scheduleWakeup)", failures: [refused], checking: false))
        #expect(throughPowerDevil.canWake)
        #expect(
            throughPowerDevil.explanation
                == "yes: KDE's PowerDevil wakes the machine (scheduleWakeup) for the next alarm, through \(rtc)/rtc0; the agent may not set wake timers itself (no CAP_WAKE_ALARM); \(refused)"
        )

        let none = WakeCapability.assess(
            rtcClassDirectory: rtc, wakeTimers: false, declined: false, executable: "/usr/bin/reveilled", graceWindow: 600,
            routes: .init(inUse: nil, failures: [refused, "KDE's PowerDevil is not running"], checking: false))
        #expect(!none.canWake)
        #expect(
            none.explanation
                == "no: the agent may not set wake timers: that takes CAP_WAKE_ALARM (sudo setcap cap_wake_alarm+ep /usr/bin/reveilled), and \(refused), and KDE's PowerDevil is not running; alarms missed while asleep ring on resume if no more than 10m late"
        )

        let checking = WakeCapability.assess(
            rtcClassDirectory: rtc, wakeTimers: false, declined: false, graceWindow: 600,
            routes: .init(inUse: nil, failures: [], checking: true))
        #expect(!checking.canWake)
        #expect(
            checking.explanation.contains("and the systemd user manager and KDE's PowerDevil are still being asked"),
            "\(checking.explanation)")

        // Wake timers of its own come first: the routes do not matter then.
        let own = WakeCapability.assess(
            rtcClassDirectory: rtc, wakeTimers: true, declined: false, graceWindow: 600,
            routes: .init(inUse: nil, failures: [refused], checking: false))
        #expect(own.explanation == "yes: alarms are wake timers (CLOCK_REALTIME_ALARM), and \(rtc)/rtc0 wakes the machine for them")
    }

    @Test("The user manager's timer is written as an absolute UTC calendar time, with microseconds when it has any")
    func calendarSpecification() {
        #expect(UserManagerWakeTimer.calendarSpecification(Date(timeIntervalSince1970: 1_795_000_000)) == "2026-11-18 11:06:40 UTC")
        #expect(
            UserManagerWakeTimer.calendarSpecification(Date(timeIntervalSince1970: 1_795_000_000.25)) == "2026-11-18 11:06:40.250000 UTC")
        #expect(UserManagerWakeTimer.calendarSpecification(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29 00:00:00 UTC")
    }

    /// Counts a stream's elements and notes its end, for waiting on them.
    final class Recorder: Sendable {
        private let state = Mutex<(count: Int, ended: Bool)>((0, false))

        init(_ stream: AsyncStream<Void>) {
            Task { [self] in
                for await _ in stream { state.withLock { $0.count += 1 } }
                state.withLock { $0.ended = true }
            }
        }

        /// Waits (up to 30 s) until at least `count` elements came.
        func wait(forCount count: Int) async throws {
            try await wait("\(count) changes") { $0.count >= count }
        }

        /// Waits (up to 30 s) until the stream has ended.
        func waitForEnd() async throws {
            try await wait("the end of the stream") { $0.ended }
        }

        private func wait(_ what: String, _ condition: ((count: Int, ended: Bool)) -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(30)
            while !condition(state.withLock { $0 }) {
                guard ContinuousClock.now < deadline else { throw TestEnvironmentError.failed("waited 30 s for \(what)") }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }
}
