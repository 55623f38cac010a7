// reveille-bench: prints Reveille's performance numbers.
//
//   swift build -c release && .build/release/reveille-bench           everything
//   .build/release/reveille-bench engine                                the engine and store only
//   .build/release/reveille-bench wire                                  1,000 alarms on the wire
//   .build/release/reveille-bench agent [--idle-seconds N]              the agent over D-Bus
//   .build/release/reveille-bench alert [--alerts N]                    alerts: lateness, Stop to silence (at PipeWire's sink), CPU
//   .build/release/reveille-bench alert --compare DIR [--alerts N] [--clear-tint]
//                                                                        lateness of today's agent and DIR's (an older build's
//                                                                        bin folder), ringing in turn in one run; --clear-tint:
//                                                                        every tint transparent, so no tint image is sent
//   .build/release/reveille-bench alert-pipewire [--alerts N]           only the PipeWire part of alert
//   .build/release/reveille-bench search [--calls N]                     the desktop's search providers: query to reply
//   .build/release/reveille-bench day                                   a simulated day of clock and zone changes
//   .build/release/reveille-bench fuzz [--calls N] [--command-lines N] [--seed S] [--max-alarms N]
//                                                                        the fuzzers at length (not in "everything")
//   .build/release/reveille-bench load [--clients N] [--alarms N] [--subscribers N] [--rounds N]
//                                                                        clients scheduling at once, then the same against
//                                                                        a stand-in that stores nothing, in rounds whose
//                                                                        ratios' median is printed (not in "everything")

import Foundation
import TestSupport

let arguments = Array(CommandLine.arguments.dropFirst())
let selected = Set(
    arguments.enumerated().filter { index, word in
        !word.hasPrefix("-") && Int(word) == nil && (index == 0 || !arguments[index - 1].hasPrefix("--"))
    }.map(\.element))
/// The integer after an option such as `--calls`, or `fallback`.
func option(_ name: String, _ fallback: Int) -> Int {
    arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil } ?? fallback
}
if arguments.first == FloorAgent.role {
    // Not a benchmark: the stand-in agent the load benchmark starts (see `FloorAgent`).
    try await FloorAgent.serve()
}
let idleSeconds = option("--idle-seconds", 60)
let alerts = option("--alerts", 50)
if selected.isEmpty || selected.contains("engine") {
    try await EngineBenchmark.run()
}
if selected.isEmpty || selected.contains("day") {
    print("== a simulated day (virtual clock): DST change, clock stepped +90 s and -90 s, 5 min suspend, Berlin to New York")
    let (result, took) = try await Measure.time { try await DaySimulation().run() }
    Measure.report("alerts rung", "\(result.alerts)")
    Measure.report("alerts missed", "\(result.missed.count)", target: "0")
    Measure.report("alerts early", "\(result.early.count)", target: "0")
    let late = result.lateness.filter { $0 > 0.001 }
    Measure.report(
        "alerts late (all due during the suspend or the forward step)", "\(late.count), at most \(Int((late.max() ?? 0).rounded())) s")
    Measure.report("simulated in", Measure.format(took))
}
if selected.isEmpty || selected.contains("wire") {
    try WireBenchmark.run()
}
if selected.isEmpty || selected.contains("agent") {
    try await AgentBenchmark.run(idleSeconds: idleSeconds)
}
if selected.isEmpty || selected.contains("search") {
    try await SearchBenchmark.run(calls: option("--calls", 200))
}
/// The word after an option such as `--compare`, or nil.
func textOption(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}
let compared = textOption("--compare").map { URL(fileURLWithPath: $0) }
if let compared, selected.contains("alert") {
    try await AlertBenchmark.compare(alerts: alerts, other: compared, clearTint: arguments.contains("--clear-tint"))
} else if selected.isEmpty || selected.contains("alert") {
    try await AlertBenchmark.run(alerts: alerts)
}
if compared == nil, selected.isEmpty || selected.contains("alert") || selected.contains("alert-pipewire") {
    try await PipeWireAlertBenchmark.run(alerts: min(alerts, 30))
}
if selected.contains("fuzz") {
    let seed =
        arguments.firstIndex(of: "--seed").flatMap { arguments.indices.contains($0 + 1) ? UInt64(arguments[$0 + 1]) : nil }
        ?? SeededGenerator.seedFromEnvironment()
    try await FuzzBenchmark.run(
        calls: option("--calls", 30_000), commandLines: option("--command-lines", 1_000), seed: seed,
        maxAlarms: option("--max-alarms", 1_000))
}
if selected.contains("load") {
    try await LoadBenchmark.run(
        clients: option("--clients", 10), alarmsPerClient: option("--alarms", 1_000), subscribers: option("--subscribers", 3),
        rounds: option("--rounds", 5))
}
