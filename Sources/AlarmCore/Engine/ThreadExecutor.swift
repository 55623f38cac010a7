/// A serial executor that runs its jobs, in order, on one thread of its own.
///
/// For an actor whose work blocks (a commit waits in `fdatasync`): on its own thread it never
/// holds one of the few threads of the worker pool. It is a ``ThreadPool`` of one thread, which
/// sleeps while there is nothing to run, so an idle executor never wakes up, and which ends once
/// `finish()` was called and the jobs queued before it have run.
final class ThreadExecutor: SerialExecutor {
    /// A job and the executor it runs as.
    private struct Job: Sendable {
        var job: UnownedJob
        var executor: UnownedSerialExecutor
    }

    private let thread: ThreadPool<Job>

    /// An executor whose thread is named `name` (cut to 15 bytes).
    init(name: String) {
        thread = ThreadPool(name: name, maximumThreads: 1) { $0.job.runSynchronously(on: $0.executor) }
    }

    /// Queues a job; the thread runs it after every job queued before.
    func enqueue(_ job: consuming ExecutorJob) {
        thread.submit([Job(job: UnownedJob(job), executor: asUnownedSerialExecutor())])
    }

    /// Lets the thread end once it has run what is queued.
    func finish() { thread.finish() }
}
