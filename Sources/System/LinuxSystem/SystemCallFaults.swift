#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Injected failures of system calls, for tests: the next calls of a named call fail with a
/// chosen `Errno` without reaching the kernel, a given number of times.
///
/// A fault applies to calls made on the thread that injected it, so tests running in parallel in
/// one process do not see each other's faults; `onAnyThread` makes it apply to every thread (for
/// code that makes the call on a thread of its own). Unused, it costs one relaxed atomic load per
/// call.
///
/// ```swift
/// SystemCallFaults.inject(.tooManyOpenFiles, into: .timerfdCreate, times: 2)
/// defer { SystemCallFaults.removeAll() }
/// #expect(throws: Errno.tooManyOpenFiles) { try FileDescriptor.timer(clock: .monotonic) }
/// ```
package enum SystemCallFaults {
    /// One injected failure and how many more calls it fails.
    private struct Fault {
        let call: SystemCall
        let errno: Errno
        var remaining: Int
        /// The thread that injected it.
        let owner: pthread_t
        let onAnyThread: Bool

        /// Whether a call on `thread` takes this fault.
        func applies(to call: SystemCall, on thread: pthread_t) -> Bool {
            self.call == call && remaining > 0 && (onAnyThread || pthread_equal(owner, thread) != 0)
        }
    }

    /// Whether any fault is injected: the only thing a call reads when none is.
    private static let armed = Atomic<Bool>(false)
    private static let faults = Mutex<[Fault]>([])

    /// Makes the next `times` calls of `call` on this thread (on every thread with `onAnyThread`)
    /// fail with `errno`; added to any fault already injected for it.
    package static func inject(_ errno: Errno, into call: SystemCall, times: Int = 1, onAnyThread: Bool = false) {
        guard times > 0 else { return }
        faults.withLock { faults in
            faults.append(Fault(call: call, errno: errno, remaining: times, owner: pthread_self(), onAnyThread: onAnyThread))
            armed.store(true, ordering: .releasing)
        }
    }

    /// How many calls of `call` on this thread are still to fail.
    package static func remaining(_ call: SystemCall) -> Int {
        let thread = pthread_self()
        return faults.withLock { faults in
            faults.filter { $0.applies(to: call, on: thread) }.reduce(0) { $0 + $1.remaining }
        }
    }

    /// Removes the faults this thread injected, taken or not.
    package static func removeAll() {
        let thread = pthread_self()
        faults.withLock { faults in
            faults.removeAll { pthread_equal($0.owner, thread) != 0 }
            armed.store(!faults.isEmpty, ordering: .releasing)
        }
    }

    /// Runs `body` with `errno` injected into the next `times` calls of `call` on this thread,
    /// and removes this thread's faults afterwards.
    package static func with<Result, Failure: Error>(
        _ errno: Errno, injectedInto call: SystemCall, times: Int = 1, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        inject(errno, into: call, times: times)
        defer { removeAll() }
        return try body()
    }

    /// The fault a call of `call` on this thread takes now, counting it; nil (after one atomic
    /// load, when nothing is injected) when the call is to reach the kernel.
    @inline(__always)
    static func take(_ call: SystemCall) -> Errno? {
        guard armed.load(ordering: .acquiring) else { return nil }
        return takeInjected(call)
    }

    /// The slow path of `take`: looks for a fault that applies and counts it.
    private static func takeInjected(_ call: SystemCall) -> Errno? {
        let thread = pthread_self()
        return faults.withLock { faults in
            guard let index = faults.firstIndex(where: { $0.applies(to: call, on: thread) }) else { return nil }
            faults[index].remaining -= 1
            let errno = faults[index].errno
            if faults[index].remaining == 0 { faults.remove(at: index) }
            armed.store(!faults.isEmpty, ordering: .releasing)
            return errno
        }
    }
}
