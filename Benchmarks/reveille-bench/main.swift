// reveille-bench: prints Reveille's performance numbers.
//
//   swift build -c release && .build/release/reveille-bench           everything
//   .build/release/reveille-bench engine                                the engine and store only
//   .build/release/reveille-bench wire                                  1,000 alarms on the wire
//   .build/release/reveille-bench agent [--idle-seconds N]              the agent over D-Bus
//   .build/release/reveille-bench alert [--alerts N]                    alerts: lateness, Stop to silence, CPU
//   .build/release/reveille-bench day                                   a simulated day of clock and zone changes

import TestSupport

let arguments = Array(CommandLine.arguments.dropFirst())
let selected = Set(arguments.filter { !$0.hasPrefix("-") && Int($0) == nil })
let alerts = arguments.firstIndex(of: "--alerts").flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil } ?? 50
let idleSeconds = arguments.firstIndex(of: "--idle-seconds").flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil } ?? 60
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
    Measure.report("alerts late (all due during the suspend or the forward step)", "\(late.count), at most \(Int((late.max() ?? 0).rounded())) s")
    Measure.report("simulated in", Measure.format(took))
}
if selected.isEmpty || selected.contains("wire") {
    try WireBenchmark.run()
}
if selected.isEmpty || selected.contains("agent") {
    try await AgentBenchmark.run(idleSeconds: idleSeconds)
}
if selected.isEmpty || selected.contains("alert") {
    try await AlertBenchmark.run(alerts: alerts)
}
