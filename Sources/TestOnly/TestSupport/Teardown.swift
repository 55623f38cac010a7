import Foundation

/// Ending what a test started, on threads of its own, so that no test holds a cooperative thread
/// while processes end.
///
/// Swift Testing runs a process's tests in parallel on the cooperative pool, which has one thread
/// per core (two here). A `defer` cannot await, so a synchronous `stop()` in an async test's
/// `defer` blocks a pool thread for as long as its processes take to end and `/proc` takes to
/// scan; two such stops at once held every test of the process back (the suite's "35 s start
/// stall", and the waits that then timed out). `run(_:)` hands the work to a thread of its own and
/// returns; the test process waits for every teardown (up to `exitWaitLimit`) before it exits, so
/// nothing a test started outlives the run.
package enum Teardown {
    /// The longest the exiting test process waits for teardowns still running.
    package static let exitWaitLimit: Duration = .seconds(60)

    private static let running = DispatchGroup()

    /// Registers, once, the wait for running teardowns at process exit.
    private static let waitsAtExit: Void = {
        atexit { _ = Teardown.waitForAll(timeout: Teardown.exitWaitLimit) }
    }()

    /// Runs `work` on a thread of its own and returns at once.
    package static func run(_ work: @escaping @Sendable () -> Void) {
        _ = waitsAtExit
        running.enter()
        Thread.detachNewThread {
            work()
            running.leave()
        }
    }

    /// Waits until every teardown started so far has finished; false when `timeout` passed first.
    @discardableResult
    package static func waitForAll(timeout: Duration) -> Bool {
        running.wait(timeout: .now() + .nanoseconds(Int(timeout / .nanoseconds(1)))) == .success
    }
}
