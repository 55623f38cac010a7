import CLinux

#if canImport(Glibc)
import Glibc
#endif

extension FileDescriptor {
    /// Makes a timer on `clock`, read through the returned descriptor (`timerfd_create(2)`);
    /// close-on-exec, and non-blocking unless `nonBlocking` is false. Timers on the `…Alarm`
    /// clocks need `CAP_WAKE_ALARM` (`.notPermitted` without).
    package static func timer(clock: ClockID, nonBlocking: Bool = true) throws(Errno) -> FileDescriptor {
        let flags = Int32(TFD_CLOEXEC) | (nonBlocking ? Int32(TFD_NONBLOCK) : 0)
        return FileDescriptor(rawValue: try systemCall(.timerfdCreate) { timerfd_create(clock.raw, flags) })
    }

    /// Arms a timer to fire once at an absolute reading of its clock (`timerfd_settime(2)` with
    /// `TFD_TIMER_ABSTIME`). With `cancelOnSet` (a `realtime` timer) it also becomes readable
    /// when the wall clock is set, and its read then throws `.canceled`. A reading of zero would
    /// disarm the timer, so the earliest instant armed is 1 ns.
    package func armTimer(atSeconds seconds: Int64, nanoseconds: Int64, cancelOnSet: Bool = false) throws(Errno) {
        var setting = itimerspec()
        setting.it_value.tv_sec = Int(max(0, seconds))
        setting.it_value.tv_nsec = (seconds <= 0 && nanoseconds <= 0) ? 1 : Int(nanoseconds)
        var flags = Int32(TFD_TIMER_ABSTIME)
        if cancelOnSet { flags |= Int32(TFD_TIMER_CANCEL_ON_SET) }
        _ = try systemCall(.timerfdSetTime) { timerfd_settime(rawValue, flags, &setting, nil) }
    }

    /// Disarms a timer (`timerfd_settime(2)` with a zero instant).
    package func disarmTimer() throws(Errno) {
        var setting = itimerspec()
        _ = try systemCall(.timerfdSetTime) { timerfd_settime(rawValue, Int32(TFD_TIMER_ABSTIME), &setting, nil) }
    }

    /// How long until a timer fires; nil when it is disarmed (`timerfd_gettime(2)`).
    package func timerRemaining() throws(Errno) -> Duration? {
        var setting = itimerspec()
        _ = try systemCall(.timerfdGetTime) { timerfd_gettime(rawValue, &setting) }
        let remaining = Duration.seconds(setting.it_value.tv_sec) + .nanoseconds(setting.it_value.tv_nsec)
        return remaining == .zero ? nil : remaining
    }

    /// Reads how many times a timer fired since the last read (`read(2)`): `.wouldBlock` when it
    /// has not (non-blocking), `.canceled` when a `cancelOnSet` timer's clock was set.
    package func readExpirations() throws(Errno) -> UInt64 {
        try readCount()
    }
}
