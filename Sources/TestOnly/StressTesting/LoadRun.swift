import AlarmKit
import CommandLineText
import DBus
import Foundation
import TestSupport

/// What a load run did: how many alarms were scheduled, how long each `Schedule` took, and what
/// each subscriber saw.
package struct LoadReport: Sendable, CustomStringConvertible {
    /// What one `alarmUpdates`-style subscriber saw.
    package struct Subscriber: Sendable {
        /// Lists it received.
        package var lists = 0
        /// Times a list lacked an alarm an earlier list had (while alarms were only added).
        package var shrinks = 0
        /// The ids of its last list.
        package var last: Set<UUID> = []
        /// Whether its last list held every alarm scheduled, and nothing else.
        package var reachedFinalList = false
    }

    /// Clients that scheduled at the same time.
    package var clients: Int
    /// Alarms each client scheduled.
    package var alarmsPerClient: Int
    /// The ids the agent accepted.
    package var scheduled: Set<UUID> = []
    /// Calls that failed, with their errors (the first 20).
    package var failures: [String] = []
    /// How long each accepted `Schedule` took, from sending to the answer, sorted.
    package var latencies: [Duration] = []
    /// From the first call to the last answer.
    package var wallTime: Duration = .zero
    /// The subscribers.
    package var subscribers: [Subscriber] = []

    /// The latency at quantile `q` (0...1).
    package func latency(at q: Double) -> Duration {
        guard !latencies.isEmpty else { return .zero }
        return latencies[min(latencies.count - 1, Int((Double(latencies.count - 1) * q).rounded()))]
    }

    /// A few lines for a log or a failure message.
    package var description: String {
        func ms(_ duration: Duration) -> String { String(format: "%.1f ms", duration.timeInterval * 1_000) }
        let rate = Double(scheduled.count) / max(wallTime.timeInterval, 0.001)
        var lines = [
            "\(clients) clients × \(alarmsPerClient) alarms: \(scheduled.count) scheduled, \(failures.count) failed, in \(ms(wallTime)) (\(Int(rate)) per second)",
            "Schedule latency p50 \(ms(latency(at: 0.5))), p99 \(ms(latency(at: 0.99))), max \(ms(latency(at: 1)))",
        ]
        for (index, subscriber) in subscribers.enumerated() {
            lines.append(
                "subscriber \(index): \(subscriber.lists) lists, \(subscriber.shrinks) shrank, last has \(subscriber.last.count), final list \(subscriber.reachedFinalList ? "seen" : "NOT seen")"
            )
        }
        return (lines + failures.map { "  - " + $0 }).joined(separator: "\n")
    }
}

/// Many clients scheduling many alarms at the same time against a real agent, with subscribers
/// watching the list as AlarmKit's `alarmUpdates` does (`AgentClient.updates()`).
///
/// The caller must be allowed to schedule (`reveille auth allow`), and the agent's limit of alarms
/// per app (`--max-alarms`) must be at least `clients × alarmsPerClient`: every client is this
/// process, so one app.
package enum LoadRun {
    /// Schedules `alarmsPerClient` alarms from each of `clients` connections at once (each client
    /// one call after another), while `subscribers` other connections follow the list; returns
    /// once every subscriber has seen the final list, or `settleTimeout` has passed.
    package static func run(
        busAddress: String, clients: Int, alarmsPerClient: Int, subscribers subscriberCount: Int,
        settleTimeout: Duration = .seconds(120)
    ) async throws -> LoadReport {
        var report = LoadReport(clients: clients, alarmsPerClient: alarmsPerClient)

        // Subscribers first, each with the (empty) list in hand before the load starts.
        let watchers = try (0..<subscriberCount).map { _ in
            SubscriberWatch(client: AgentClient(connection: try DBusConnection.connect(address: busAddress)))
        }
        for watcher in watchers { await watcher.waitForFirstList() }

        let connections = try (0..<clients).map { _ in AgentClient(connection: try DBusConnection.connect(address: busAddress)) }
        let far = Date().addingTimeInterval(30 * 86_400)
        let started = ContinuousClock.now
        let results = await withTaskGroup(of: ([UUID], [Duration], [String]).self) { group in
            for (index, client) in connections.enumerated() {
                group.addTask {
                    var ids: [UUID] = []
                    var latencies: [Duration] = []
                    var failures: [String] = []
                    for number in 0..<alarmsPerClient {
                        let id = UUID.random()
                        let definition = Self.definition(client: index, number: number, far: far)
                        let start = ContinuousClock.now
                        do {
                            _ = try await client.schedule(id: id, definition: definition)
                            latencies.append(ContinuousClock.now - start)
                            ids.append(id)
                        } catch {
                            failures.append("client \(index), alarm \(number): \(error)")
                        }
                    }
                    return (ids, latencies, failures)
                }
            }
            var all: [([UUID], [Duration], [String])] = []
            for await result in group { all.append(result) }
            return all
        }
        report.wallTime = ContinuousClock.now - started
        for (ids, latencies, failures) in results {
            report.scheduled.formUnion(ids)
            report.latencies += latencies
            report.failures += failures.prefix(20 - min(20, report.failures.count))
        }
        report.latencies.sort()
        for client in connections { client.connection.close() }

        let expected = report.scheduled
        for watcher in watchers {
            report.subscribers.append(await watcher.finish(expecting: expected, timeout: settleTimeout))
        }
        return report
    }

    /// The alarms a load schedules: instants a month ahead, clock times, and day-long timers.
    static func definition(client: Int, number: Int, far: Date) -> AlarmDefinition {
        let title = "Load \(client)-\(number)"
        switch number % 3 {
        case 0: return Fixtures.definition(.fixed(far.addingTimeInterval(Double(client * 100_000 + number))), title: title)
        case 1:
            return Fixtures.definition(
                Fixtures.clockTime(number % 24, (number / 24) % 60, on: [.monday, .friday]), snooze: 540, title: title)
        default: return Fixtures.timer(86_400 + Double(number), title: title)
        }
    }
}

/// One subscriber: reads `AgentClient.updates()` and checks each list against the one before.
final class SubscriberWatch: Sendable {
    let client: AgentClient
    private let state = SubscriberState()
    private let reading: Task<Void, Never>

    /// What the reading task has seen; an actor so the task and the run can share it.
    ///
    /// Lists are compared as sorted arrays of ids, merged, not hashed into sets, and ids as their
    /// order keys (two integers), not with `UUID`'s `<` (100 ns, byte by byte): a subscriber
    /// reads thousands of lists of thousands of alarms, and the check must not cost more than
    /// what it checks. With `<`, the three subscribers' checks took a third of a core from the
    /// agent they were measuring.
    actor SubscriberState {
        private(set) var report = LoadReport.Subscriber()
        /// The ids of the last list, sorted.
        private var last: [UUID.OrderKey] = []
        /// The last list's ids as they came.
        private var lastList: [UUID] = []
        var firstList: CheckedContinuation<Void, Never>?
        var target: (ids: [UUID.OrderKey], reached: CheckedContinuation<Void, Never>)?
        var hasList = false

        func take(_ list: [UUID]) {
            let keys = list.map(\.orderKey)
            let ids = zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }) ? keys : keys.sorted()
            report.lists += 1
            if !Self.isSubset(last, of: ids) { report.shrinks += 1 }
            last = ids
            lastList = list
            hasList = true
            firstList?.resume()
            firstList = nil
            if let target, target.ids == ids {
                report.reachedFinalList = true
                target.reached.resume()
                self.target = nil
            }
        }

        /// Whether every id of `small` is in `large`; both sorted.
        static func isSubset(_ small: [UUID.OrderKey], of large: [UUID.OrderKey]) -> Bool {
            guard small.count <= large.count else { return false }
            var index = large.startIndex
            for id in small {
                while index < large.endIndex, large[index] < id { index += 1 }
                guard index < large.endIndex, large[index] == id else { return false }
                index += 1
            }
            return true
        }

        func waitForFirst() async {
            if hasList { return }
            await withCheckedContinuation { firstList = $0 }
        }

        func wait(for ids: Set<UUID>) async {
            let sorted = ids.map(\.orderKey).sorted()
            if last == sorted {
                report.reachedFinalList = true
                return
            }
            await withCheckedContinuation { target = (sorted, $0) }
        }

        func giveUp() {
            target?.reached.resume()
            target = nil
        }

        /// The report, with the ids of the last list.
        func finalReport() -> LoadReport.Subscriber {
            var final = report
            final.last = Set(lastList)
            return final
        }
    }

    init(client: AgentClient) {
        self.client = client
        let state = self.state
        reading = Task {
            for await alarms in client.updates() {
                await state.take(alarms.map(\.id))
            }
        }
    }

    func waitForFirstList() async { await state.waitForFirst() }

    /// Waits (up to `timeout`) until a list equals `expected`, then stops reading.
    func finish(expecting expected: Set<UUID>, timeout: Duration) async -> LoadReport.Subscriber {
        let state = self.state
        let timer = Task {
            try? await Task.sleep(for: timeout)
            await state.giveUp()
        }
        await state.wait(for: expected)
        timer.cancel()
        reading.cancel()
        client.connection.close()
        return await state.finalReport()
    }
}
