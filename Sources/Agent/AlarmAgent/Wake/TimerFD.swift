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
final class TimerFD: Sendable {
    /// What a read found.
    enum Expiry {
        /// The instant came.
        case expired
        /// The wall clock was set (`ECANCELED`).
        case clockWasSet
        /// Nothing yet (`EAGAIN`).
        case notYet
    }

    /// The timer's descriptor, owned by this object: arm it with `armTimer`, wait on it, never close it.
    let descriptor: FileDescriptor

    /// Makes a non-blocking, close-on-exec timer on `clock` (`FileDescriptor.timer`).
    init(clock: ClockID) throws(Errno) {
        descriptor = try .timer(clock: clock)
    }

    /// Blocks the calling thread until the timer is readable (`poll`; a signal does not end the
    /// wait).
    func waitUntilReadable() {
        var entries = [PollDescriptor(descriptor, events: .readable)]
        _ = try? FileDescriptor.poll(&entries, timeoutMilliseconds: -1)
    }

    /// Reads the expiry count (`readExpirations`), telling an expiry from a clock set.
    func read() -> Expiry {
        do {
            _ = try descriptor.readExpirations()
            return .expired
        } catch {
            return error == .canceled ? .clockWasSet : .notYet
        }
    }

    deinit { try? descriptor.close() }
}

/// Readings of the kernel's clocks (`clock_gettime`).
enum KernelClock {
    /// Seconds and nanoseconds of a clock.
    static func read(_ clock: ClockID) -> (seconds: Int64, nanoseconds: Int64) {
        clock.reading
    }

    /// The kernel's identifier of this boot (`/proc/sys/kernel/random/boot_id`).
    static let bootID: String = {
        let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
        return text?.trimmingWhitespace() ?? "unknown-boot"
    }()
}
