@testable import AgentRuntime
import AlarmCore
import AlarmModel
import Foundation
import TestSupport
import Testing
import TestRequirements

@testable import AlarmAgent

#if canImport(Glibc)
import Glibc
#endif

/// The name of the thread the caller runs on.
private func threadName() -> String { currentThreadName() }

/// What the pool's threads did: the items they ran, and the names and ids of the threads.
private struct Runs {
    var items: [Int] = []
    var names: Set<String> = []
    var threads: Set<UInt> = []
}

@Suite("The agent's worker pool: threads and timer in place of libdispatch's workers", .onItsOwnThread, .timeLimit(.minutes(1)))
struct WorkerPoolTests {
    @Test("items from many submitters run on the pool's named threads, each once, on no more threads than allowed", .timeLimit(.minutes(2)))
    func everyItemOnThePool() async {
        let (finished, finish) = AsyncStream.makeStream(of: Void.self)
        let runs = Shared(Runs())
        // One pool for the run: a pool's threads stay for the life of the process, as the agent's do.
        let pool = ThreadPool<Int>(name: "test-pool", maximumThreads: 3) { item in
            let name = threadName()
            runs.change { runs in
                runs.items.append(item)
                runs.names.insert(name)
                runs.threads.insert(UInt(pthread_self()))
                if runs.items.count == 2_000 { finish.finish() }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for submitter in 0..<8 {
                group.addTask {
                    for step in stride(from: 0, to: 250, by: 5) {
                        pool.submit((step..<step + 5).map { submitter * 1_000 + $0 })
                    }
                }
            }
        }
        for await _ in finished {}
        let result = runs.value
        #expect(result.items.count == 2_000)
        #expect(Set(result.items).count == 2_000)
        #expect(result.names == ["test-pool"], "\(result.names)")
        #expect((1...3).contains(result.threads.count), "\(result.threads.count) threads")
        // A thread started for an item may find it taken by then: it runs none, but it is counted.
        #expect((result.threads.count...3).contains(pool.threadCount), "\(pool.threadCount) started")
    }

    @Test("the deadline timer hands items out soonest first, one already due at once, none before its deadline", .timeLimit(.minutes(2)))
    func deadlinesInOrder() async throws {
        let (deliveries, delivered) = AsyncStream.makeStream(of: (item: Int, at: Duration).self)
        let thread = try DeadlineTimer<Int> { items in
            let now = DeadlineTimer<Int>.now
            for item in items { delivered.yield((item, now)) }
        }
        defer { thread.finish() }
        let start = DeadlineTimer<Int>.now
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
