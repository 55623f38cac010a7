import FoundationEssentials
import Synchronization
import LinuxSystem
import Dispatch

/// File work that may block for good (a FIFO, a hung network mount), kept off the threads that
/// answer calls and ring alerts: each piece runs on a thread of its own, and its caller waits
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

    /// One piece: its waiting caller, until the piece or its time limit answers it, and whether
    /// the time limit came first.
    private final class Piece<T: Sendable>: Sendable {
        let state: Mutex<(caller: CheckedContinuation<T?, Never>?, givenUp: Bool)>
        init(_ caller: CheckedContinuation<T?, Never>) { state = Mutex((caller, false)) }
    }

    /// Runs `body` on a thread of its own; its result, or nil when it did not finish within
    /// `timeout` or too many earlier pieces are still blocked.
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
                caller?.resume(returning: result)
            }
            let (seconds, attoseconds) = timeout.components
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))) {
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
