@testable import AlarmCore
import AlarmModel
import AlarmPresentation
import AlarmRecords
import Dispatch
import Foundation
import Synchronization
import Testing
import TestRequirements
import TestSupport

/// Group commit: `schedule` calls that come while a change is being written are stored together,
/// in the next transaction, each checked as if they had come one after another. A real store; the
/// store's fault hook holds the first transaction open so that the others queue up behind it.
/// Serialized: each test holds a thread of the cooperative pool (the engine's, writing) meanwhile.
@Suite("Engine: group commit", .onItsOwnThread, .serialized, .timeLimit(.minutes(2)))
struct GroupCommitTests {
    /// The statements of each transaction, counted by the store's fault hook; the first one is
    /// held until `release()`, and a transaction may be made to fail at a statement.
    final class Transactions: Sendable {
        private struct State {
            var statements: [Int] = []
            var holding = true
        }
        private let state = Mutex(State())
        private let held = DispatchSemaphore(value: 0)
        private let entered = DispatchSemaphore(value: 0)
        /// The transaction (0-based) and statement at which writing fails; `nil` for never.
        let failing: (transaction: Int, statement: Int)?

        init(failing: (transaction: Int, statement: Int)? = nil) { self.failing = failing }

        /// The hook for `AlarmStore(faultInjector:)`.
        func wrote(_ statement: Int) throws {
            let (transaction, hold) = state.withLock { state -> (Int, Bool) in
                if statement == 1 { state.statements.append(0) }
                state.statements[state.statements.count - 1] = statement
                return (state.statements.count - 1, transaction0(state))
            }
            if hold {
                entered.signal()
                held.wait()
            }
            if let failing, failing.transaction == transaction, failing.statement == statement {
                throw StoreError.cannotCreate("injected failure")
            }
        }

        private func transaction0(_ state: State) -> Bool { state.holding && state.statements.count == 1 && state.statements[0] == 1 }

        /// Waits (off the cooperative pool) until the first transaction is being written; throws
        /// after `timeout`.
        func waitUntilHolding(timeout: Duration = .seconds(30)) async throws {
            let entered = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(returning: self.entered.wait(timeout: .now() + timeout.timeInterval) == .success)
                }
            }
            if !entered { throw SandboxError.timeout("waited \(timeout) for the first transaction to be written") }
        }

        /// Lets the first transaction go on.
        func release() {
            state.withLock { $0.holding = false }
            held.signal()
        }

        /// The statement count of each transaction so far.
        var statements: [Int] { state.withLock { $0.statements } }
    }

    /// A timer definition (stored as one statement each).
    static let timer = Fixtures.definition(nil, preAlert: 600)

    /// Starts an engine whose store reports to `transactions`, with at most `limit` alarms per owner.
    static func engine(_ transactions: Transactions, limit: Int, in folder: URL) async throws -> AlarmEngine {
        let store = try AlarmStore(directory: folder, faultInjector: { try transactions.wrote($0) })
        let engine = AlarmEngine(
            store: store, clock: VirtualClock(now: Date(timeIntervalSince1970: 1_800_000_000)),
            policy: AlarmPolicy(maximumAlarmsPerOwner: limit))
        try await engine.start()
        return engine
    }

    /// What an async call returned or threw.
    static func outcome(_ body: () async throws -> AlarmRecord) async -> Result<AlarmRecord, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    /// What `schedule`'s `whenStored` and its return saw, in the order they happened.
    enum Event: Hashable, Sendable {
        case stored(AlarmRecord)
        case returned(AlarmRecord)
    }

    /// Entries from any thread, in the order they came: the events of every call, or what the
    /// engine's change observer heard.
    final class Log<Entry: Sendable>: Sendable {
        private let entries = Mutex<[Entry]>([])
        func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }
        var all: [Entry] { entries.withLock { $0 } }
    }
    typealias EventLog = Log<Event>

    /// Schedules the first alarm (its transaction held), then `others` at once behind it; returns
    /// each call's result once all have answered. Each call's `whenStored` and return are logged
    /// in `events`, when given.
    static func scheduleBehindHeldWrite(
        _ engine: AlarmEngine, _ transactions: Transactions, first: UUID, others: [(UUID, AlarmCaller)],
        events: EventLog? = nil
    ) async throws -> (first: Result<AlarmRecord, any Error>, others: [UUID: [Result<AlarmRecord, any Error>]]) {
        @Sendable func schedule(_ id: UUID, _ caller: AlarmCaller) async -> Result<AlarmRecord, any Error> {
            await outcome {
                let record = try await engine.schedule(id: id, definition: timer, caller: caller) { stored in
                    events?.append(.stored(stored))
                }
                events?.append(.returned(record))
                return record
            }
        }
        async let firstResult = schedule(first, .app("a"))
        try await transactions.waitUntilHolding()
        let results = try await withThrowingTaskGroup(of: (UUID, Result<AlarmRecord, any Error>).self) { group in
            for (id, caller) in others {
                group.addTask { (id, await schedule(id, caller)) }
            }
            // Every call is queued on the engine's thread, behind the held write, before it goes on.
            do {
                try await waitUntil(
                    "\(others.count) calls queued behind the held write", every: .milliseconds(1),
                    detail: { "queued: \(engine.queuedJobCount)" }
                ) {
                    engine.queuedJobCount >= others.count ? () : nil
                }
            } catch {
                transactions.release()
                throw error
            }
            transactions.release()
            var results: [UUID: [Result<AlarmRecord, any Error>]] = [:]
            for try await (id, result) in group { results[id, default: []].append(result) }
            return results
        }
        return (await firstResult, results)
    }

    @Test(
        "Calls queued behind a write are stored together, each checked as if one after another: the owner's limit, an id another app took")
    func storedTogether() async throws {
        let folder = Fixtures.temporaryDirectory("reveille-group-commit")
        defer { try? FileManager.default.removeItem(at: folder) }
        let transactions = Transactions()
        let engine = try await Self.engine(transactions, limit: 5, in: folder)
        let observed = Log<[AlarmChange]>()
        await engine.observeChanges { observed.append($0) }
        let first = UUID()
        let fresh = (0..<7).map { _ in UUID() }
        let contested = UUID()
        let events = EventLog()
        let (firstResult, results) = try await Self.scheduleBehindHeldWrite(
            engine, transactions, first: first,
            others: fresh.map { ($0, .app("a")) } + [(contested, .app("a")), (contested, .app("b"))], events: events)
        _ = try firstResult.get()

        // Every stored call heard `whenStored` once, before it returned, with what it returned;
        // refused calls never did.
        let log = events.all
        let returned = log.compactMap { if case .returned(let record) = $0 { record } else { nil } }
        #expect(returned.count == 1 + results.values.joined().count { (try? $0.get()) != nil })
        #expect(log.count == 2 * returned.count, "\(log)")
        for record in returned {
            let stored = try #require(log.firstIndex(of: .stored(record)), "\(record.id) was not reported stored")
            #expect(stored < log.firstIndex(of: .returned(record))!)
        }

        // App a may hold 5: the first, and 4 of the 8 that came behind it (contested included
        // when a took it); app b holds the contested id when it came first.
        let all = fresh + [contested]
        let aAccepted = all.filter { id in results[id]!.contains { (try? $0.get().owner) == "a" } }
        let bAccepted = (try? results[contested]!.first { (try? $0.get().owner) == "b" }?.get()) != nil
        #expect(aAccepted.count == 4, "\(results)")
        let refused = fresh.filter { id in
            results[id]!.allSatisfy { result in
                if case .failure(let error) = result { return error as? AlarmManager.AlarmError == .maximumLimitReached }
                return false
            }
        }
        #expect(refused.count == fresh.count - aAccepted.filter(fresh.contains).count)
        // The contested id: one app has it; the other was told it is not theirs, or hit its limit.
        let contestedOwners = results[contested]!.compactMap { try? $0.get().owner }
        #expect(contestedOwners.count == 1, "\(results[contested]!)")
        #expect(bAccepted == (contestedOwners == ["b"]))

        // One transaction for the first call, one for all that queued behind it.
        #expect(transactions.statements.count == 2, "\(transactions.statements)")
        #expect(transactions.statements.last == aAccepted.count + (bAccepted ? 1 : 0), "\(transactions.statements)")
        // The change observer heard each transaction in one call: the first alarm, then every
        // alarm stored behind it, in the order the calls were checked, each once.
        let heard = observed.all
        #expect(heard.count == 2, "\(heard)")
        #expect(heard.first == [.updated(try firstResult.get())])
        #expect(Set(heard.last?.map(\.id) ?? []) == Set(aAccepted + (bAccepted ? [contested] : [])))
        #expect(heard.last?.count == aAccepted.count + (bAccepted ? 1 : 0))
        #expect(returned.filter { $0.id != first }.allSatisfy { heard.last?.contains(.updated($0)) == true })

        // What the engine says is what the store holds.
        let listed = await engine.alarms(visibleTo: .user)
        #expect(Set(listed.map(\.id)) == Set([first] + aAccepted + (bAccepted ? [contested] : [])))
        await engine.shutdown()
        let stored = try AlarmStore(directory: folder).loadAlarms()
        #expect(Set(stored) == Set(listed))
    }

    @Test("A write that fails fails every call in it, and changes nothing")
    func failureFailsAll() async throws {
        let folder = Fixtures.temporaryDirectory("reveille-group-commit")
        defer { try? FileManager.default.removeItem(at: folder) }
        // The second transaction fails at its second statement.
        let transactions = Transactions(failing: (transaction: 1, statement: 2))
        let engine = try await Self.engine(transactions, limit: 100, in: folder)
        let observed = Log<[AlarmChange]>()
        await engine.observeChanges { observed.append($0) }
        let first = UUID()
        let others = (0..<6).map { _ in UUID() }
        let events = EventLog()
        let (firstResult, results) = try await Self.scheduleBehindHeldWrite(
            engine, transactions, first: first, others: others.map { ($0, .app("a")) }, events: events)
        let firstRecord = try firstResult.get()
        for id in others {
            let result = try #require(results[id]?.first)
            #expect(throws: StoreError.cannotCreate("injected failure")) { try result.get() }
        }
        // Only the stored call heard `whenStored`: once, with what it then returned.
        #expect(events.all == [.stored(firstRecord), .returned(firstRecord)])
        #expect(observed.all == [[.updated(firstRecord)]], "the failed transaction is not observed")
        #expect(await engine.alarms(visibleTo: .user).map(\.id) == [first])
        await engine.shutdown()
        #expect(try AlarmStore(directory: folder).loadAlarms().map(\.id) == [first])
    }
}
