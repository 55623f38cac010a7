import Synchronization
import Testing
import TestRequirements

import AgentRuntime
import LinuxSystem
import TestSupport

@Suite("EventLoop: the agent's one thread that waits for descriptors")
struct EventLoopTests {
    /// A watched event counter: the names of the threads its handler ran on, one per run.
    private final class WatchedCounter: Sendable {
        /// What the handler keeps: a class of its own, so the handler holds it and not the counter.
        final class Runs: Sendable {
            let names = Mutex<[String]>([])
            let ran: AsyncStream<Void>
            let continuation: AsyncStream<Void>.Continuation
            init() { (ran, continuation) = AsyncStream.makeStream(of: Void.self) }
        }

        let descriptor: FileDescriptor
        let runs = Runs()
        let watch: EventLoop.Watch

        init(cancelsItself: Bool = false) throws {
            let descriptor = try FileDescriptor.eventCounter()
            let runs = self.runs
            let ownWatch = Own()
            self.descriptor = descriptor
            watch = try EventLoop.shared.watchReadable(descriptor) {
                _ = try? descriptor.takeEvents()
                runs.names.withLock { $0.append(currentThreadName()) }
                if cancelsItself { ownWatch.cancel() }
                runs.continuation.yield()
            }
            ownWatch.set(watch)
        }

        /// The watch, for its own handler to cancel.
        final class Own: Sendable {
            private let watch: Mutex<EventLoop.Watch?>
            init() { watch = Mutex(nil) }
            func set(_ value: EventLoop.Watch) { watch.withLock { $0 = value } }
            func cancel() { watch.withLock { $0 }?.cancel() }
        }

        var count: Int { runs.names.withLock { $0.count } }
        var names: [String] { runs.names.withLock { $0 } }
        func signal() throws { try descriptor.signalEvent() }

        deinit {
            watch.cancel()
            try? descriptor.close()
        }
    }

    @Test(
        "A readable descriptor runs its handler on reveille-events, once each time it is made readable and read empty; cancelled, never again"
    )
    func runsUntilCancelled() async throws {
        let first = try WatchedCounter()
        var firstRan = first.runs.ran.makeAsyncIterator()
        try first.signal()
        _ = await firstRan.next()
        try first.signal()
        _ = await firstRan.next()
        #expect(first.names == ["reveille-events", "reveille-events"])

        first.watch.cancel()
        // Made readable after the cancel and before a second counter: had the first still been
        // watched, the loop would have run it before or with the second.
        try first.signal()
        let second = try WatchedCounter()
        var secondRan = second.runs.ran.makeAsyncIterator()
        try second.signal()
        _ = await secondRan.next()
        #expect(second.names == ["reveille-events"])
        #expect(first.count == 2, "a cancelled watch's handler ran again")
    }

    @Test("A handler may cancel its own watch: it runs once, and the loop goes on serving the others")
    func cancelsItself() async throws {
        let once = try WatchedCounter(cancelsItself: true)
        var onceRan = once.runs.ran.makeAsyncIterator()
        try once.signal()
        _ = await onceRan.next()
        try once.signal()
        let other = try WatchedCounter()
        var otherRan = other.runs.ran.makeAsyncIterator()
        try other.signal()
        _ = await otherRan.next()
        #expect(once.count == 1)
        #expect(other.count == 1)
    }
}
