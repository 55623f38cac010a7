import AlarmAgent
import Foundation
import Synchronization
import Testing
import TestSupport

/// What the media player's bus name and the idle inhibitor are held with: taken while alarms ring,
/// given back when none does, one call at a time, a refusal asked again only at the next ringing.
@Suite("Agent: something held while alarms ring")
struct RingingHoldTests {
    /// A service that hands out numbered holds and records each call, and whose takes wait until
    /// the test lets them answer.
    final class Service: Sendable {
        let calls = Mutex<[String]>([])
        let gate = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((true, []))
        let refuses = Mutex(false)
        let counter = Mutex(0)

        func take() async -> Int? {
            await withCheckedContinuation { continuation in
                let run = gate.withLock { gate in
                    if gate.open { return true }
                    gate.waiting.append(continuation)
                    return false
                }
                if run { continuation.resume() }
            }
            if refuses.withLock({ $0 }) {
                calls.withLock { $0.append("refused") }
                return nil
            }
            let number = counter.withLock { counter in
                counter += 1
                return counter
            }
            calls.withLock { $0.append("take \(number)") }
            return number
        }

        func release(_ number: Int) async {
            calls.withLock { $0.append("release \(number)") }
        }

        /// Makes takes wait (`false`) or lets them and those waiting answer (`true`).
        func setOpen(_ open: Bool) {
            let waiting = gate.withLock { gate in
                gate.open = open
                defer { gate.waiting = open ? [] : gate.waiting }
                return open ? gate.waiting : []
            }
            for continuation in waiting { continuation.resume() }
        }

        func hold() -> RingingHold<Int> {
            RingingHold(take: { await self.take() }, release: { await self.release($0) })
        }

        /// Waits until a take is under way, held at the closed gate.
        func waitForWaitingTake() async throws {
            try await waitUntil("a take to be under way", timeout: .seconds(10)) {
                gate.withLock { $0.waiting.isEmpty } ? nil : ()
            }
        }

        func waitForCalls(_ expected: [String]) async throws {
            try await waitUntil("the calls \(expected)", timeout: .seconds(10), detail: { "calls: \(self.calls.withLock { $0 })" }) {
                calls.withLock { $0 } == expected ? () : nil
            }
        }
    }

    @Test("Taken when needed, given back when not; a need that ends while the take is under way gives it back once it returns")
    func takesAndGivesBack() async throws {
        let service = Service()
        let hold = service.hold()
        hold.setNeeded(true)
        try await service.waitForCalls(["take 1"])
        #expect(hold.held == 1)
        hold.setNeeded(true)
        hold.setNeeded(false)
        try await service.waitForCalls(["take 1", "release 1"])
        #expect(hold.held == nil)

        service.setOpen(false)
        hold.setNeeded(true)
        try await service.waitForWaitingTake()
        hold.setNeeded(false)
        hold.setNeeded(true)
        hold.setNeeded(false)
        service.setOpen(true)
        try await service.waitForCalls(["take 1", "release 1", "take 2", "release 2"])
        try await Task.sleep(for: .milliseconds(100))
        #expect(service.calls.withLock { $0 }.count == 4, "one take and one release for a need that came and went twice during the take")
        #expect(hold.held == nil)
    }

    @Test("A refused take is asked again only once the need has ended and come back")
    func refusalWaitsForTheNextRinging() async throws {
        let service = Service()
        service.refuses.withLock { $0 = true }
        let hold = service.hold()
        hold.setNeeded(true)
        try await service.waitForCalls(["refused"])
        hold.setNeeded(true)
        try await Task.sleep(for: .milliseconds(100))
        #expect(service.calls.withLock { $0 } == ["refused"], "not asked again while the same alarms ring")
        service.refuses.withLock { $0 = false }
        hold.setNeeded(false)
        hold.setNeeded(true)
        try await service.waitForCalls(["refused", "take 1"])
        #expect(hold.held == 1)
    }

    @Test("Closing gives back what is held before it returns, and nothing is taken after")
    func closeGivesBack() async throws {
        let service = Service()
        let hold = service.hold()
        hold.setNeeded(true)
        try await service.waitForCalls(["take 1"])
        await hold.close()
        #expect(service.calls.withLock { $0 } == ["take 1", "release 1"])
        hold.setNeeded(true)
        try await Task.sleep(for: .milliseconds(100))
        #expect(service.calls.withLock { $0 } == ["take 1", "release 1"])
        #expect(hold.held == nil)
    }
}
