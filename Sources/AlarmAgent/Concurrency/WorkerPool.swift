@_spi(ExperimentalScheduling) import _Concurrency
import Foundation
import Synchronization

/// A task executor of a few threads that cost nothing while there is nothing to run.
///
/// Swift's default executor on Linux runs jobs on libdispatch's worker threads, and once one of
/// them has run, libdispatch's pool monitor wakes the process every second for the rest of its
/// life. This pool's threads sleep on a condition variable while there is no job, and a job due
/// later (`Task.sleep`) waits on a ``DeadlineThread``, so an idle process makes no wake-ups.
///
/// Threads start when a job finds none idle, up to `maximumThreads`, and then stay. Jobs run in
/// the order they came, whatever their priority.
final class WorkerPool: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    // Safe: `jobs`, `head`, `idle` and `threads` are read and written only with `condition` locked;
    // the rest is immutable (and `delayed` is Sendable).
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var head = 0
    private var idle = 0
    private var threads = 0
    private let name: String
    private let maximumThreads: Int
    private let delayed: DeadlineThread<UnownedJob>

    /// A pool whose threads are named `name` (cut to 15 bytes), at most `maximumThreads` of them.
    init(name: String, maximumThreads: Int) throws {
        precondition(maximumThreads > 0, "A pool needs at least one thread")
        self.name = name
        self.maximumThreads = maximumThreads
        // The deadline thread hands due jobs back to the pool, which it can name only once `self`
        // exists. (The two keep each other: a pool lives as long as the process, like its threads.)
        let pool = Mutex<WorkerPool?>(nil)
        self.delayed = try DeadlineThread(name: "\(name)-timer") { jobs in
            pool.withLock { $0 }?.enqueue(jobs)
        }
        pool.withLock { $0 = self }
    }

    /// Queues a job to run as soon as a thread is free.
    func enqueue(_ job: consuming ExecutorJob) {
        enqueue([UnownedJob(job)])
    }

    /// Queues a job to run once `instant` of `clock` has come.
    ///
    /// The wait counts on the boot clock from now, so it goes on through suspend and is not moved
    /// by a wall-clock set. A clock whose durations are not `Duration` runs the job at once.
    func enqueue<C: Clock>(
        _ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C
    ) {
        let job = UnownedJob(job)
        guard let delay = clock.now.duration(to: instant) as? Duration, delay > .zero else {
            return enqueue([job])
        }
        delayed.insert(job, at: DeadlineThread<UnownedJob>.now + delay)
    }

    private func enqueue(_ batch: [UnownedJob]) {
        condition.lock()
        jobs.append(contentsOf: batch)
        let startThreads = max(0, min(batch.count - idle, maximumThreads - threads))
        threads += startThreads
        if idle > 0 { batch.count > 1 ? condition.broadcast() : condition.signal() }
        condition.unlock()
        for _ in 0..<startThreads {
            Thread { [self] in
                // Named from inside: on Linux a new thread carries its creator's name until then.
                Thread.current.name = name
                run()
            }.start()
        }
    }

    private func run() {
        let executor = asUnownedTaskExecutor()
        condition.lock()
        while true {
            while head == jobs.count {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1_024 && head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: executor)
            condition.lock()
        }
    }
}
