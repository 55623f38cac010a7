import AlarmKit
import DBus
import Foundation
import TestSupport

/// The agent over D-Bus: `Schedule` round trips, `reveille list` as a whole process, and what the
/// agent costs while it waits (wake-ups and memory).
enum AgentBenchmark {
    static func run(idleSeconds: Int) async throws {
        print("== agent over D-Bus (release build, private bus, real store)")
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let reveilled = folder.appendingPathComponent("reveilled").path
        let reveille = folder.appendingPathComponent("reveille").path
        guard FileManager.default.isExecutableFile(atPath: reveilled), FileManager.default.isExecutableFile(atPath: reveille) else {
            print("reveilled and reveille must be built beside reveille-bench: swift build -c release")
            return
        }
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { sandbox.stop() }
        let agent = try sandbox.spawn(reveilled, ["--max-alarms", "10000"])
        try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(20))
        let ownExecutable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        try sandbox.run(reveille, ["auth", "allow", ownExecutable])
        let client = AgentClient(connection: try DBusConnection.connect(address: sandbox.busAddress))

        // Schedule round trips: each answer comes after the alarm is committed to disk.
        var samples: [Duration] = []
        let far = Date().addingTimeInterval(30 * 86_400)
        for index in 0..<2_000 {
            let definition = Fixtures.definition(.fixed(far.addingTimeInterval(Double(index))), title: "Bench \(index)")
            let (_, sample) = try await Measure.time { try await client.schedule(id: UUID(), definition: definition) }
            samples.append(sample)
        }
        Measure.report(
            "Schedule round trip p50 / p99 (2,000 calls)",
            "\(Measure.format(Measure.percentile(samples, 0.5))) / \(Measure.format(Measure.percentile(samples, 0.99)))",
            target: "p99 < 5 ms")

        // `reveille list` with 1,000 alarms: the whole process, start to exit.
        for alarm in try await client.list().dropFirst(1_000) { try await client.cancel(id: alarm.alarm.id) }
        var listings: [Duration] = []
        for _ in 0..<20 {
            listings.append(try Measure.processTime(reveille, ["list"], environment: sandbox.environment))
        }
        Measure.report(
            "reveille list, 1,000 alarms, whole process (median / p90 of 20)",
            "\(Measure.format(Measure.percentile(listings, 0.5))) / \(Measure.format(Measure.percentile(listings, 0.9)))",
            target: "< 50 ms")

        // Idle: 100 alarms days ahead; count the agent's wake-ups (context switches of all its threads).
        for alarm in try await client.list() { try await client.cancel(id: alarm.alarm.id) }
        for index in 0..<100 {
            let definition = Fixtures.definition(
                .fixed(Date().addingTimeInterval(Double(3 * 86_400 + index * 60))), title: "Later \(index)")
            _ = try await client.schedule(id: UUID(), definition: definition)
        }
        client.connection.close()
        let used = ProcessStatistics(pid: agent.pid)
        // The steady state: an agent started over those 100 alarms, as after a login.
        agent.terminate()
        _ = try await agent.waitForExit(timeout: .seconds(10))
        let fresh = try sandbox.spawn(reveilled, [])
        defer { fresh.terminate() }
        try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(20))
        try await Task.sleep(for: .seconds(3))
        let before = ProcessStatistics(pid: fresh.pid)
        try await Task.sleep(for: .seconds(idleSeconds))
        let after = ProcessStatistics(pid: fresh.pid)
        let wakeUps = after.wakeUpsByThread(since: before)
        Measure.report(
            "agent wake-ups over \(idleSeconds) s idle, 100 alarms days ahead", "\(wakeUps.values.reduce(0, +))", target: "0")
        for (thread, count) in wakeUps.sorted(by: { $0.key < $1.key }) where count > 0 {
            Measure.report("  of which thread \(thread)", "\(count)")
        }
        Measure.report("agent resident memory then", Measure.megabytes(after.residentBytes), target: "≤ 20 MB")
        Measure.report("  (the agent that served the 2,000 calls above)", Measure.mebibytes(used.residentBytes))
    }
}
