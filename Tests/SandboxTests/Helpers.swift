import Foundation
import Testing
@testable import TestSupport

/// Whether the sandbox and the programs these tests run are installed; the message names what is missing.
let sandboxMissing = DesktopSandbox.availability(also: ["notify-send", "aplay"])

/// Stops `sandbox` and checks that nothing it started, or that carries its environment, still runs,
/// and that its folder is gone.
func stopAndExpectNothingLeft(_ sandbox: DesktopSandbox, sourceLocation: SourceLocation = #_sourceLocation) {
    let pids = sandbox.processIDs
    let started = ContinuousClock.now
    sandbox.stopAndWait()
    let took = ContinuousClock.now - started
    print("sandbox started in \(sandbox.startupDuration), stopped in \(took)")
    let running = pids.filter(ProcessTable.isRunning)
    #expect(running.isEmpty, "still running after stop: \(running.map { "\($0) \(ProcessTable.commandLine(of: $0) ?? [])" })", sourceLocation: sourceLocation)
    let leftovers = sandbox.leftoverProcesses()
    #expect(leftovers.isEmpty, "left behind: \(leftovers.map { "\($0) \(ProcessTable.commandLine(of: $0) ?? [])" })", sourceLocation: sourceLocation)
    #expect(!FileManager.default.fileExists(atPath: sandbox.root.path), "the sandbox folder is still there", sourceLocation: sourceLocation)
}
