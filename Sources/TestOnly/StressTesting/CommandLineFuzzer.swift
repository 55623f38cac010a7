import Foundation
import TestSupport

/// What a run of the command-line fuzzer did and found.
package struct CommandLineFuzzReport: Sendable, CustomStringConvertible {
    /// The seed the lines were made from.
    package var seed: UInt64
    /// Command lines run.
    package var runs = 0
    /// How they ended: `exit 64`, `signal 6`, … and how often.
    package var endings: [String: Int] = [:]
    /// Lines the fuzzer knew to be bad input (they must exit 64).
    package var knownBad = 0
    /// Everything that is wrong, with its command line; the first 50 are kept.
    package var problems: [String] = []
    /// How many problems there were in all.
    package var problemCount = 0

    /// Creates an empty report.
    package init(seed: UInt64) {
        self.seed = seed
    }

    mutating func problem(_ text: String) {
        problemCount += 1
        if problems.count < 50 { problems.append(text) }
    }

    /// A few lines for a log or a failure message.
    package var description: String {
        let endings = self.endings.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        return
            ([
                "seed \(seed) (replay: \(SeededGenerator.seedVariable)=\(seed))",
                "command lines \(runs) [\(endings)], known bad input \(knownBad)",
                "problems \(problemCount)",
            ] + problems.map { "  - " + $0 }).joined(separator: "\n")
    }
}

/// Runs `reveille` with seeded random command lines (see `CommandLineFuzz`) in a sandbox and judges
/// how each ends: never by a signal, never hanging, with a documented exit status and a message
/// on standard error when it fails, and exit 64 for every line the fuzzer knows is bad input.
package enum CommandLineFuzzer {
    /// Whether an agent can be reached during a run, which decides the statuses that are right.
    package enum Agent: Sendable {
        /// No bus to reach: bad input exits 64, anything that needs the agent 69; 65 cannot happen.
        case unreachable
        /// An agent runs: bad input exits 64, refusals 65; 69 cannot happen.
        case running
    }

    /// Runs `count` command lines one after another with `environment` added to the sandbox's.
    package static func run(
        count: Int, seed: UInt64, reveille: String, sandbox: DesktopSandbox, environment: [String: String] = [:],
        agent: Agent
    ) async -> CommandLineFuzzReport {
        var lines = CommandLineFuzz(seed: seed)
        var report = CommandLineFuzzReport(seed: seed)
        let allowed: Set<Int32> = agent == .running ? [0, 64, 65] : [0, 64, 69]
        for _ in 0..<count {
            let line = lines.next()
            report.runs += 1
            if line.usageError != nil { report.knownBad += 1 }
            let process: SandboxProcess
            let status: SandboxProcess.ExitStatus
            do {
                process = try sandbox.spawn(reveille, byteArguments: line.arguments, environment: environment)
            } catch {
                report.problem("could not start \(line): \(error)")
                continue
            }
            do {
                status = try await process.waitForExit(timeout: .seconds(30))
            } catch {
                process.kill()
                report.problem("still running after 30 s: \(line)")
                continue
            }
            report.endings[status.description, default: 0] += 1
            let output = process.standardOutput
            let error = process.standardError
            switch status {
            case .signaled:
                report.problem("\(status): \(line)\n      \(CrashLog.summary(of: error, limit: 600))")
                continue
            case .exited(let code):
                if !allowed.contains(code) {
                    report.problem("\(status), expected one of \(allowed.sorted()): \(line)\n      stderr: \(error.prefix(300))")
                }
                if let reason = line.usageError, code != 64 {
                    report.problem(
                        "bad input (\(reason.prefix(120))) ended with \(status), not exit 64: \(line)\n      stderr: \(error.prefix(300))")
                }
                if code != 0, error.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    report.problem("\(status) without a message on standard error: \(line)")
                }
                if code == 0 { checkOutput(of: line, output, into: &report, lines: &lines) }
            }
            try? FileManager.default.removeItem(at: process.standardOutputURL)
            try? FileManager.default.removeItem(at: process.standardErrorURL)
        }
        return report
    }

    /// What a successful line prints: `add` and `timer` the new id alone, or the alarm as JSON;
    /// `list --json` a JSON array.
    static func checkOutput(
        of line: CommandLineCase, _ output: String, into report: inout CommandLineFuzzReport, lines: inout CommandLineFuzz
    ) {
        switch line.command {
        case "add"?, "timer"?:
            if line.json {
                if (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any] == nil {
                    report.problem("--json printed no JSON object: \(line)\n      stdout: \(output.prefix(300))")
                }
            } else if let id = UUID(text: output.trimmingCharacters(in: .newlines)), output.filter({ $0 == "\n" }).count == 1 {
                lines.knownIDs.append(id)
            } else {
                report.problem("printed more than the new id: \(line)\n      stdout: \(output.prefix(300))")
            }
        case "list"? where line.json:
            if (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [Any] == nil {
                report.problem("list --json printed no JSON array: \(line)\n      stdout: \(output.prefix(300))")
            }
        default:
            break
        }
    }
}
