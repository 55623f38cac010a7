import Foundation
import Glibc
import LinuxSystem
import Synchronization

/// A program started by the sandbox: in its own process group, with its standard output and error
/// captured to files, and reaped by a thread of its own so it never lingers as a zombie.
package final class SandboxProcess: Sendable {
    /// How a process ended.
    package enum ExitStatus: Sendable, Hashable, CustomStringConvertible {
        /// It called `exit` with this code.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)

        /// `exit 0`, `exit 3`, `signal 15`.
        package var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signaled(let signal): "signal \(signal)"
            }
        }
    }

    /// The process id, which is also its process group id.
    package let pid: pid_t
    /// The program's path.
    package let executable: String
    /// The arguments after the program.
    package let arguments: [String]
    /// Where standard output goes.
    package let standardOutputURL: URL
    /// Where standard error goes.
    package let standardErrorURL: URL

    private let status = Mutex<ExitStatus?>(nil)
    private let exited = DispatchGroup()

    // MARK: Starting

    /// Starts `executable` (a path) with `arguments` and exactly `environment`, in a new process
    /// group, with standard input from `/dev/null`; `passing` maps descriptors of this process to
    /// descriptor numbers in the child (all other descriptors are closed in the child).
    convenience init(
        executable: String, arguments: [String], environment: [String: String], outputFolder: URL,
        currentDirectory: URL? = nil, passing descriptors: [(parent: Int32, child: Int32)] = []
    ) throws {
        try self.init(
            executable: executable, byteArguments: arguments.map { Array($0.utf8) }, environment: environment,
            outputFolder: outputFolder, currentDirectory: currentDirectory, passing: descriptors)
    }

    /// Starts `executable` with arguments given as bytes (any but NUL, UTF-8 or not); see
    /// `init(executable:arguments:environment:outputFolder:currentDirectory:passing:)`.
    init(
        executable: String, byteArguments: [[UInt8]], environment: [String: String], outputFolder: URL,
        currentDirectory: URL? = nil, passing descriptors: [(parent: Int32, child: Int32)] = []
    ) throws {
        let label = "\(URL(fileURLWithPath: executable).lastPathComponent)-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(at: outputFolder, withIntermediateDirectories: true)
        standardOutputURL = outputFolder.appendingPathComponent("\(label).out")
        standardErrorURL = outputFolder.appendingPathComponent("\(label).err")
        self.executable = executable
        arguments = byteArguments.map { String(decoding: $0, as: UTF8.self) }
        pid = try ProcessSpawner.spawn(
            executable, byteArguments: byteArguments, environment: environment, standardOutput: .path(standardOutputURL.path),
            standardError: .path(standardErrorURL.path), newProcessGroup: true, currentDirectory: currentDirectory?.path,
            passing: descriptors)
        exited.enter()
        // The thread keeps the object alive until the process has ended and been reaped.
        Thread.detachNewThread { [self] in
            // `nil`: something else in this process reaped it; it has ended all the same.
            let result = ProcessSpawner.wait(pid) ?? .exited(-1)
            status.withLock { $0 = result }
            exited.leave()
        }
    }

    // MARK: Signals

    /// Sends SIGTERM to the process's whole group.
    package func terminate() { signal(SIGTERM) }

    /// Sends SIGKILL to the process's whole group.
    package func kill() { signal(SIGKILL) }

    /// Sends `signal` to the process's whole group (the process and any children it did not move
    /// to a group of their own).
    ///
    /// Once the process has ended and its group is empty this does nothing: the number may belong
    /// to another group by then.
    package func signal(_ signal: Int32) {
        guard isRunning || !groupMembers.isEmpty else { return }
        try? ProcessCalls.kill(-pid, signal: signal)
    }

    /// The live processes of its group: the process itself while it runs, and any children it did
    /// not move to a group of their own (the group outlives its leader while they run).
    package var groupMembers: [pid_t] { ProcessTable.members(ofGroup: pid) }

    // MARK: Waiting

    /// How it ended, or `nil` while it runs.
    package var exitStatus: ExitStatus? { status.withLock { $0 } }

    /// Whether it is still running.
    package var isRunning: Bool { exitStatus == nil }

    /// Blocks until it ends; throws `SandboxError.timeout` when `timeout` passes first (it keeps running).
    @discardableResult
    package func waitForExit(timeout: Duration) throws -> ExitStatus {
        let (seconds, attoseconds) = timeout.components
        let wait = DispatchTimeInterval.nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        guard exited.wait(timeout: .now() + wait) == .success, let status = exitStatus else {
            throw SandboxError.timeout("\(description) still runs after \(timeout)")
        }
        return status
    }

    /// Waits until it ends without blocking a thread; throws `SandboxError.timeout` when `timeout`
    /// passes first (it keeps running).
    @discardableResult
    package func waitForExit(timeout: Duration) async throws -> ExitStatus {
        try await Poll.until("\(description) to exit", timeout: timeout) { exitStatus }
    }

    /// Ends the process group: SIGTERM, then SIGKILL when it has not ended after `grace`; then
    /// SIGKILL to any of its group left behind. Returns how the process ended.
    @discardableResult
    package func stop(grace: Duration = .seconds(2)) -> ExitStatus? {
        if isRunning {
            terminate()
            if (try? waitForExit(timeout: grace)) == nil {
                kill()
                _ = try? waitForExit(timeout: .seconds(5))
            }
        }
        if !groupMembers.isEmpty { kill() }
        return exitStatus
    }

    // MARK: Output

    /// Everything it wrote to standard output so far.
    package var standardOutput: String { Self.read(standardOutputURL) }

    /// Everything it wrote to standard error so far.
    package var standardError: String { Self.read(standardErrorURL) }

    /// Waits until standard output contains `text`; returns the whole output. Throws
    /// `SandboxError.timeout` (quoting both outputs) when `timeout` passes first, and
    /// `SandboxError.failed` when the process ends without writing it.
    @discardableResult
    package func waitForStandardOutput(containing text: String, timeout: Duration) async throws -> String {
        try await Poll.until("\(description) to print \(text.debugDescription)", timeout: timeout, detail: outputs) {
            let output = standardOutput
            if output.contains(text) { return output }
            if let status = exitStatus, !standardOutput.contains(text) {
                throw SandboxError.failed("\(self.description) ended (\(status)) without printing \(text.debugDescription)\n\(outputs())")
            }
            return nil
        }
    }

    /// Both outputs, labelled, for failure messages.
    package func outputs() -> String {
        "stdout: \(standardOutput.debugDescription)\nstderr: \(standardError.debugDescription)"
    }

    private static func read(_ url: URL) -> String {
        (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }

    /// `notify-send[1234]`.
    package var description: String { "\(URL(fileURLWithPath: executable).lastPathComponent)[\(pid)]" }
}
