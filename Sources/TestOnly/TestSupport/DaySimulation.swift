import AlarmCore
import AlarmModel
import AlarmPresentation
import Foundation
import Synchronization

/// A day of alarms on a virtual clock with the things that go wrong with time: a DST change, the
/// clock stepped forward and back, a suspend, a time-zone change. Every alert is checked against
/// what it should have been, independently of the engine's own bookkeeping:
///
/// - a one-time instant rings once, never before its instant;
/// - a clock-time alarm rings only when the local clock (in the zone of that moment) shows its time
///   or later, at most a suspend's length late, and at least once on every local day whose time it
///   passed;
/// - a timer rings once, never before its duration has elapsed on the boot clock.
///
/// Used by a test (which asserts none missed and none early) and by the benchmark (which prints it).
package struct DaySimulation: Sendable {
    /// What the day came to.
    package struct Result: Sendable, CustomStringConvertible {
        /// Alerts that rang.
        package var alerts = 0
        /// Alerts that should have rung and did not, or that the engine recorded as missed.
        package var missed: [String] = []
        /// Alerts that rang before their time.
        package var early: [String] = []
        /// How late each alert rang (virtual time: zero unless the machine slept or the clock jumped).
        package var lateness: [TimeInterval] = []

        package var description: String {
            let late = lateness.filter { $0 > 0.001 }
            return "\(alerts) alerts, \(missed.count) missed, \(early.count) early, \(late.count) late "
                + "(max \(Int((lateness.max() ?? 0).rounded())) s, all during a suspend or after the clock was stepped forward)"
        }
    }

    /// Records every effect with the clock reading at the moment the engine asked for it.
    final class TimedPresenter: AlarmPresenter {
        let clock: VirtualClock
        let log = Mutex<[(PresentationEffect, ClockReading)]>([])
        init(clock: VirtualClock) { self.clock = clock }
        func perform(_ effect: PresentationEffect) {
            let reading = clock.read()
            log.withLock { $0.append((effect, reading)) }
        }
    }

    /// The start: Saturday 28 March 2026, 20:00 in Berlin, the evening before summer time starts.
    package static let start = Fixtures.instant("2026-03-28T19:00:00Z")

    package init() {}

    /// Runs the day and checks every alert.
    package func run() async throws -> Result {
        let berlin = Fixtures.zone("Europe/Berlin")
        let newYork = Fixtures.zone("America/New_York")
        let clock = VirtualClock(now: Self.start, timeZone: berlin)
        let presenter = TimedPresenter(clock: clock)
        let directory = Fixtures.temporaryDirectory("reveille-day")
        defer { try? FileManager.default.removeItem(at: directory) }
        let engine = AlarmEngine(store: try AlarmStore(directory: directory), clock: clock, presenter: presenter)
        try await engine.start()
        try await clock.settled()

        // Clock-time alarms every 20 minutes of the day, repeating daily; instants every 25
        // minutes; timers of 7 minutes to 23 hours.
        var clockTimes: [UUID: (hour: Int, minute: Int)] = [:]
        var instants: [UUID: Date] = [:]
        var timers: [UUID: (startUptime: Duration, seconds: TimeInterval)] = [:]
        let everyDay: [Locale.Weekday] = [.sunday, .monday, .tuesday, .wednesday, .thursday, .friday, .saturday]
        for slot in 0..<72 {
            let (hour, minute) = (slot / 3, slot % 3 * 20)
            let id = UUID.random()
            _ = try await engine.schedule(
                id: id, definition: Fixtures.definition(Fixtures.clockTime(hour, minute, on: everyDay)), caller: .user)
            clockTimes[id] = (hour, minute)
        }
        for index in 0..<60 {
            let id = UUID.random()
            let at = Self.start.addingTimeInterval(Double(index + 1) * 1_500 + 7)
            _ = try await engine.schedule(id: id, definition: Fixtures.definition(.fixed(at)), caller: .user)
            instants[id] = at
        }
        for index in 0..<40 {
            let id = UUID.random()
            let seconds = Double(420 + index * 2_100)
            _ = try await engine.schedule(id: id, definition: Fixtures.timer(seconds), caller: .user)
            timers[id] = (clock.read().uptime, seconds)
        }

        // The day, in steps; after each, every ringing alert is stopped, as a person would.
        let minute: TimeInterval = 60
        var suspendedDuring: [ClosedRange<Date>] = []
        var steppedForward: [ClosedRange<Date>] = []
        func advance(_ seconds: TimeInterval) async throws {
            var left = seconds
            while left > 0 {
                let step = min(left, 5 * minute)
                try await clock.advance(by: step)
                left -= step
                try await stopRinging()
            }
        }
        func stopRinging() async throws {
            for record in await engine.alarms(visibleTo: .user) {
                if case .alerting = record.phase { try await engine.stop(id: record.id, caller: .user) }
            }
        }
        try await advance(8 * 3_600)  // through the DST change at 02:00 → 03:00 Berlin
        // NTP steps the clock 90 s forward, then, an hour later, 90 s back.
        let before = clock.now
        try await clock.setWallClock(to: before.addingTimeInterval(90))
        steppedForward.append(before...clock.now)
        try await stopRinging()
        try await advance(3_600)
        try await clock.setWallClock(to: clock.now.addingTimeInterval(-90))
        try await stopRinging()
        try await advance(2 * 3_600)
        // A five-minute suspend (within the grace window): what came due rings on resume.
        let sleptAt = clock.now
        clock.suspend(for: 5 * minute)
        suspendedDuring.append(sleptAt...clock.now)
        await engine.resumedFromSuspend()
        try await stopRinging()
        try await advance(3_600)
        // The person flies to New York: clock-time alarms follow local time, instants stay put.
        clock.setTimeZone(newYork)
        await engine.timeZoneChanged()
        try await stopRinging()
        try await advance(17 * 3_600)
        let end = clock.now
        let endUptime = clock.read().uptime
        await engine.shutdown()

        // Check every alert against the schedule.
        var result = Result()
        var rangInstants: [UUID: Int] = [:]
        var rangTimers: [UUID: Int] = [:]
        var rangClockTimes: [UUID: Int] = [:]
        func allowance(_ date: Date) -> TimeInterval {
            let slept = suspendedDuring.filter { $0.upperBound >= date }.map { $0.upperBound.timeIntervalSince($0.lowerBound) }
            let stepped = steppedForward.filter { $0.upperBound >= date }.map { $0.upperBound.timeIntervalSince($0.lowerBound) }
            return (slept + stepped).reduce(0, +) + 1
        }
        for (effect, reading) in presenter.log.withLock({ $0 }) {
            switch effect {
            case .missed(let record, let count):
                result.missed.append("\(record.id) missed \(count) time(s) at \(reading.now)")
            case .alert(let record):
                result.alerts += 1
                if let at = instants[record.id] {
                    rangInstants[record.id, default: 0] += 1
                    let late = reading.now.timeIntervalSince(at)
                    if late < 0 { result.early.append("instant \(at) rang at \(reading.now)") }
                    result.lateness.append(max(0, late))
                } else if let timer = timers[record.id] {
                    rangTimers[record.id, default: 0] += 1
                    let elapsed = (reading.uptime - timer.startUptime) / .seconds(1)
                    if elapsed < timer.seconds - 0.001 { result.early.append("timer of \(timer.seconds) s rang after \(elapsed) s") }
                    result.lateness.append(max(0, elapsed - timer.seconds))
                } else if let time = clockTimes[record.id] {
                    // Independently of the engine: Foundation's next time the local clock shows
                    // hh:mm on this local day (a DST gap gives the first time after it).
                    var calendar = Calendar(identifier: .gregorian)
                    calendar.timeZone = reading.timeZone.foundationTimeZone
                    let dayStart = calendar.startOfDay(for: reading.now)
                    let due =
                        calendar.nextDate(
                            after: dayStart.addingTimeInterval(-1), matching: DateComponents(hour: time.hour, minute: time.minute),
                            matchingPolicy: .nextTime) ?? reading.now
                    let late = reading.now.timeIntervalSince(due)
                    let label = "\(time.hour):\(time.minute < 10 ? "0" : "")\(time.minute) (\(reading.timeZone.identifier))"
                    if late < -0.001 {
                        result.early.append("\(label) rang \(Int(-late)) s early")
                    } else if late > allowance(reading.now) {
                        result.missed.append("\(label) rang \(Int(late)) s late")
                    }
                    result.lateness.append(max(0, late))
                    rangClockTimes[record.id, default: 0] += 1
                }
            default:
                break
            }
        }
        for (id, at) in instants where at <= end && rangInstants[id] != 1 {
            result.missed.append("instant \(at) rang \(rangInstants[id] ?? 0) times")
        }
        for (id, timer) in timers where (endUptime - timer.startUptime) / .seconds(1) >= timer.seconds && rangTimers[id] != 1 {
            result.missed.append("timer of \(timer.seconds) s rang \(rangTimers[id] ?? 0) times")
        }
        // From 20:00 in Berlin through 20:05 the next day in New York, every clock time came at least once.
        for (id, time) in clockTimes where (rangClockTimes[id] ?? 0) < 1 {
            result.missed.append("\(time.hour):\(time.minute) never rang")
        }
        return result
    }
}
