import AlarmKit
import DBus
import Foundation
import StressTesting
import TestSupport

/// Many clients scheduling at once against the release agent, with subscribers following the
/// list: throughput, `Schedule` latency, what the subscribers saw, and the store afterwards; then
/// the same clients against `FloorAgent`, which answers on the wire alike and stores nothing.
enum LoadBenchmark {
    static func run(clients: Int, alarmsPerClient: Int, subscribers: Int) async throws {
        print("== load: \(clients) clients × \(alarmsPerClient) alarms at once, \(subscribers) subscribers (release build)")
        guard let binaries = Binaries.beside() else { return }
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
        let total = clients * alarmsPerClient
        Measure.report("Schedule calls / accepted / failed", "\(total) / \(report.scheduled.count) / \(report.failures.count)")
        Measure.report(
            "all scheduled in", "\(Measure.format(report.wallTime)) (\(Int(Double(report.scheduled.count) / max(report.wallTime.timeInterval, 0.001))) per second)")
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

        let listed = try FuzzBenchmark.listedIDs(sandbox: sandbox, reveille: binaries.reveille)
        Measure.report("reveille list --json: alarms / the same as accepted", "\(listed.count) / \(listed == report.scheduled ? "yes" : "NO")", target: "\(total) / yes")
        agent.terminate()
        _ = try await agent.waitForExit(timeout: .seconds(60))
        let (_, restart) = try await Measure.time {
            agent = try sandbox.spawn(binaries.reveilled, arguments)
            try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(60))
        }
        let relisted = try FuzzBenchmark.listedIDs(sandbox: sandbox, reveille: binaries.reveille)
        Measure.report("after a restart (\(Measure.format(restart))): alarms / the same", "\(relisted.count) / \(relisted == listed ? "yes" : "NO")", target: "\(total) / yes")
        agent.terminate()
        _ = try await agent.waitForExit(timeout: .seconds(60))
        try sandbox.waitForBusNameReleased(AgentClient.busName)

        // The floor: the same clients on the same bus against a stand-in that only answers.
        let floorAgent = try sandbox.spawn(ownExecutable, [FloorAgent.role])
        defer { floorAgent.terminate() }
        try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(20))
        let floor = try await LoadRun.run(
            busAddress: sandbox.busAddress, clients: clients, alarmsPerClient: alarmsPerClient, subscribers: 0)
        Measure.report(
            "floor, a stand-in that stores nothing, 0 subscribers: per second, p50 / p99",
            "\(Int(Double(floor.scheduled.count) / max(floor.wallTime.timeInterval, 0.001))), "
                + [0.5, 0.99].map { Measure.format(floor.latency(at: $0)) }.joined(separator: " / "))
        for failure in floor.failures.prefix(10) { print("    floor: " + failure) }
        let ratio = report.latency(at: 0.99) / max(floor.latency(at: 0.99), .nanoseconds(1))
        Measure.report(
            "agent p99 (\(subscribers) subscribers) / the floor's p99", String(format: "%.2f ×", ratio), target: "≤ 1.5 ×")
    }
}
