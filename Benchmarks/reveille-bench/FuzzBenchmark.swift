import AlarmKit
import CommandLineText
import DBus
import Foundation
import StressTesting
import TestSupport

/// The fuzzers at length, against the release agent: seeded random D-Bus calls (with the agent's
/// memory before and after) and random command lines, with and without an agent to reach.
enum FuzzBenchmark {
    static func run(calls: Int, commandLines: Int, seed: UInt64, maxAlarms: Int) async throws {
        print("== fuzz (release build, private bus, real store; seed \(seed), replay with \(SeededGenerator.seedVariable)=\(seed))")
        guard let binaries = Binaries.beside() else { return }
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { sandbox.stop() }
        let arguments = ["--ring-timeout", "0", "--max-alarms", "\(maxAlarms)"]
        var agent = try sandbox.spawn(binaries.reveilled, arguments, environment: AgentMemory.environment)
        try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(20))
        let ownExecutable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        try sandbox.run(binaries.reveille, ["auth", "allow", ownExecutable])

        let running = agent
        let fuzzer = try await AgentFuzzer(busAddress: sandbox.busAddress, seed: seed) { running.isRunning }
        let warmUp = min(1_000, calls / 5)
        let (_, warmUpTime) = await Measure.time { await fuzzer.run(calls: warmUp) }
        let before = ProcessTable.residentBytes(of: agent.pid) ?? 0
        // In steps, with the agent's memory and alarm count after each: growth that goes on once
        // the alarms stop growing in number is a leak.
        let step = max(1, (calls - warmUp + 9) / 10)
        var done = warmUp
        var time = Duration.zero
        var report = await fuzzer.report
        while done < calls {
            let (stepReport, stepTime) = await Measure.time { await fuzzer.run(calls: min(step, calls - done)) }
            report = stepReport
            time += stepTime
            done += step
            let alarms = await fuzzer.expected.mustExist.count
            print(
                "    after \(min(done, calls)) calls: VmRSS \(Measure.mebibytes(ProcessTable.residentBytes(of: agent.pid) ?? 0)), \(alarms) alarms"
            )
        }
        let after = ProcessTable.residentBytes(of: agent.pid) ?? 0
        let sent = report.calls + report.signals + report.unsendable
        Measure.report("D-Bus calls and signals sent", "\(sent) in \(Measure.format(warmUpTime + time))")
        Measure.report("  method returns / named errors", "\(report.returns) / \(report.namedErrorCount)")
        Measure.report("  Schedule accepted / refused", "\(report.schedulesAccepted) / \(report.schedulesRefused)")
        Measure.report("  signals / unsendable / reconnections", "\(report.signals) / \(report.unsendable) / \(report.reconnections)")
        Measure.report("  problems (unnamed errors, silence, wrong answers)", "\(report.problemCount)", target: "0")
        Measure.report(
            "agent crashes / stopped answering", "\(await fuzzer.agentDied ? 1 : 0) / \(await fuzzer.agentStoppedAnswering ? 1 : 0)",
            target: "0 / 0")
        Measure.report(
            "agent VmRSS after \(warmUp) calls / at the end", "\(Measure.mebibytes(before)) / \(Measure.mebibytes(after))",
            target: "growth < 32 MiB")
        for problem in report.problems.prefix(10) { print("    " + problem.replacingOccurrences(of: "\n", with: "\n    ")) }

        if agent.isRunning {
            let expected = await fuzzer.expected
            let listed = try listedIDs(sandbox: sandbox, reveille: binaries.reveille)
            let consistent = expected.mustExist.isSubset(of: listed) && listed.isSubset(of: expected.mayExist)
            Measure.report("store: alarms listed / as the answers said", "\(listed.count) / \(consistent ? "yes" : "NO")", target: "yes")
            agent.terminate()
            _ = try await agent.waitForExit(timeout: .seconds(30))
            agent = try sandbox.spawn(binaries.reveilled, arguments, environment: AgentMemory.environment)
            try sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(20))
            let relisted = try listedIDs(sandbox: sandbox, reveille: binaries.reveille)
            Measure.report("store after a restart: the same alarms", relisted == listed ? "yes" : "NO", target: "yes")
        }

        for (label, mode, environment) in [
            ("no bus", CommandLineFuzzer.Agent.unreachable, ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/reveille-bench-bus"]),
            ("agent running", .running, [:]),
        ] {
            let (lines, linesTime) = await Measure.time {
                await CommandLineFuzzer.run(
                    count: commandLines, seed: seed, reveille: binaries.reveille, sandbox: sandbox, environment: environment, agent: mode)
            }
            let endings = lines.endings.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
            Measure.report("reveille command lines, \(label)", "\(lines.runs) in \(Measure.format(linesTime)): \(endings)")
            Measure.report("  known bad input / problems", "\(lines.knownBad) / \(lines.problemCount)", target: "0 problems")
            for problem in lines.problems.prefix(10) { print("    " + problem.replacingOccurrences(of: "\n", with: "\n    ")) }
        }
        agent.terminate()
    }

    /// The ids `reveille list --json` prints.
    static func listedIDs(sandbox: DesktopSandbox, reveille: String) throws -> Set<UUID> {
        let output = try sandbox.run(reveille, ["list", "--json"], timeout: .seconds(60))
        let alarms = try JSONDecoder().decode([AlarmDescription].self, from: Data(output.utf8))
        return Set(alarms.compactMap { UUID(uuidString: $0.id) })
    }
}

/// The release programs built beside the benchmark.
struct Binaries {
    let reveilled: String
    let reveille: String

    /// The programs in the benchmark's own folder, or nil (with a message) when they are not built.
    static func beside() -> Binaries? {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let binaries = Binaries(
            reveilled: folder.appendingPathComponent("reveilled").path, reveille: folder.appendingPathComponent("reveille").path)
        guard FileManager.default.isExecutableFile(atPath: binaries.reveilled),
            FileManager.default.isExecutableFile(atPath: binaries.reveille)
        else {
            print("reveilled and reveille must be built beside reveille-bench: swift build -c release")
            return nil
        }
        return binaries
    }
}
