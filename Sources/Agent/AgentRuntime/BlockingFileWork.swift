import Dispatch
import FoundationEssentials
import LinuxSystem
import Synchronization

/// Work that may block for good (a file on a FIFO or a hung network mount, a sound server that
/// does not answer), kept off the threads that answer calls and ring alerts: each piece runs on a
/// file thread, and its caller waits no longer than a time limit.
///
/// The file threads (`reveille-file`) are a pool: a thread starts when a piece finds none idle and
/// then stays, asleep while there is no work, so an alert after the first finds its sound without
/// starting a thread. So are the threads that keep the time limits (`reveille-file-limit`). A piece
/// still running when its time is up keeps its thread until the file system lets go; at most
/// `maximumBlocked` such pieces are left behind at once, and while that many are, new work is
/// refused at once (the caller answers as for a file it cannot read). Each pool has one thread more
/// than that, so that work is never queued behind blocked pieces alone. Pieces that finish in time
/// do not count: two hundred alarms ringing at once each find their sound.
package enum BlockingFileWork {
    /// How many pieces given up on may still be running before new work is refused.
    package static let maximumBlocked = 8
    private static let blocked = Atomic<Int>(0)
    private static let threads = ThreadPool<@Sendable () -> Void>(name: "reveille-file", maximumThreads: maximumBlocked + 1) { $0() }
    private static let limits = ThreadPool<@Sendable () -> Void>(name: "reveille-file-limit", maximumThreads: maximumBlocked + 1) { $0() }

    /// One piece: its waiting caller, until the piece or its time limit answers it, whether the
    /// time limit came first, and the signal that ends the time limit's wait when the piece
    /// finishes in time.
    private final class Piece<T: Sendable>: Sendable {
        let state: Mutex<(caller: CheckedContinuation<T?, Never>?, givenUp: Bool)>
        let finished = DispatchSemaphore(value: 0)
        init(_ caller: CheckedContinuation<T?, Never>) { state = Mutex((caller, false)) }
    }

    /// Runs `body` on a file thread; its result, or nil when it did not finish within `timeout` or
    /// too many earlier pieces are still blocked.
    ///
    /// The time limit is a limit thread's timed wait until a deadline fixed now, which the piece
    /// ends when it finishes in time: nothing of it is left to wake the process later. Not a
    /// libdispatch timer: its worker would start libdispatch's pool monitor, which then wakes the
    /// process every second for the rest of its life (issue 41: 60 wake-ups a minute after an alert
    /// with a sound); nor a sleeping task, whose cancelled sleep still wakes the agent's worker pool
    /// at its end.
    package static func run<T: Sendable>(timeout: Duration, _ body: @escaping @Sendable () -> T) async -> T? {
        guard blocked.load(ordering: .relaxed) < maximumBlocked else { return nil }
        let (seconds, attoseconds) = timeout.components
        let deadline = DispatchTime.now() + .nanoseconds(Int(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
        return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let piece = Piece(continuation)
            threads.submit([
                {
                    let result = body()
                    let caller = piece.state.withLock { piece -> CheckedContinuation<T?, Never>? in
                        if piece.givenUp { blocked.subtract(1, ordering: .relaxed) }
                        return piece.caller.take()
                    }
                    piece.finished.signal()
                    caller?.resume(returning: result)
                }
            ])
            limits.submit([
                {
                    guard piece.finished.wait(timeout: deadline) == .timedOut else { return }
                    let caller = piece.state.withLock { piece -> CheckedContinuation<T?, Never>? in
                        guard let caller = piece.caller.take() else { return nil }
                        piece.givenUp = true
                        blocked.add(1, ordering: .relaxed)
                        return caller
                    }
                    caller?.resume(returning: nil)
                }
            ])
        }
    }
}
