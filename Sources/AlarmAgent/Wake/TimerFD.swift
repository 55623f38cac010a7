import CLinux
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A kernel timer read through a file descriptor: one wrapper over `timerfd_create`,
/// `timerfd_settime` and `read`.
///
/// Armed at an absolute instant of its clock, it becomes readable when the instant comes. A
/// `CLOCK_REALTIME` timer armed with `cancelOnSet` also becomes readable when the wall clock is
/// set, and its read then fails with `ECANCELED` (so does a `CLOCK_REALTIME_ALARM` one).
final class TimerFD: Sendable {
    /// The clocks a timer can follow.
    enum ClockID {
        /// `CLOCK_REALTIME`: the wall clock, which can be set.
        case realtime
        /// `CLOCK_BOOTTIME`: elapsed time since boot, suspend included.
        case boottime
        /// `CLOCK_REALTIME_ALARM`: the wall clock, and a timer on it wakes a suspended machine
        /// (through the real-time clock). Needs `CAP_WAKE_ALARM`.
        case realtimeAlarm
        /// `CLOCK_BOOTTIME_ALARM`: elapsed time since boot, and a timer on it wakes a suspended
        /// machine. Needs `CAP_WAKE_ALARM`.
        case boottimeAlarm

        var raw: clockid_t {
            switch self {
            case .realtime: CLOCK_REALTIME
            case .boottime: CLOCK_BOOTTIME
            case .realtimeAlarm: CLOCK_REALTIME_ALARM
            case .boottimeAlarm: CLOCK_BOOTTIME_ALARM
            }
        }
    }

    /// What a read found.
    enum Expiry {
        /// The instant came.
        case expired
        /// The wall clock was set (`ECANCELED`).
        case clockWasSet
        /// Nothing yet (`EAGAIN`).
        case notYet
    }

    /// The descriptor, for waiting on.
    let descriptor: Int32

    /// Creates a non-blocking, close-on-exec timer on a clock (`timerfd_create`).
    init(clock: ClockID) throws {
        let descriptor = timerfd_create(clock.raw, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        self.descriptor = descriptor
    }

    /// Arms the timer at an absolute reading of its clock (`timerfd_settime` with
    /// `TFD_TIMER_ABSTIME`, and `TFD_TIMER_CANCEL_ON_SET` when `cancelOnSet`).
    func arm(atSeconds seconds: Int64, nanoseconds: Int64, cancelOnSet: Bool) throws {
        var specification = itimerspec()
        // An instant of zero would disarm the timer; the earliest armable instant is 1 ns.
        specification.it_value.tv_sec = Int(max(0, seconds))
        specification.it_value.tv_nsec = (seconds <= 0 && nanoseconds <= 0) ? 1 : Int(nanoseconds)
        var flags = Int32(TFD_TIMER_ABSTIME)
        if cancelOnSet { flags |= Int32(TFD_TIMER_CANCEL_ON_SET) }
        guard timerfd_settime(descriptor, flags, &specification, nil) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL)
        }
    }

    /// Blocks the calling thread until the timer is readable (`poll`), retrying on `EINTR`.
    func waitUntilReadable() {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while poll(&entry, 1, -1) < 0 && errno == EINTR {}
    }

    /// Reads the expiry count (`read`), telling an expiry from a clock set.
    func read() -> Expiry {
        var count: UInt64 = 0
        let result = Glibc.read(descriptor, &count, MemoryLayout<UInt64>.size)
        if result == MemoryLayout<UInt64>.size { return .expired }
        return errno == ECANCELED ? .clockWasSet : .notYet
    }

    deinit { close(descriptor) }
}

/// Readings of the kernel's clocks (`clock_gettime`).
enum KernelClock {
    /// Seconds and nanoseconds of a clock.
    static func read(_ clock: TimerFD.ClockID) -> (seconds: Int64, nanoseconds: Int64) {
        var time = timespec()
        clock_gettime(clock.raw, &time)
        return (Int64(time.tv_sec), Int64(time.tv_nsec))
    }

    /// The kernel's identifier of this boot (`/proc/sys/kernel/random/boot_id`).
    static let bootID: String = {
        let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
        return text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown-boot"
    }()
}
