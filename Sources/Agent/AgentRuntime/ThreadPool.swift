import AlarmModel
import FoundationEssentials
import LinuxSystem

/// Threads that run work items in the order they come, and cost nothing while there are none.
///
/// A thread starts when an item finds none idle, up to `maximumThreads`, and then stays for the
/// life of the pool's process. Idle threads sleep on a condition variable (`pthread_cond_wait`),
/// never on a timeout, so an idle pool makes no wake-ups.
package final class ThreadPool<Work: Sendable>: @unchecked Sendable {  // safe: its mutable state only under `condition`
    // In full: `items`, `head`, `idle` and `started` are read and written only with `condition` locked; the rest is
    // immutable
    private let condition = ThreadCondition()
    private var items: [Work] = []
    private var head = 0
    private var idle = 0
    private var started = 0
    private let name: String
    private let maximumThreads: Int
    private let perform: @Sendable (Work) -> Void

    /// A pool whose threads are named `name` (as `top -H` and `perf` show it, cut to 15 bytes), at
    /// most `maximumThreads` of them, each running items with `perform`.
    package init(name: String, maximumThreads: Int, perform: @escaping @Sendable (Work) -> Void) {
        precondition(maximumThreads > 0, "A pool needs at least one thread")
        self.name = name
        self.maximumThreads = maximumThreads
        self.perform = perform
    }

    /// The threads started so far.
    package var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return started
    }

    /// Queues items to run, in order, as soon as threads are free.
    package func submit(_ batch: [Work]) {
        condition.lock()
        items.append(contentsOf: batch)
        let starting = max(0, min(batch.count - idle, maximumThreads - started))
        started += starting
        if idle > 0 { batch.count > 1 ? condition.broadcast() : condition.signal() }
        condition.unlock()
        for _ in 0..<starting { Threads.start(named: name) { [self] in run() } }
    }

    private func run() {
        condition.lock()
        while true {
            while head == items.count {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let item = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1_024 && head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            condition.unlock()
            perform(item)
            condition.lock()
        }
    }
}
