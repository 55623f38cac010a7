import Foundation
import Glibc
import Testing
import TestSupport

/// Whether the sandbox's programs are installed; the message names what is missing.
let sandboxMissing = DesktopSandbox.availability()

/// The folder `swift build` put the products in.
enum Built {
    static let folder: URL = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: exe).deletingLastPathComponent()
        while folder.lastPathComponent.hasSuffix(".xctest") || folder.lastPathComponent == "Contents"
            || folder.lastPathComponent == "MacOS"
        {
            folder.deleteLastPathComponent()
        }
        return folder
    }()

    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
}

/// Waits (checking every 20 ms; this is a test) until `body` returns a value.
func eventually<T>(
    _ what: String, timeout: Duration = .seconds(5), _ body: () throws -> T?
) async throws -> T {
    let deadline = ContinuousClock.now + timeout
    while true {
        if let value = try body() { return value }
        guard ContinuousClock.now < deadline else {
            throw ProbeError("timed out after \(timeout) waiting for \(what)")
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}

struct ProbeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `reveille-notify-probe` running in the sandbox, a `NotificationPresenter` in its own process
/// (so libnotify reads the sandbox's `DBUS_SESSION_BUS_ADDRESS` at `notify_init`), driven through
/// a FIFO, printing the responses it receives.
final class Probe {
    let process: SandboxProcess
    private let writer: FileHandle
    private var flushes = 0

    init(_ sandbox: DesktopSandbox) async throws {
        let fifo = sandbox.root.appendingPathComponent("probe-\(UUID().uuidString.prefix(8)).fifo")
        guard mkfifo(fifo.path, 0o600) == 0 else { throw ProbeError("mkfifo failed: \(errno)") }
        // O_RDWR does not block on a FIFO with no reader yet.
        let descriptor = open(fifo.path, O_RDWR)
        guard descriptor >= 0 else { throw ProbeError("open failed: \(errno)") }
        writer = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        process = try sandbox.spawn(Built.path("reveille-notify-probe"), [fifo.path])
        try await process.waitForStandardOutput(containing: "ready", timeout: .seconds(10))
    }

    /// Sends one command line.
    func send(_ fields: String...) {
        writer.write(Data((fields.joined(separator: "\t") + "\n").utf8))
    }

    /// Waits until the presenter has carried out everything sent so far.
    func flush() async throws {
        flushes += 1
        let wanted = flushes
        send("flush")
        _ = try await eventually("the probe to flush") {
            process.standardOutput.components(separatedBy: "flushed\n").count - 1 >= wanted ? true : nil
        }
    }

    /// The responses printed for `id`, in order.
    func responses(for id: UUID) -> [String] {
        process.standardOutput.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t").map(String.init)
            return fields.count == 3 && fields[0] == "action" && fields[1] == id.uuidString ? fields[2] : nil
        }
    }

    /// The responses for `id` once everything sent so far was handled and a late one had a window
    /// to come in, waited out in full: a second and a half, longer than the presenter's
    /// suppression window (a close within a second of posting), the longest it waits before it
    /// answers what the server sent.
    func settledResponses(for id: UUID) async throws -> [String] {
        try await flush()
        _ = try await occurrences(of: "responses for \(id)", over: .milliseconds(1_500)) { responses(for: id).count }
        return responses(for: id)
    }

    /// Waits for a response for `id`.
    func waitForResponse(_ response: String, for id: UUID, timeout: Duration = .seconds(5)) async throws {
        _ = try await eventually("the response \(response) for \(id)", timeout: timeout) {
            responses(for: id).contains(response) ? true : nil
        }
    }

    /// Ends the probe: `quit`, then the process.
    func stop() async {
        send("quit")
        _ = try? await process.waitForExit(timeout: .seconds(5))
        if process.isRunning { _ = process.stop(grace: .zero) }
    }
}
