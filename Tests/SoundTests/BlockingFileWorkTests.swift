import AgentRuntime
import AlarmDesktop
import Foundation
import Testing
import TestRequirements
import TestSupport

/// File work that may block for good runs on threads of its own, and its caller waits no longer
/// than its limit.
@Suite("Sound: blocking file work", .onItsOwnThread)
struct BlockingFileWorkTests {
    @Test(
        "A piece that finishes gives its result; one that blocks is given up at its limit, and its thread goes when unblocked",
        .timeLimit(.minutes(1)))
    func limit() async throws {
        #expect(await BlockingFileWork.run(timeout: .seconds(5)) { 42 } == 42)

        let (readEnd, writeEnd) = try Pipes.make()
        defer { close(readEnd); close(writeEnd) }
        let started = ContinuousClock.now
        // Blocks in read() until the pipe is written to, as open() on a FIFO or a hung mount would.
        let blocked = await BlockingFileWork.run(timeout: .milliseconds(300)) { () -> Int in
            var byte: UInt8 = 0
            return read(readEnd, &byte, 1)
        }
        let waited = ContinuousClock.now - started
        // Given up, not waited for: the read only ends once the pipe is written to, below.
        #expect(blocked == nil)
        #expect(waited >= .milliseconds(300), "waited \(waited)")
        #expect(write(writeEnd, "x", 1) == 1)

        // Many pieces that finish in time run at once.
        let many = await withTaskGroup(of: Int?.self) { group in
            for index in 0..<50 { group.addTask { await BlockingFileWork.run(timeout: .seconds(30)) { index } } }
            return await group.reduce(into: 0) { $0 += $1 == nil ? 0 : 1 }
        }
        #expect(many == 50)

        // At most eight given up on: with eight blocked, a ninth is refused at once; once they
        // are released, work runs again.
        let blockedPipes = try (0..<BlockingFileWork.maximumBlocked).map { _ in try Pipes.make() }
        defer { for (r, w) in blockedPipes { close(r); close(w) } }
        for (readEnd, _) in blockedPipes {
            let given = await BlockingFileWork.run(timeout: .milliseconds(20)) { () -> Int in
                var byte: UInt8 = 0
                return read(readEnd, &byte, 1)
            }
            #expect(given == nil)
        }
        #expect(await BlockingFileWork.run(timeout: .seconds(5)) { 1 } == nil, "a ninth piece ran while eight were blocked")
        for (_, writeEnd) in blockedPipes { #expect(write(writeEnd, "x", 1) == 1) }
        let ran = try await waitUntil("work to run again after the blocked pieces were released", every: .milliseconds(10)) {
            await BlockingFileWork.run(timeout: .seconds(5)) { 2 }
        }
        #expect(ran == 2)
    }
}
