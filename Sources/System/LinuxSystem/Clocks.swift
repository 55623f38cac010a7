#if canImport(Glibc)
import Glibc
#endif

/// The kernel's clocks, for reading (`clock_gettime(2)`) and for timers (`timerfd_create`).
package enum ClockID: Hashable, Sendable {
    /// `CLOCK_REALTIME`: the wall clock, which can be set.
    case realtime
    /// `CLOCK_MONOTONIC`: time since boot, suspend left out; never set.
    case monotonic
    /// `CLOCK_BOOTTIME`: elapsed time since boot, suspend included.
    case boottime
    /// `CLOCK_REALTIME_ALARM`: the wall clock; a timer on it wakes a suspended machine. Timers on it
    /// need `CAP_WAKE_ALARM`.
    case realtimeAlarm
    /// `CLOCK_BOOTTIME_ALARM`: elapsed time since boot; a timer on it wakes a suspended machine.
    /// Timers on it need `CAP_WAKE_ALARM`.
    case boottimeAlarm

    /// The kernel's number for the clock.
    var raw: clockid_t {
        switch self {
        case .realtime: CLOCK_REALTIME
        case .monotonic: CLOCK_MONOTONIC
        case .boottime: CLOCK_BOOTTIME
        case .realtimeAlarm: CLOCK_REALTIME_ALARM
        case .boottimeAlarm: CLOCK_BOOTTIME_ALARM
        }
    }

    /// The clock's reading now, in seconds and nanoseconds (`clock_gettime(2)`).
    ///
    /// Not through `systemCall`: for these clocks the call cannot fail nor be interrupted (it is
    /// answered in user space, by the vDSO), and it is read too often to be worth a fault seam.
    package var reading: (seconds: Int64, nanoseconds: Int64) {
        var time = timespec()
        clock_gettime(raw, &time)
        return (Int64(time.tv_sec), Int64(time.tv_nsec))
    }

    /// The clock's reading now in nanoseconds (for `monotonic` and `boottime`, which start at boot).
    package var nanoseconds: UInt64 {
        let (seconds, nanoseconds) = reading
        return UInt64(seconds) * 1_000_000_000 + UInt64(nanoseconds)
    }
}
