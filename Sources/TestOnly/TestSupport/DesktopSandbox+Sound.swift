import Foundation

/// Listening to the sandbox's ALSA capture: what a person in the room would hear.
extension DesktopSandbox {
    /// Waits until the capture holds at least `bytes` bytes (sound is playing and got that far).
    @discardableResult
    package func waitForCapturedBytes(atLeast bytes: Int, timeout: Duration = .seconds(30)) async throws -> Int {
        try await Poll.until("\(bytes) bytes of captured sound", timeout: timeout, detail: { "captured \(self.capturedByteCount)" }) {
            let count = capturedByteCount
            return count >= bytes ? count : nil
        }
    }

    /// Waits until `player` (the agent's process id) plays nothing, judged from the players
    /// themselves (see `waitForPlayers(of:count:)`); returns the capture's size then.
    @discardableResult
    package func waitForSilence(of player: pid_t, timeout: Duration = .seconds(30)) async throws -> Int {
        try await waitForPlayers(of: player, count: 0, timeout: timeout)
    }

    /// Waits until `player` (the agent's process id) has exactly `count` sound players: threads
    /// named `reveille-sound` (a player's thread ends once it has closed its device). Closing a
    /// paced device waits for its `pv` to write out what it holds (`pclose`), so what a stopped
    /// player played is all in the capture then; returns the capture's size.
    @discardableResult
    package func waitForPlayers(of player: pid_t, count: Int, timeout: Duration = .seconds(30)) async throws -> Int {
        try await Poll.until(
            "process \(player) to have \(count) sound players", timeout: timeout,
            detail: {
                "threads: \(ProcessTable.threadNames(of: player))"
            }
        ) {
            ProcessTable.threadNames(of: player).count { $0 == "reveille-sound" } == count ? capturedByteCount : nil
        }
    }

    /// Waits until the capture stops growing: the same size for `quiet` (longer than the pacing
    /// pipe takes to drain a write), and returns that size. Sound that goes on playing never settles.
    @discardableResult
    package func waitForSilence(quiet: Duration = .milliseconds(700), timeout: Duration = .seconds(30)) async throws -> Int {
        var last = capturedByteCount
        var since = ContinuousClock.now
        return try await Poll.until(
            "the captured sound to stop growing", timeout: timeout, detail: { "captured \(self.capturedByteCount)" }
        ) {
            let now = capturedByteCount
            if now != last {
                last = now
                since = .now
                return nil
            }
            return ContinuousClock.now - since >= quiet ? now : nil
        }
    }
}

/// Reads the capture as it grows, a new part at a time, keeping which sample values were heard:
/// cheap to call often, however long the capture gets. (Paced capture: one file.)
package final class CaptureListener: @unchecked Sendable {  // used from one test task at a time
    private let url: URL
    private var offset: UInt64 = 0
    private var carry: UInt8?
    /// Whether each 16-bit sample value (as its bit pattern) was heard.
    private var seen = [Bool](repeating: false, count: 65_536)

    /// Listens to the sandbox's capture from its current end (`fromStart`: from its beginning).
    package init(_ sandbox: DesktopSandbox, fromStart: Bool = false) {
        url = sandbox.captureURL
        if !fromStart { offset = UInt64(sandbox.capturedByteCount) }
    }

    /// Whether `value` was heard (since `forget()`).
    package func heard(_ value: Int16) -> Bool { seen[Int(UInt16(bitPattern: value))] }

    /// Reads what was captured since the last call.
    package func listen() {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return }
        defer { try? handle.close() }
        try? handle.seek(toOffset: offset)
        guard let data = try? handle.readToEnd(), !data.isEmpty else { return }
        offset += UInt64(data.count)
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var index = 0
            if let low = carry {
                seen[Int(UInt16(low) | UInt16(bytes[0]) << 8)] = true
                carry = nil
                index = 1
            }
            seen.withUnsafeMutableBufferPointer { seen in
                while index + 1 < bytes.count {
                    seen[Int(UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)] = true
                    index += 2
                }
            }
            if index < bytes.count { carry = bytes[index] }
        }
    }

    /// Forgets what was heard and goes on from the capture's current end.
    package func forget() {
        listen()
        seen = [Bool](repeating: false, count: 65_536)
    }
}
