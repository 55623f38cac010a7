import Foundation
import Testing
@testable import TestSupport

/// Whether the sandbox and the programs these tests run are installed; the message names what is missing.
let sandboxMissing = DesktopSandbox.availability(also: ["notify-send", "aplay"])

/// Stops `sandbox` and checks that nothing it started, or that carries its environment, still runs,
/// and that its folder is gone.
func stopAndExpectNothingLeft(_ sandbox: DesktopSandbox, sourceLocation: SourceLocation = #_sourceLocation) {
    // The sandbox's processes that run now, each with its start time: a pid running after the
    // stop is the same process only if it started then too (the suite spawns so many processes
    // that pids wrap, and one of this process's own children can get a number the sandbox used).
    // Only those that are the sandbox's now (its environment, folder or files) are followed.
    let owned = Set(sandbox.leftoverProcesses())
    let processes = sandbox.processIDs.filter(owned.contains).compactMap { pid in
        ProcessTable.startTime(of: pid).map { (pid: pid, started: $0) }
    }
    let started = ContinuousClock.now
    sandbox.stopAndWait()
    let took = ContinuousClock.now - started
    print("sandbox started in \(sandbox.startupDuration), stopped in \(took)")
    let running = processes.filter { ProcessTable.isRunning($0.pid) && ProcessTable.startTime(of: $0.pid) == $0.started }.map(\.pid)
    #expect(
        running.isEmpty, "still running after stop: \(running.map { "\($0) \(ProcessTable.commandLine(of: $0) ?? [])" })",
        sourceLocation: sourceLocation)
    let leftovers = sandbox.leftoverProcesses()
    #expect(
        leftovers.isEmpty, "left behind: \(leftovers.map { "\($0) \(ProcessTable.commandLine(of: $0) ?? [])" })",
        sourceLocation: sourceLocation)
    #expect(!FileManager.default.fileExists(atPath: sandbox.root.path), "the sandbox folder is still there", sourceLocation: sourceLocation)
}
