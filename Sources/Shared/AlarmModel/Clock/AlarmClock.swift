import FoundationEssentials

/// The clocks the engine reads and waits on; injected, so tests run days of schedule in milliseconds.
///
/// Two clocks matter. The wall clock (`CLOCK_REALTIME`) says when a clock time or instant arrives; it
/// can be set. The boot clock (`CLOCK_BOOTTIME`) measures elapsed time, suspend included; countdowns
/// use it, so a 10-minute timer ends 10 minutes after it started whatever the wall clock does.
public protocol AlarmClock: Sendable {
    /// Reads both clocks and the current time zone at one moment.
    func read() -> ClockReading

    /// Suspends until the wake-up is due: the wall clock reaches `wakeUp.wall`, or the boot clock
    /// reaches `wakeUp.elapsed`, whichever comes first.
    ///
    /// Returns early with `.clockChanged` when the wall clock is set while waiting. Throws
    /// `CancellationError` when the calling task is cancelled. With no deadline at all it waits
    /// until cancelled or the clock changes.
    func wait(for wakeUp: WakeUp) async throws -> WakeReason

    /// Waits as `wait(for:)` does, calling `armed` once the wait's timers are set (a clock whose
    /// timers can fail to be made, such as the system's, calls it only when they were).
    ///
    /// The default calls `armed` at once, then `wait(for:)`.
    func wait(for wakeUp: WakeUp, armed: @escaping @Sendable () -> Void) async throws -> WakeReason
}

extension AlarmClock {
    /// Calls `armed` at once, then waits with `wait(for:)`: for clocks whose waits cannot fail
    /// to be set up.
    public func wait(for wakeUp: WakeUp, armed: @escaping @Sendable () -> Void) async throws -> WakeReason {
        armed()
        return try await wait(for: wakeUp)
    }
}

/// Both clocks and the time zone, read at one moment.
public struct ClockReading: Hashable, Sendable {
    /// The wall-clock instant (`CLOCK_REALTIME`).
    public var now: Date
    /// Time since boot, suspend included (`CLOCK_BOOTTIME`).
    public var uptime: Duration
    /// The kernel's identifier of this boot; boot-clock readings compare only within one boot.
    public var bootID: String
    /// The time zone clock-time alarms are computed in, with its rules.
    public var timeZone: ZoneRules

    /// Creates a reading.
    public init(now: Date, uptime: Duration, bootID: String, timeZone: ZoneRules) {
        self.now = now
        self.uptime = uptime
        self.bootID = bootID
        self.timeZone = timeZone
    }

    /// The deadline `seconds` of elapsed time from this reading.
    public func elapsedDeadline(after seconds: TimeInterval) -> ElapsedDeadline {
        ElapsedDeadline(
            bootID: bootID, uptime: uptime + .seconds(seconds),
            wallEstimate: now.addingTimeInterval(seconds))
    }
}

/// A moment measured on the boot clock, with the wall-clock instant it was expected to fall on.
///
/// Within one boot the boot clock is exact and ignores wall-clock changes. After a reboot the boot
/// clock starts again from zero, and the wall-clock estimate is the best that is left.
public struct ElapsedDeadline: Codable, Hashable, Sendable {
    /// The boot the uptime belongs to.
    public var bootID: String
    /// The boot-clock reading at the deadline.
    public var uptime: Duration
    /// The wall-clock instant the deadline was expected at, when it was set.
    public var wallEstimate: Date

    /// Creates a deadline.
    public init(bootID: String, uptime: Duration, wallEstimate: Date) {
        self.bootID = bootID
        self.uptime = uptime
        self.wallEstimate = wallEstimate
    }

    /// Seconds from the reading to the deadline; negative once it has passed.
    public func remaining(from reading: ClockReading) -> TimeInterval {
        if reading.bootID == bootID {
            return (uptime - reading.uptime).timeInterval
        }
        return wallEstimate.timeIntervalSince(reading.now)
    }

    /// The wall-clock instant this deadline falls on, as seen from the reading.
    public func wallInstant(from reading: ClockReading) -> Date {
        reading.now.addingTimeInterval(remaining(from: reading))
    }
}

/// The one wake-up the engine asks for: the earliest wall-clock and the earliest elapsed deadline.
public struct WakeUp: Hashable, Sendable {
    /// The earliest wall-clock deadline, for `.fixed` and clock-time alarms.
    public var wall: Date?
    /// The earliest elapsed deadline, for countdowns and ring time-outs.
    public var elapsed: ElapsedDeadline?
    /// The clock reading the deadlines were worked out from, or `nil`.
    ///
    /// A wall clock set after this reading and before the wait's timers were armed is a set no
    /// timer can report (`TFD_TIMER_CANCEL_ON_SET` reports only sets after arming): a clock
    /// returns `.clockChanged` at once when it finds the wall clock moved against the boot clock
    /// since `basis` (`ClockReading.wallClockWasSet(since:)`).
    public var basis: ClockReading?

    /// Creates a wake-up; with both `nil` it never fires by itself.
    public init(wall: Date? = nil, elapsed: ElapsedDeadline? = nil, basis: ClockReading? = nil) {
        self.wall = wall
        self.elapsed = elapsed
        self.basis = basis
    }

    /// Whether both wake-ups ask for the same deadlines, whatever readings they came from.
    public func hasSameDeadlines(as other: WakeUp) -> Bool {
        wall == other.wall && elapsed == other.elapsed
    }
}

extension ClockReading {
    /// How far the wall clock may drift from the boot clock without being set: 50 ms, and 1 ms
    /// for each second between the readings (NTP slews by at most 0.5 ms a second).
    static func slewAllowance(over seconds: TimeInterval) -> TimeInterval { 0.05 + 0.001 * abs(seconds) }

    /// Whether the wall clock was set between `earlier` and this reading: it moved against the
    /// boot clock (which counts through suspend, as the wall clock does) by more than slewing
    /// allows. Readings from different boots always count as set.
    public func wallClockWasSet(since earlier: ClockReading) -> Bool {
        guard bootID == earlier.bootID else { return true }
        let booted = (uptime - earlier.uptime).timeInterval
        let walked = now.timeIntervalSince(earlier.now)
        return abs(walked - booted) > Self.slewAllowance(over: booted)
    }
}

/// Why a wait ended.
public enum WakeReason: Hashable, Sendable {
    /// A deadline came due.
    case deadline
    /// The wall clock was set: every wall-clock deadline must be checked again.
    case clockChanged
}

extension Duration {
    /// The duration in seconds.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds, for storing.
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
