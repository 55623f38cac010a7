import FoundationEssentials
import Synchronization
import LinuxSystem
import Dispatch

/// Work that may block for good (a file on a FIFO or a hung network mount, a sound server that
/// does not answer), kept off the threads that answer calls and ring alerts: each piece runs on a thread of its own, and its caller waits
/// no longer than a time limit.
///
/// A piece still running when its time is up keeps its thread until the file system lets go; at
/// most `maximumBlocked` such pieces are left behind at once, and while that many are, new work
/// is refused at once (the caller answers as for a file it cannot read). Pieces that finish in
/// time do not count: two hundred alarms ringing at once each find their sound.
package enum BlockingFileWork {
    /// How many pieces given up on may still be running before new work is refused.
    package static let maximumBlocked = 8
    private static let blocked = Atomic<Int>(0)

    /// One piece: its waiting caller, until the piece or its time limit answers it, whether the
    /// time limit came first, and the signal that ends the time limit's wait when the piece
    /// finishes in time.
    private final class Piece<T: Sendable>: Sendable {
        let state: Mutex<(caller: CheckedContinuation<T?, Never>?, givenUp: Bool)>
        let finished = DispatchSemaphore(value: 0)
        init(_ caller: CheckedContinuation<T?, Never>) { state = Mutex((caller, false)) }
    }

    /// Runs `body` on a thread of its own; its result, or nil when it did not finish within
    /// `timeout` or too many earlier pieces are still blocked.
    ///
    /// The time limit is a second thread's timed wait, which the piece ends when it finishes in
    /// time: nothing of it is left to wake the process later. Not a libdispatch timer: its worker
    /// would start libdispatch's pool monitor, which then wakes the process every second for the
    /// rest of its life (issue 41: 60 wake-ups a minute after an alert with a sound); nor a
    /// sleeping task, whose cancelled sleep still wakes the agent's worker pool at its end.
    package static func run<T: Sendable>(timeout: Duration, _ body: @escaping @Sendable () -> T) async -> T? {
        guard blocked.load(ordering: .relaxed) < maximumBlocked else { return nil }
        return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let piece = Piece(continuation)
            Threads.start(named: "reveille-file") {
                let result = body()
                let caller = piece.state.withLock { piece -> CheckedContinuation<T?, Never>? in
                    if piece.givenUp { blocked.subtract(1, ordering: .relaxed) }
                    return piece.caller.take()
                }
                piece.finished.signal()
                caller?.resume(returning: result)
            }
            let (seconds, attoseconds) = timeout.components
            Threads.start(named: "reveille-file-limit") {
                guard piece.finished.wait(timeout: .now() + .nanoseconds(Int(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))) == .timedOut
                else { return }
                let caller = piece.state.withLock { piece -> CheckedContinuation<T?, Never>? in
                    guard let caller = piece.caller.take() else { return nil }
                    piece.givenUp = true
                    blocked.add(1, ordering: .relaxed)
                    return caller
                }
                caller?.resume(returning: nil)
            }
        }
    }
}
