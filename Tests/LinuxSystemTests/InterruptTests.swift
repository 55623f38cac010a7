import Foundation
import LinuxSystem
import Synchronization
import Testing

/// How many SIGUSR1 this process has handled.
private let handledSignals = Atomic<Int>(0)

/// A wait in these tests that ran out of time, naming what it awaited.
private struct TimedOut: Error, CustomStringConvertible {
    var description: String
}

/// Waits on `semaphore` up to `timeout`; throws naming `what` when it runs out.
private func wait(_ semaphore: DispatchSemaphore, for what: String, timeout: Duration = .seconds(10)) throws {
    guard semaphore.wait(timeout: .now() + .nanoseconds(Int(timeout / .nanoseconds(1)))) == .success else {
        throw TimedOut(description: "waited \(timeout) for \(what)")
    }
}

/// A read blocked on an empty pipe, hit by a signal whose handler was installed without
/// `SA_RESTART`: the kernel ends the read with `EINTR`, and the wrapper reads again.
@Suite("Interrupted calls", .serialized)
struct InterruptTests {
    /// What the reader thread found.
    private enum Outcome: Sendable, Equatable {
        case data([UInt8])
        case failed(Int32)
    }

    init() {
        // A no-op handler, and no SA_RESTART: an interrupted read fails with EINTR.
        var action = sigaction()
        action.__sigaction_handler = .init(sa_handler: { _ in handledSignals.add(1, ordering: .relaxed) })
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGUSR1, &action, nil)
    }

    @Test("the signal does end a raw read with EINTR (the setting the wrapper is tested in)")
    func rawReadIsInterrupted() throws {
        let outcome = try readInterrupted { readEnd, buffer in
            let count = Glibc.read(readEnd.rawValue, buffer.baseAddress, buffer.count)
            return count < 0 ? .failed(errno) : .data(Array(buffer.prefix(count)))
        }
        #expect(outcome == .failed(EINTR))
    }

    @Test("the wrapper's read is retried after the signal and returns the data written later")
    func wrappedReadIsRetried() throws {
        let outcome = try readInterrupted { readEnd, buffer in
            do throws(Errno) {
                let count = try readEnd.read(into: UnsafeMutableRawBufferPointer(buffer))
                return .data(Array(buffer.prefix(count)))
            } catch {
                return .failed(error.rawValue)
            }
        }
        #expect(outcome == .data(Array("wake up".utf8)))
    }

    /// Starts a thread that blocks in `read` (as `body` makes it) on an empty pipe, interrupts it
    /// with SIGUSR1 once it sleeps in the call, then, once the handler has run and the thread
    /// sleeps in `read` again or has returned, writes "wake up" and returns what the thread read.
    private func readInterrupted(
        _ body: @escaping @Sendable (FileDescriptor, UnsafeMutableBufferPointer<UInt8>) -> Outcome
    ) throws -> Outcome {
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        defer { try? readEnd.close(); try? writeEnd.close() }
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let reader = Mutex<(thread: pthread_t, task: String)?>(nil)
        let outcome = Mutex<Outcome?>(nil)
        let thread = Thread {
            // Threads made from the cooperative pool's (dispatch's) start with signals blocked.
            var usr1 = sigset_t()
            sigemptyset(&usr1)
            sigaddset(&usr1, SIGUSR1)
            pthread_sigmask(SIG_UNBLOCK, &usr1, nil)
            let task = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
            reader.withLock { $0 = (pthread_self(), task) }
            started.signal()
            var buffer = [UInt8](repeating: 0, count: 64)
            let result = buffer.withUnsafeMutableBufferPointer { body(readEnd, $0) }
            outcome.withLock { $0 = result }
            finished.signal()
        }
        thread.start()
        try wait(started, for: "the reader thread to start")
        let (pthread, task) = try #require(reader.withLock { $0 })
        try #require(task.contains("/task/"))

        try Self.waitUntilBlockedInRead(task: task)
        let before = handledSignals.load(ordering: .relaxed)
        #expect(pthread_kill(pthread, SIGUSR1) == 0)
        try Self.waitUntil("the SIGUSR1 handler to run") { handledSignals.load(ordering: .relaxed) > before }

        // The raw read has returned by now or soon; the wrapper's sleeps in read again.
        if finished.wait(timeout: .now() + .milliseconds(200)) == .success {
            return try #require(outcome.withLock { $0 })
        }
        try Self.waitUntilBlockedInRead(task: task)
        _ = try Array("wake up".utf8).withUnsafeBytes { bytes in try writeEnd.write(bytes) }
        try wait(finished, for: "the reader thread to read \"wake up\"")
        return try #require(outcome.withLock { $0 })
    }

    /// Waits (up to 10 s) until the thread `task` (`PID/task/TID`) sleeps in `read(2)`, as
    /// `/proc/…/stat` (state S) and `/proc/…/syscall` (the call's number) tell; throws when it
    /// does not.
    private static func waitUntilBlockedInRead(task: String) throws {
        #if arch(x86_64)
        let readNumber = "0"
        #elseif arch(arm64)
        let readNumber = "63"
        #endif
        try waitUntil("thread \(task) to sleep in read(2)") {
            let stat = (try? String(contentsOfFile: "/proc/\(task)/stat", encoding: .utf8)) ?? ""
            let state = stat.split(separator: ")").last?.split(separator: " ").first
            let call = (try? String(contentsOfFile: "/proc/\(task)/syscall", encoding: .utf8))?.split(separator: " ").first
            return state == "S" && (call.map({ $0 == readNumber }) ?? true)
        }
    }

    /// Checks `condition` every millisecond until it holds; throws naming `what` after `timeout`.
    private static func waitUntil(_ what: String, timeout: Duration = .seconds(10), _ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut(description: "waited \(timeout) for \(what)") }
            usleep(1_000)
        }
    }
}
