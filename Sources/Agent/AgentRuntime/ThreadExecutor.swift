import AlarmModel
import FoundationEssentials
import LinuxSystem

/// A serial executor that runs its jobs, in order, on one thread of its own; also a task executor
/// for that thread.
///
/// For an actor whose work blocks (a commit waits in `fdatasync`): on its own thread it never
/// holds one of the few threads that run tasks (the agent's worker pool). The thread sleeps on a condition
/// variable while there is nothing to run, so an idle executor never wakes up, and it ends once
/// `finish()` was called and the jobs queued before it have run.
///
/// A task that prefers it as its task executor (`Task(executorPreference:)`) runs its nonisolated
/// parts on the same thread: the engine's wait for its next deadline resumes there, so the hop
/// from the wait to the engine is a job on the same thread, not a wake-up of another.
package final class ThreadExecutor: SerialExecutor, TaskExecutor, Sendable {
    private let thread: JobThread

    /// Starts the thread, named `name` (as `top -H` and `perf` show it, cut to 15 bytes).
    package init(name: String) {
        thread = JobThread()
        // The thread keeps the executor (its job runner holds it), so a late job still finds it.
        thread.start(named: name) { job in
            job.runSynchronously(isolatedTo: self.asUnownedSerialExecutor(), taskExecutor: self.asUnownedTaskExecutor())
        }
    }

    /// Queues a job; the thread runs it after every job queued before.
    package func enqueue(_ job: consuming ExecutorJob) { thread.enqueue(UnownedJob(job)) }

    /// How many jobs wait for the thread (for tests that need calls queued before going on).
    package var queuedJobCount: Int { thread.queuedJobCount }

    /// Lets the thread end once it has run what is queued.
    package func finish() { thread.finish() }
}

/// A task executor that runs its jobs, in order, on one thread of its own: tasks that prefer it
/// (`withTaskExecutorPreference`) run their synchronous parts there, off the cooperative pool.
/// The test suites' `.onItsOwnThread` trait gives each test one.
package final class ThreadTaskExecutor: TaskExecutor, Sendable {
    private let thread: JobThread

    /// Starts the thread, named `name`.
    package init(name: String) {
        thread = JobThread()
        thread.start(named: name) { job in job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Queues a job; the thread runs it after every job queued before.
    package func enqueue(_ job: consuming ExecutorJob) { thread.enqueue(UnownedJob(job)) }

    /// Lets the thread end once it has run what is queued.
    package func finish() { thread.finish() }
}

/// One thread that runs queued jobs in order, sleeping on a condition variable while there are
/// none, and ending once `finish()` was called and what was queued before has run. A job queued
/// after that (a task that outlived the executor's use) runs on a thread made for it alone, so
/// that it still runs. The job runner is kept for that (an executor and its runner hold each other
/// for good: a few small objects for each engine or test, against a job that never runs).
private final class JobThread: @unchecked Sendable {  // safe: its mutable state only under `condition`
    // In full: `jobs`, `finished` and `runJob` are read and written only with `condition` locked (`runJob` once,
    // before any job)
    private let condition = ThreadCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false
    private var runJob: (@Sendable (UnownedJob) -> Void)?

    /// Starts the thread, which runs each job with `runJob`.
    func start(named name: String, _ runJob: @escaping @Sendable (UnownedJob) -> Void) {
        condition.lock()
        self.runJob = runJob
        condition.unlock()
        Threads.start(named: name) { [self] in run(runJob) }
    }

    func enqueue(_ job: UnownedJob) {
        condition.lock()
        defer { condition.unlock() }
        guard !finished else {
            if let runJob { Threads.start(named: "late-job") { runJob(job) } }
            return
        }
        jobs.append(job)
        condition.signal()
    }

    var queuedJobCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count
    }

    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func run(_ runJob: (UnownedJob) -> Void) {
        var batch: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch { runJob(job) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
