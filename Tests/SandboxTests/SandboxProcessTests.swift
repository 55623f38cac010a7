import Foundation
import Glibc
import Testing
import TestRequirements
@testable import TestSupport

/// Programs spawned in the sandbox: process groups, output capture, exit status, waiting.
@Suite("Sandbox processes", .onItsOwnThread, .requires(sandboxMissing), .timeLimit(.minutes(5)))
struct SandboxProcessTests {
    @Test("A spawned program leads its own process group and its output is captured")
    func ownGroupAndOutput() async throws {
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { stopAndExpectNothingLeft(sandbox) }
        let process = try sandbox.spawn("sh", ["-c", "echo out; echo err >&2; cut -d' ' -f5 /proc/$$/stat; exit 3"])
        let status = try await process.waitForExit(timeout: .seconds(10))
        #expect(status == .exited(3))
        let lines = process.standardOutput.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.first == "out")
        #expect(lines.last == String(process.pid), "the group id is the process's own id")
        #expect(process.pid != getpgrp())
        #expect(process.standardError == "err\n")
    }

    @Test("terminate() and kill() end the process; the status says how")
    func signals() async throws {
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { stopAndExpectNothingLeft(sandbox) }
        let terminated = try sandbox.spawn("sleep", ["300"])
        let killed = try sandbox.spawn("sh", ["-c", "trap '' TERM; sleep 300"])
        #expect(terminated.isRunning)
        terminated.terminate()
        #expect(try await terminated.waitForExit(timeout: .seconds(10)) == .signaled(SIGTERM))
        killed.kill()
        #expect(try blockingWait(killed) == .signaled(SIGKILL))
        #expect(!ProcessTable.isRunning(terminated.pid))
        #expect(!ProcessTable.isRunning(killed.pid))
    }

    /// The blocking `waitForExit` (in async code the async one is chosen).
    func blockingWait(_ process: SandboxProcess) throws -> SandboxProcess.ExitStatus {
        try process.waitForExit(timeout: .seconds(10))
    }

    @Test("Waiting past the limit throws and leaves the program running")
    func waitTimesOut() async throws {
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { stopAndExpectNothingLeft(sandbox) }
        let process = try sandbox.spawn("sleep", ["300"])
        await #expect(throws: SandboxError.self) { try await process.waitForExit(timeout: .milliseconds(100)) }
        #expect(throws: SandboxError.self) { try process.waitForExit(timeout: .milliseconds(100)) }
        #expect(process.isRunning)
    }

    @Test("Waiting for output returns once the text is printed")
    func waitForOutput() async throws {
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { stopAndExpectNothingLeft(sandbox) }
        let process = try sandbox.spawn("sh", ["-c", "sleep 0.2; echo ready; sleep 300"])
        let output = try await process.waitForStandardOutput(containing: "ready", timeout: .seconds(10))
        #expect(output == "ready\n")
        #expect(process.isRunning)
        let quitter = try sandbox.spawn("sh", ["-c", "echo other"])
        await #expect(throws: SandboxError.self) {
            try await quitter.waitForStandardOutput(containing: "ready", timeout: .seconds(10))
        }
    }

    @Test("A program that is not installed is named in the error")
    func missingProgram() throws {
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { stopAndExpectNothingLeft(sandbox) }
        #expect(throws: SandboxError.missing(["no-such-program-reveille"])) {
            try sandbox.spawn("no-such-program-reveille")
        }
    }
}
