import Foundation
import LinuxSystem

/// A kernel timer read through a file descriptor: one wrapper over `timerfd_create`,
/// `timerfd_settime` and `read`.
///
/// Armed at an absolute instant of its clock, it becomes readable when the instant comes. A
/// `CLOCK_REALTIME` timer armed with `cancelOnSet` also becomes readable when the wall clock is
/// set, and its read then fails with `ECANCELED` (so does a `CLOCK_REALTIME_ALARM` one).
final class TimerFD: Sendable {
    /// The clocks a timer can follow: `LinuxSystem`'s (`CLOCK_REALTIME`, `CLOCK_BOOTTIME` and their
    /// `_ALARM` kinds, which wake a suspended machine and need `CAP_WAKE_ALARM`).
    typealias ClockID = LinuxSystem.ClockID

    /// What a read found.
    enum Expiry {
        /// The instant came.
        case expired
        /// The wall clock was set (`ECANCELED`).
        case clockWasSet
        /// Nothing yet (`EAGAIN`).
        case notYet
    }

    /// The timer's descriptor, owned.
    private let timer: FileDescriptor

    /// The descriptor, for waiting on.
    var descriptor: Int32 { timer.rawValue }

    /// Creates a non-blocking, close-on-exec timer on a clock (`timerfd_create`).
    init(clock: ClockID) throws {
        do {
            timer = try FileDescriptor.timer(clock: clock)
        } catch {
            throw POSIXError(error)
        }
    }

    /// Arms the timer at an absolute reading of its clock (`timerfd_settime` with
    /// `TFD_TIMER_ABSTIME`, and `TFD_TIMER_CANCEL_ON_SET` when `cancelOnSet`).
    /// An instant of zero would disarm the timer; the earliest armable instant is 1 ns.
    func arm(atSeconds seconds: Int64, nanoseconds: Int64, cancelOnSet: Bool) throws {
        do {
            try timer.armTimer(atSeconds: seconds, nanoseconds: nanoseconds, cancelOnSet: cancelOnSet)
        } catch {
            throw POSIXError(error)
        }
    }

    /// Blocks the calling thread until the timer is readable (`poll`; a signal does not end the
    /// wait).
    func waitUntilReadable() {
        var entries = [PollDescriptor(timer, events: .readable)]
        _ = try? FileDescriptor.poll(&entries, timeoutMilliseconds: -1)
    }

    /// Reads the expiry count (`read`), telling an expiry from a clock set.
    func read() -> Expiry {
        do {
            _ = try timer.readExpirations()
            return .expired
        } catch {
            return error == .canceled ? .clockWasSet : .notYet
        }
    }

    deinit { try? timer.close() }
}

/// Readings of the kernel's clocks (`clock_gettime`).
enum KernelClock {
    /// Seconds and nanoseconds of a clock.
    static func read(_ clock: TimerFD.ClockID) -> (seconds: Int64, nanoseconds: Int64) {
        clock.reading
    }

    /// The kernel's identifier of this boot (`/proc/sys/kernel/random/boot_id`).
    static let bootID: String = {
        let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
        return text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown-boot"
    }()
}
