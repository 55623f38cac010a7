import FoundationEssentials
import LinuxSystem
import AlarmModel

/// A kernel timer the agent holds: LinuxSystem's timerfd (`FileDescriptor.timer`), closed when the
/// last reference to it goes, its reads sorted into an expiry, a clock set or nothing yet.
///
/// It adds ownership and that sorting, nothing else: the timer is armed through LinuxSystem's
/// own call on `descriptor` (`armTimer`), and its errors are LinuxSystem's `Errno`. Armed at an
/// absolute instant of its clock, it becomes readable when the instant comes. A `CLOCK_REALTIME`
/// timer armed with `cancelOnSet` also becomes readable when the wall clock is set, and its read
/// then fails with `ECANCELED` (so does a `CLOCK_REALTIME_ALARM` one).
package final class TimerFD: Sendable {
    /// What a read found.
    package enum Expiry {
        /// The instant came.
        case expired
        /// The wall clock was set (`ECANCELED`).
        case clockWasSet
        /// Nothing yet (`EAGAIN`).
        case notYet
    }

    /// The timer's descriptor, owned by this object: arm it with `armTimer`, wait on it, never close it.
    package let descriptor: FileDescriptor

    /// Makes a non-blocking, close-on-exec timer on `clock` (`FileDescriptor.timer`).
    package init(clock: ClockID) throws(Errno) {
        descriptor = try .timer(clock: clock)
    }

    /// Reads the expiry count (`readExpirations`), telling an expiry from a clock set.
    package func read() -> Expiry {
        do {
            _ = try descriptor.readExpirations()
            return .expired
        } catch {
            return error == .canceled ? .clockWasSet : .notYet
        }
    }

    deinit { try? descriptor.close() }
}
