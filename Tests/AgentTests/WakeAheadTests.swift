@testable import AlarmAgent
import AlarmCore
import AlarmModel
import Foundation
import Logging
import Synchronization
import Testing
import TestRequirements
import TestSupport

/// Waking a margin before each alarm: the margin learned from the resumes measured, the
/// measurement itself, and the wake-ahead's timing against the engine, all on the virtual clock.
@Suite("Agent: waking ahead of an alarm", .onItsOwnThread)
struct WakeAheadTests {
    static let t0 = Fixtures.instant("2026-06-01T06:00:00Z")

    /// A reading `seconds` after `t0` by both clocks, the wall clock `wallOffset` off.
    static func reading(_ seconds: TimeInterval, wallOffset: TimeInterval = 0, boot: String = "boot-1") -> ClockReading {
        ClockReading(
            now: t0.addingTimeInterval(seconds + wallOffset), uptime: .seconds(1_000) + .milliseconds(Int64(seconds * 1000)), bootID: boot,
            timeZone: .utc)
    }

    @Test("The margin is the longest resume measured and 5 s, at least 10 s and at most 2 minutes; --wake-ahead sets it")
    func margin() {
        let learned = WakeAheadMargin(fixed: nil)
        #expect(learned.seconds(resumes: []) == 10)
        #expect(learned.seconds(resumes: [0.3, 1.6, 0.4]) == 10)
        #expect(learned.seconds(resumes: [0.3, 8.5, 0.4]) == 13.5)
        #expect(learned.seconds(resumes: [400]) == 120)
        #expect(WakeAheadMargin(fixed: 30).seconds(resumes: [8.5]) == 30)
        #expect(WakeAheadMargin(fixed: 0).seconds(resumes: [8.5]) == 0)
        #expect(learned.sentence(resumes: []).hasPrefix("10 s before each alarm: the longest resume measured and 5 s to spare"))
        #expect(learned.sentence(resumes: []).hasSuffix("no resume measured yet"))
        #expect(
            learned.sentence(resumes: [0.34, 8.5]).hasSuffix("the last 2 resumes took 0.34 s, 8.50 s"),
            "\(learned.sentence(resumes: [0.34, 8.5]))")
        #expect(learned.sentence(resumes: [8.5]).hasPrefix("13.5 s before each alarm"))
        #expect(
            WakeAheadMargin(fixed: 30).sentence(resumes: [1]) == "30 s before each alarm (reveilled --wake-ahead); the last resume took 1 s"
        )
    }

    @Test("A resume is measured from the wake armed before the machine slept to when the agent hears of it; the last 5 are kept")
    func measuring() {
        var meter = ResumeMeter()
        meter.armed(Self.t0.addingTimeInterval(100))
        meter.goingToSleep(Self.reading(50))
        let measured1 = meter.resumed(Self.reading(100.4))
        #expect(measured1)
        #expect(meter.seconds.count == 1)
        #expect(abs(meter.seconds[0] - 0.4) < 0.001)

        // Woken half a minute before the wake (a person opened the lid): not the agent's wake.
        meter.armed(Self.t0.addingTimeInterval(300))
        meter.goingToSleep(Self.reading(200))
        let measured2 = meter.resumed(Self.reading(270))
        #expect(!measured2)
        // Gone to sleep after the wake's instant: nothing was armed ahead of that sleep.
        meter.goingToSleep(Self.reading(310))
        let measured3 = meter.resumed(Self.reading(400))
        #expect(!measured3)
        // A resume without a sleep before it (the signal came alone).
        let measured4 = meter.resumed(Self.reading(401))
        #expect(!measured4)
        // Nothing would wake the machine at the armed instant (no route works): the resume 15 s
        // after it was a person's, as in the guest's phase without a route.
        meter.armed(Self.t0.addingTimeInterval(500))
        meter.goingToSleep(Self.reading(450), wakes: false)
        let measured5 = meter.resumed(Self.reading(515))
        #expect(!measured5)
        #expect(meter.seconds.count == 1)

        for n in 1...6 {
            let wake = 1_000.0 * Double(n)
            meter.armed(Self.t0.addingTimeInterval(wake))
            meter.goingToSleep(Self.reading(wake - 40))
            let measured5 = meter.resumed(Self.reading(wake + Double(n)))
            #expect(measured5)
        }
        #expect(meter.seconds == [2, 3, 4, 5, 6], "the last five, oldest first")
    }

    @Test("A wall clock that resumed a second behind is measured again when the time service sets it, through the boot clock")
    func correctedByTheTimeService() {
        var meter = ResumeMeter()
        meter.armed(Self.t0.addingTimeInterval(100))
        meter.goingToSleep(Self.reading(50))
        // The resume took 0.3 s, but the kernel read a one-second clock: the wall clock is 1 s behind.
        let measured6 = meter.resumed(Self.reading(100.3, wallOffset: -1))
        #expect(measured6)
        #expect(meter.seconds == [0], "the wall clock says the agent ran before the wake: no less than nothing")
        // A timer sees a set that is only the resume itself (both clocks moved together): nothing changes.
        let measured7 = meter.clockMayHaveBeenSet(Self.reading(101, wallOffset: -1))
        #expect(!measured7)
        // Two seconds later the time service steps the clock right.
        let measured8 = meter.clockMayHaveBeenSet(Self.reading(102.3))
        #expect(measured8)
        #expect(abs(meter.seconds[0] - 0.3) < 0.001, "\(meter.seconds)")
        // A set more than a minute after the resume is not about it.
        let measured9 = meter.clockMayHaveBeenSet(Self.reading(170, wallOffset: 5))
        #expect(!measured9)
        #expect(abs(meter.seconds[0] - 0.3) < 0.001)
    }

    @Test("The resumes measured are kept in the store's folder and read back")
    func record() throws {
        let folder = Fixtures.temporaryDirectory("reveille-resumes")
        defer { try? FileManager.default.removeItem(at: folder) }
        let record = ResumeRecord(directory: folder)
        #expect(record.load().isEmpty)
        let resumes = [
            ResumeMeter.Resume(wokenAt: Self.t0, seconds: 0.34),
            ResumeMeter.Resume(wokenAt: Self.t0.addingTimeInterval(86_400), seconds: 1.5),
        ]
        try record.save(resumes)
        #expect(record.load() == resumes)
        let readOnly = ResumeRecord(directory: folder, writable: false)
        try readOnly.save([])
        #expect(readOnly.load() == resumes, "a read-only store's folder is not written")
    }

    /// A route that records the instants it is asked to wake at.
    final class RecordingRoute: WakeRoute {
        let name = "a recording route"
        let inUseSentence = "a recording route wakes the machine"
        let armed = Mutex<[Date]>([])
        let disarmed = Mutex(0)
        func arm(at instant: Date) async throws(WakeRouteError) { armed.withLock { $0.append(instant) } }
        func disarm() async { disarmed.withLock { $0 += 1 } }
    }

    /// Waits (in real time, up to 30 s on a busy machine) until `condition` holds: the wake-ahead
    /// and the router act on tasks of their own.
    static func eventually(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition(), "\(what)")
    }

    @Test("The wake goes a margin before the deadline, through the route; the machine is held awake from then until the next deadline")
    func wakeAhead() async throws {
        // The router compares instants with the real clock: the virtual one starts at a real instant.
        let start = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let clock = VirtualClock(now: start)
        let route = RecordingRoute()
        let router = WakeRouter(routes: [route], logger: Logger(label: "test"))
        let wake = WakeAhead(
            clock: clock, margin: WakeAheadMargin(fixed: nil), router: router, inhibitor: nil, record: nil, logger: Logger(label: "test"))
        defer { wake.stop() }
        // The virtual clock moves on once something waits on it again, as the engine always does.
        let engine = Task { _ = try? await clock.wait(for: WakeUp(wall: start.addingTimeInterval(86_400))) }
        defer { engine.cancel() }

        wake.request(start.addingTimeInterval(60))
        #expect(wake.planned.wakeAt == start.addingTimeInterval(50))
        #expect(!wake.planned.holding)
        try await Self.eventually("the route asked to wake 10 s ahead") { route.armed.withLock { $0 } == [start.addingTimeInterval(50)] }

        try await clock.advance(by: 49.9)
        try await Task.sleep(for: .milliseconds(100))
        #expect(!wake.planned.holding, "not held before the wake")
        try await clock.advance(by: 0.1)
        try await Self.eventually("held from the wake") { wake.planned.holding }

        // The same deadline asked again (the engine re-armed after a clock set): still held.
        wake.request(start.addingTimeInterval(60))
        #expect(wake.planned.holding)
        // The next deadline (the alarm rang): released, and the next wake planned.
        wake.request(start.addingTimeInterval(200))
        #expect(!wake.planned.holding)
        #expect(wake.planned.wakeAt == start.addingTimeInterval(190))
        try await Self.eventually("the route asked to wake 10 s before the next") {
            route.armed.withLock { $0.last } == start.addingTimeInterval(190)
        }
        // A deadline already within the margin: held at once, woken at the instant itself.
        wake.request(start.addingTimeInterval(55))
        #expect(wake.planned.holding)
        #expect(wake.planned.wakeAt == start.addingTimeInterval(55))
        try await Self.eventually("the route asked to wake at the instant") {
            route.armed.withLock { $0.last } == start.addingTimeInterval(55)
        }
        // No deadline: nothing held, the wake-up taken back.
        wake.request(nil)
        #expect(!wake.planned.holding)
        #expect(wake.planned.wakeAt == nil)
        try await Self.eventually("the wake-up taken back") { route.disarmed.withLock { $0 } >= 1 }
    }

    @Test("A resume within the RTC's second before the wake-ahead moment is the wake come early: held from it; one earlier is not")
    func heldFromAnEarlyWake() async throws {
        let clock = VirtualClock(now: Self.t0)
        let wake = WakeAhead(
            clock: clock, margin: WakeAheadMargin(fixed: 10), router: nil, inhibitor: nil, record: nil, logger: Logger(label: "test"))
        defer { wake.stop() }
        // The virtual clock moves on once something waits on it again, as the engine always does.
        let engine = Task { _ = try? await clock.wait(for: WakeUp(wall: Self.t0.addingTimeInterval(86_400))) }
        defer { engine.cancel() }

        wake.request(Self.t0.addingTimeInterval(60))
        #expect(wake.planned.wakeAt == Self.t0.addingTimeInterval(50))
        // A resume 1.5 s before the wake-ahead moment: something else woke the machine.
        wake.goingToSleep()
        try await clock.advance(by: 48.5)
        wake.resumed()
        #expect(!wake.planned.holding, "a resume 1.5 s before the wake-ahead moment is not the wake")
        // Asleep again; the RTC, set in whole seconds, wakes it 0.53 s before the moment, before the
        // wake timer has fired: held from the resume.
        wake.goingToSleep()
        try await clock.advance(by: 0.97)
        wake.resumed()
        #expect(wake.planned.holding, "held from the wake that came 0.53 s early")
        // The wake timer firing then changes nothing; the next deadline lets go.
        try await clock.advance(by: 0.53)
        try await Self.eventually("still held at the wake-ahead moment") { wake.planned.holding }
        wake.request(nil)
        #expect(!wake.planned.holding)
    }

    @Test("Woken ahead, the alarm rings on its instant, never before; woken late, it rings at once")
    func ringsOnTheInstant() async throws {
        let clock = VirtualClock(now: Self.t0)
        let wake = WakeAhead(
            clock: clock, margin: WakeAheadMargin(fixed: 30), router: nil, inhibitor: nil, record: nil, logger: Logger(label: "test"))
        defer { wake.stop() }
        let directory = Fixtures.temporaryDirectory("reveille-wake-ahead")
        defer { try? FileManager.default.removeItem(at: directory) }
        let presenter = RecordingPresenter()
        let engine = AlarmEngine(
            store: try AlarmStore(directory: directory), clock: WakingClock(base: clock, wakeAhead: wake), policy: AlarmPolicy(),
            presenter: presenter)
        try await engine.start()
        defer { Task { await engine.shutdown() } }

        let first = UUID()
        try await engine.schedule(id: first, definition: Fixtures.definition(.fixed(Self.t0.addingTimeInterval(120))), caller: .user)
        try await Self.eventually("the wake 30 s ahead") { wake.planned.wakeAt == Self.t0.addingTimeInterval(90) }
        try await clock.advance(by: 90)
        try await Self.eventually("held from the wake") { wake.planned.holding }
        try await clock.advance(by: 29.999)
        #expect(presenter.alerted.isEmpty, "nothing rings before the instant")
        #expect(try await engine.alarm(id: first, caller: .user).state == .scheduled)
        try await clock.advance(by: 0.001)
        #expect(presenter.alerted == [first])
        #expect(try await engine.history().first?.lateness == 0)
        try await engine.stop(id: first, caller: .user)

        // The wake came late: the machine slept through the instant and resumed 40 s after it.
        let second = UUID()
        try await engine.schedule(id: second, definition: Fixtures.definition(.fixed(Self.t0.addingTimeInterval(300))), caller: .user)
        try await Self.eventually("the second wake planned") { wake.planned.wakeAt == Self.t0.addingTimeInterval(270) }
        clock.suspend(for: 340 - 120)
        await engine.resumedFromSuspend()
        #expect(presenter.alerted == [first, second], "it rings at once on resume")
        let entry = try #require(try await engine.history().first { $0.alarmID == second })
        #expect(entry.lateness == 40)
    }
}
