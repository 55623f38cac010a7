import Foundation
import Glibc
import LinuxSystem
import Synchronization

/// A headless X server (Xvfb) on a display number it picks itself (`-displayfd`), so parallel
/// sandboxes never fight over fixed numbers.
final class XvfbDisplay: Sendable {
    /// The Xvfb process.
    let process: SandboxProcess
    /// The read end of the pipe Xvfb writes its display number to, until it has been read.
    private let readEnd: Mutex<FileDescriptor?>
    /// The display number, once known.
    private let number = Mutex<Int?>(nil)

    /// The descriptor number Xvfb writes its display number to.
    private static let displayDescriptor: Int32 = 3

    /// Starts Xvfb; `waitUntilReady` returns its display.
    init(executable: String, environment: [String: String], outputFolder: URL) throws {
        let (readEnd, writeEnd) = try Pipes.makeDescriptors()
        defer { try? writeEnd.close() }
        do {
            process = try SandboxProcess(
                executable: executable,
                arguments: [
                    "-displayfd", String(Self.displayDescriptor), "-nolisten", "tcp", "-noreset",
                    "-screen", "0", "1280x800x24",
                ],
                environment: environment, outputFolder: outputFolder,
                passing: [(parent: writeEnd.rawValue, child: Self.displayDescriptor)])
        } catch {
            try? readEnd.close()
            throw error
        }
        self.readEnd = Mutex(readEnd)
    }

    /// Waits until the server accepts connections and returns its display name, such as `:3`.
    func waitUntilReady(timeout: Duration) throws -> String {
        if let number = number.withLock({ $0 }) { return ":\(number)" }
        // Once closed, -1: poll ignores it, so the wait runs out its timeout.
        let descriptor = readEnd.withLock { $0 } ?? FileDescriptor(rawValue: -1)
        defer { closeReadEnd() }
        let deadline = ContinuousClock.now + timeout
        var text = ""
        while !text.contains("\n") {
            let left = deadline - .now
            guard left > .zero else {
                throw SandboxError.timeout("Xvfb to report its display within \(timeout)\n\(process.outputs())")
            }
            var poller = [PollDescriptor(descriptor, events: .readable)]
            let milliseconds = Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            guard let ready = try? FileDescriptor.poll(&poller, timeoutMilliseconds: milliseconds), ready > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 64)
            // A failed read, like the pipe's end, means Xvfb is gone.
            let count = (try? buffer.withUnsafeMutableBytes { bytes throws(Errno) in try descriptor.read(into: bytes) }) ?? 0
            guard count > 0 else {
                _ = try? process.waitForExit(timeout: .seconds(1))
                throw SandboxError.failed(
                    "Xvfb ended (\(process.exitStatus.map(\.description) ?? "running")) before reporting a display\n\(process.outputs())")
            }
            text += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        guard let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw SandboxError.failed("Xvfb reported the display \(text.debugDescription)")
        }
        number.withLock { $0 = value }
        return ":\(value)"
    }

    /// Closes the display pipe's read end, if still open.
    private func closeReadEnd() {
        readEnd.withLock { descriptor in
            try? descriptor?.close()
            descriptor = nil
        }
    }

    /// Stops the server and removes its lock file and socket if it could not remove them itself.
    func stop() {
        closeReadEnd()
        process.stop()
        guard let number = number.withLock({ $0 }) else { return }
        let lock = "/tmp/.X\(number)-lock"
        if let owner = try? String(contentsOfFile: lock, encoding: .utf8),
            pid_t(owner.trimmingCharacters(in: .whitespacesAndNewlines)) == process.pid
        {
            try? FileManager.default.removeItem(atPath: lock)
            try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(number)")
        }
    }
}
