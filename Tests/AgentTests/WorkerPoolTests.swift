import Foundation
import Synchronization
import Testing

@testable import AlarmAgent

#if canImport(Glibc)
import Glibc
#endif

/// The name of the thread the caller runs on.
private func threadName() -> String { Thread.current.name ?? "" }

/// A value many tasks change, behind a lock.
private final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func change(_ body: (inout Value) -> Void) { value.withLock { body(&$0) } }
    var current: Value { value.withLock { $0 } }
}

/// What the pool's threads did: the names and ids of the threads that ran jobs, and how many ran.
private struct Runs {
    var names: Set<String> = []
    var threads: Set<UInt> = []
    var count = 0

    mutating func record() {
        names.insert(threadName())
        threads.insert(UInt(pthread_self()))
        count += 1
    }
}

@Suite("WorkerPool: the agent's executor, in place of libdispatch's workers", .timeLimit(.minutes(1)))
struct WorkerPoolTests {
    /// One pool for the suite: a pool's threads stay for the life of the process, as the agent's do.
    static let pool = try! WorkerPool(name: "test-pool", maximumThreads: 3)

    @Test("jobs from many tasks run on the pool's named threads, each once, on no more threads than allowed")
    func everyJobOnThePool() async {
        let runs = Shared(Runs())
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask(executorPreference: Self.pool) {
                    for _ in 0..<250 {
                        runs.change { $0.record() }
                        await Task.yield()
                    }
                }
            }
        }
        let result = runs.current
        #expect(result.count == 2_000)
        #expect(result.names == ["test-pool"], "\(result.names)")
        #expect((1...3).contains(result.threads.count), "\(result.threads.count) threads")
    }

    @Test("the deadline thread hands items out soonest first, one already due at once, none before its deadline")
    func deadlinesInOrder() async throws {
        let (deliveries, delivered) = AsyncStream.makeStream(of: (item: Int, at: Duration).self)
        let thread = try DeadlineThread<Int>(name: "test-deadlines") { items in
            let now = DeadlineThread<Int>.now
            for item in items { delivered.yield((item, now)) }
        }
        defer { thread.finish() }
        let start = DeadlineThread<Int>.now
        // Later ones first: each earlier deadline must re-arm the timer.
        for milliseconds in [400, 100, 250, 30, -1_000] {
            thread.insert(milliseconds, at: start + .milliseconds(milliseconds))
        }
        var result: [(item: Int, at: Duration)] = []
        for await delivery in deliveries {
            result.append(delivery)
            if result.count == 5 { break }
        }
        #expect(result.map(\.item) == [-1_000, 30, 100, 250, 400])
        for delivery in result {
            #expect(delivery.at - start >= .milliseconds(delivery.item), "\(delivery.item) ms came after \(delivery.at - start)")
        }
    }
}
