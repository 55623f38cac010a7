import AlarmKit
import DBus
import Foundation
import StressTesting
import TestSupport

/// Many clients scheduling at once against the release agent, with subscribers following the
/// list: throughput, `Schedule` latency, what the subscribers saw, and the store afterwards; then
/// the same clients against `FloorAgent`, which answers on the wire alike and stores nothing; then
/// against it again with as many subscribers watching it (`FloorAnnouncer`).
///
/// The ratio of the agent's p99 to the floor's is taken in each of several rounds (a fresh store
/// each), and their median is the result: one round's ratio moves between 1.2 × and 2.2 × on a
/// quiet machine, because the floor's own p99 does. The ratio to the watched floor's p99 splits
/// the rest: what the subscribers and their signals cost by themselves on this machine, and what
/// the agent adds to that.
enum LoadBenchmark {
    static func run(clients: Int, alarmsPerClient: Int, subscribers: Int, rounds: Int) async throws {
        print(
            "== load: \(clients) clients × \(alarmsPerClient) alarms at once, \(subscribers) subscribers, \(rounds) rounds (release build)")
        guard let binaries = Binaries.beside() else { return }
        var ratios: [Double] = []
        var ratiosWatched: [Double] = []
        for round in 1...max(rounds, 1) {
            let ratio = try await self.round(
                binaries: binaries, clients: clients, alarmsPerClient: alarmsPerClient, subscribers: subscribers,
                reportsDetail: round == 1)
            print(
                "    round \(round): agent p99 / floor p99 = \(String(format: "%.2f", ratio.floor))"
                    + (ratio.watchedFloor.map { String(format: " (/ the watched floor's: %.2f)", $0) } ?? ""))
            ratios.append(ratio.floor)
            if let watched = ratio.watchedFloor { ratiosWatched.append(watched) }
        }
        Measure.report(
            "agent p99 (\(subscribers) subscribers) / the floor's p99, median of \(ratios.count) rounds",
            Self.median(of: ratios), target: "≤ 1.5 ×")
        if !ratiosWatched.isEmpty {
            Measure.report("agent p99 / the watched floor's p99, median", Self.median(of: ratiosWatched))
        }
    }

    /// The median of ratios and the ratios, as the report prints them.
    private static func median(of ratios: [Double]) -> String {
        let sorted = ratios.sorted()
        let median =
            sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        return String(format: "%.2f × (rounds: %@)", median, ratios.map { String(format: "%.2f", $0) }.joined(separator: ", "))
    }

    /// One round in a fresh sandbox: the agent, then the floor, then (with subscribers) the floor
    /// watched by as many subscribers; returns the ratios of the agent's p99 to the floor's and to
    /// the watched floor's. The first round also reports throughput, the subscribers, memory and
    /// the store.
    private static func round(
        binaries: Binaries, clients: Int, alarmsPerClient: Int, subscribers: Int, reportsDetail: Bool
    ) async throws -> (floor: Double, watchedFloor: Double?) {
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { sandbox.stop() }
        let arguments = ["--max-alarms", "\(max(10_000, clients * alarmsPerClient))"]
        var agent = try sandbox.spawn(binaries.reveilled, arguments)
        try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(20))
        let ownExecutable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        try sandbox.run(binaries.reveille, ["auth", "allow", ownExecutable])
        let before = ProcessTable.residentBytes(of: agent.pid) ?? 0

        let report = try await LoadRun.run(
            busAddress: sandbox.busAddress, clients: clients, alarmsPerClient: alarmsPerClient, subscribers: subscribers,
            settleTimeout: .seconds(600))
        let after = ProcessTable.residentBytes(of: agent.pid) ?? 0
        if reportsDetail || !report.failures.isEmpty {
            Self.report(report, total: clients * alarmsPerClient, residentBefore: before, after: after)
        }
        if reportsDetail {
            agent = try await Self.checkStore(
                sandbox: sandbox, binaries: binaries, agent: agent, arguments: arguments, accepted: report.scheduled)
        }
        agent.terminate()
        _ = try await agent.waitForExit(timeout: .seconds(60))
        try sandbox.waitForBusNameReleased(AgentClient.busName)

        // The floor: the same clients on the same bus against a stand-in that only answers.
        let floorAgent = try sandbox.spawn(ownExecutable, [FloorAgent.role])
        defer { floorAgent.terminate() }
        try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(20))
        let floor = try await LoadRun.run(
            busAddress: sandbox.busAddress, clients: clients, alarmsPerClient: alarmsPerClient, subscribers: 0)
        if reportsDetail { Self.reportFloor("floor, a stand-in that stores nothing, 0 subscribers", floor) }
        for failure in floor.failures.prefix(10) { print("    floor: " + failure) }
        let ratio = report.latency(at: 0.99) / max(floor.latency(at: 0.99), .nanoseconds(1))
        guard subscribers > 0 else { return (ratio, nil) }

        // The same floor, watched: what the subscribers and their signals cost without a store.
        let watched = try await LoadRun.run(
            busAddress: sandbox.busAddress, clients: clients, alarmsPerClient: alarmsPerClient, subscribers: subscribers)
        if reportsDetail { Self.reportFloor("floor watched by \(subscribers) subscribers", watched) }
        for (index, subscriber) in watched.subscribers.enumerated() where !subscriber.reachedFinalList || subscriber.shrinks > 0 {
            print(
                "    watched floor, subscriber \(index): \(subscriber.shrinks) shrank, final list \(subscriber.reachedFinalList ? "seen" : "NOT seen")"
            )
        }
        for failure in watched.failures.prefix(10) { print("    watched floor: " + failure) }
        return (ratio, report.latency(at: 0.99) / max(watched.latency(at: 0.99), .nanoseconds(1)))
    }

    /// Prints a floor run's throughput and latency.
    private static func reportFloor(_ name: String, _ run: LoadReport) {
        Measure.report(
            name + ": per second, p50 / p99",
            "\(Int(Double(run.scheduled.count) / max(run.wallTime.timeInterval, 0.001))), "
                + [0.5, 0.99].map { Measure.format(run.latency(at: $0)) }.joined(separator: " / "))
    }

    /// Prints what the clients and subscribers saw of the agent, and its memory.
    private static func report(_ report: LoadReport, total: Int, residentBefore before: Int, after: Int) {
        Measure.report("Schedule calls / accepted / failed", "\(total) / \(report.scheduled.count) / \(report.failures.count)")
        Measure.report(
            "all scheduled in",
            "\(Measure.format(report.wallTime)) (\(Int(Double(report.scheduled.count) / max(report.wallTime.timeInterval, 0.001))) per second)"
        )
        Measure.report(
            "Schedule latency p50 / p90 / p99 / max",
            [0.5, 0.9, 0.99, 1].map { Measure.format(report.latency(at: $0)) }.joined(separator: " / "),
            target: "p99 ≤ 1.5 × the floor's, below")
        for (index, subscriber) in report.subscribers.enumerated() {
            Measure.report(
                "subscriber \(index): lists / shrank / final list seen",
                "\(subscriber.lists) / \(subscriber.shrinks) / \(subscriber.reachedFinalList ? "yes" : "NO")", target: "0 shrank, yes")
        }
        Measure.report("agent VmRSS before / after", "\(Measure.mebibytes(before)) / \(Measure.mebibytes(after))")
        for failure in report.failures.prefix(10) { print("    " + failure) }
    }

    /// Prints whether `reveille list` holds every accepted alarm, before and after a restart of
    /// the agent; returns the restarted agent.
    private static func checkStore(
        sandbox: DesktopSandbox, binaries: Binaries, agent: SandboxProcess, arguments: [String], accepted: Set<UUID>
    ) async throws -> SandboxProcess {
        let listed = try FuzzBenchmark.listedIDs(sandbox: sandbox, reveille: binaries.reveille)
        Measure.report(
            "reveille list --json: alarms / the same as accepted", "\(listed.count) / \(listed == accepted ? "yes" : "NO")",
            target: "\(accepted.count) / yes")
        agent.terminate()
        _ = try await agent.waitForExit(timeout: .seconds(60))
        let (restarted, restart) = try await Measure.time {
            let restarted = try sandbox.spawn(binaries.reveilled, arguments)
            try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(60))
            return restarted
        }
        let relisted = try FuzzBenchmark.listedIDs(sandbox: sandbox, reveille: binaries.reveille)
        Measure.report(
            "after a restart (\(Measure.format(restart))): alarms / the same", "\(relisted.count) / \(relisted == listed ? "yes" : "NO")",
            target: "\(listed.count) / yes")
        return restarted
    }
}
