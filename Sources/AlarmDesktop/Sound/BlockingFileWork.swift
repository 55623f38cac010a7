import Foundation
import Synchronization

/// File work that may block for good (a FIFO, a hung network mount), kept off the threads that
/// answer calls and ring alerts: each piece runs on a thread of its own, and its caller waits
/// no longer than a time limit.
///
/// A piece still blocked when its time is up keeps its thread until the file system lets go; at
/// most `maximumBlocked` such threads exist at once, and past that new work is refused at once
/// (the caller answers as for a file it cannot read).
public enum BlockingFileWork {
    /// How many pieces may run at once, blocked or not.
    public static let maximumRunning = 8
    private static let running = Atomic<Int>(0)

    /// Runs `body` on a thread of its own; its result, or nil when it did not finish within
    /// `timeout` or too many pieces are already running.
    public static func run<T: Sendable>(timeout: Duration, _ body: @escaping @Sendable () -> T) async -> T? {
        guard running.add(1, ordering: .relaxed).newValue <= maximumRunning else {
            running.subtract(1, ordering: .relaxed)
            return nil
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let waiting = Mutex<CheckedContinuation<T?, Never>?>(continuation)
            let thread = Thread {
                let result = body()
                running.subtract(1, ordering: .relaxed)
                waiting.withLock { $0.take() }?.resume(returning: result)
            }
            thread.name = "reveille-file"
            thread.start()
            let (seconds, attoseconds) = timeout.components
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))) {
                waiting.withLock { $0.take() }?.resume(returning: nil)
            }
        }
    }
}
