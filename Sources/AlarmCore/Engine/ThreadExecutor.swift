import Foundation

/// A serial executor that runs its jobs, in order, on one thread of its own.
///
/// For an actor whose work blocks (a commit waits in `fdatasync`): on its own thread it never
/// holds one of the few threads that run tasks (the agent's worker pool). The thread sleeps on a condition
/// variable while there is nothing to run, so an idle executor never wakes up, and it ends once
/// `finish()` was called and the jobs queued before it have run.
final class ThreadExecutor: SerialExecutor, @unchecked Sendable {  // safe: `jobs` and `finished` are read and written only with `condition` locked; the rest is immutable
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    /// Starts the thread, named `name` (as `top -H` and `perf` show it, cut to 15 bytes).
    init(name: String) {
        Thread.start(named: name) { [self] in run() }
    }

    /// Queues a job; the thread runs it after every job queued before.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// How many jobs wait for the thread (for tests that need calls queued before going on).
    var queuedJobCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count
    }

    /// Lets the thread end once it has run what is queued.
    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        let executor = asUnownedSerialExecutor()
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
            for job in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
