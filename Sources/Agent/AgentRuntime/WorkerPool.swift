@_spi(ExperimentalScheduling) import _Concurrency
import AlarmModel
import FoundationEssentials

/// A task executor of a few threads that cost nothing while there is nothing to run.
///
/// Swift's default executor on Linux runs jobs on libdispatch's worker threads, and once one of
/// them has run, libdispatch's pool monitor wakes the process every second for the rest of its
/// life. This executor runs jobs on a ``ThreadPool``, whose threads sleep while there is no job,
/// and a job due later (`Task.sleep`) waits on a ``DeadlineTimer`` (one timerfd on the agent's
/// event loop), so an idle process makes no wake-ups. Jobs run in the order they came, whatever their priority.
final class WorkerPool: TaskExecutor, SchedulingExecutor {
    /// A job and the executor it runs as.
    private struct Job: Sendable {
        var job: UnownedJob
        var executor: UnownedTaskExecutor

        func run() { job.runSynchronously(on: executor) }
    }

    private let threads: ThreadPool<Job>
    private let delayed: DeadlineTimer<Job>

    /// A pool whose threads are named `name` (cut to 15 bytes), at most `maximumThreads` of them.
    init(name: String, maximumThreads: Int) throws {
        let threads = ThreadPool<Job>(name: name, maximumThreads: maximumThreads) { $0.run() }
        self.threads = threads
        self.delayed = try DeadlineTimer { threads.submit($0) }
    }

    /// Queues a job to run as soon as a thread is free.
    func enqueue(_ job: consuming ExecutorJob) {
        threads.submit([Job(job: UnownedJob(job), executor: asUnownedTaskExecutor())])
    }

    /// Queues a job to run once `instant` of `clock` has come.
    ///
    /// The wait counts on the boot clock from now, so it goes on through suspend and is not moved
    /// by a wall-clock set. A clock whose durations are not `Duration` runs the job at once.
    func enqueue<C: Clock>(
        _ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C
    ) {
        let job = Job(job: UnownedJob(job), executor: asUnownedTaskExecutor())
        guard let delay = clock.now.duration(to: instant) as? Duration, delay > .zero else {
            return threads.submit([job])
        }
        delayed.insert(job, at: DeadlineTimer<Job>.now + delay)
    }
}
