import AlarmDesktop
import Foundation
import Testing
import TestSupport

/// File work that may block for good runs on threads of its own, and its caller waits no longer
/// than its limit.
@Suite("Sound: blocking file work")
struct BlockingFileWorkTests {
    @Test("A piece that finishes gives its result; one that blocks is given up at its limit, and its thread goes when unblocked", .timeLimit(.minutes(1)))
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
        // The released thread frees its place: eight more pieces can run.
        try await Task.sleep(for: .milliseconds(100))
        var results: [Int?] = []
        for index in 0..<BlockingFileWork.maximumRunning { results.append(await BlockingFileWork.run(timeout: .seconds(5)) { index }) }
        #expect(results == (0..<BlockingFileWork.maximumRunning).map { $0 })
    }
}
