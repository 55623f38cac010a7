import Foundation
import Testing

/// A test, or every test of a suite, whose synchronous parts run on a thread of its own instead of
/// the cooperative pool.
///
/// Swift Testing runs a process's tests in parallel on the cooperative pool, one thread per core
/// (two here). A test that starts a sandbox, waits for a process or scans `/proc` without
/// awaiting holds one of those threads meanwhile, and two such tests held every other test of the
/// process back: the suite's stalls of 35 s and more at its busy start, after which waits that
/// are ample on a quiet machine timed out. With this trait each test case runs with a task
/// executor preference for a thread made for it (`withTaskExecutorPreference`), so its blocking
/// calls block only that thread. Child tasks inherit the preference; unstructured tasks
/// (`Task { }`) run on the pool as before.
public struct OwnThread: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test of a suite.
    public var isRecursive: Bool { true }

    /// Runs each test case with a thread of its own as its preferred executor.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope only runs its tests; each test case gets its thread.
        guard testCase != nil else { return try await function() }
        let thread = TestThreadExecutor()
        defer { thread.finish() }
        try await withTaskExecutorPreference(thread) { try await function() }
    }
}

extension Trait where Self == OwnThread {
    /// Each test runs its synchronous parts on a thread of its own (see `OwnThread`).
    public static var onItsOwnThread: Self { OwnThread() }
}

/// A task executor that runs its jobs, in order, on one thread made for it.
final class TestThreadExecutor: TaskExecutor, @unchecked Sendable {  // safe: `jobs` and `finished` are read and written only with `condition` locked
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    /// Starts the thread.
    init() {
        Thread.detachNewThread { [self] in run() }
    }

    /// Queues a job for the thread; after `finish()` (a job of a task that outlived its test), a
    /// thread is made for the job alone, so that it still runs.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        defer { condition.unlock() }
        guard !finished else {
            let executor = asUnownedTaskExecutor()
            Thread.detachNewThread { job.runSynchronously(on: executor) }
            return
        }
        jobs.append(job)
        condition.signal()
    }

    /// Lets the thread end once it has run what is queued.
    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            let batch = jobs
            jobs.removeAll()
            let done = finished && batch.isEmpty
            condition.unlock()
            if done { return }
            for job in batch { job.runSynchronously(on: executor) }
        }
    }
}
