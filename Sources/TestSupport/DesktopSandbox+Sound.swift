import Foundation

/// Listening to the sandbox's ALSA capture: what a person in the room would hear.
extension DesktopSandbox {
    /// Waits until the capture holds at least `bytes` bytes (sound is playing and got that far).
    @discardableResult
    public func waitForCapturedBytes(atLeast bytes: Int, timeout: Duration = .seconds(30)) async throws -> Int {
        try await Poll.until("\(bytes) bytes of captured sound", timeout: timeout, detail: { "captured \(self.capturedByteCount)" }) {
            let count = capturedByteCount
            return count >= bytes ? count : nil
        }
    }

    /// Waits until the capture stops growing: the same size for `quiet` (longer than the pacing
    /// pipe takes to drain a write), and returns that size. Sound that goes on playing never settles.
    @discardableResult
    public func waitForSilence(quiet: Duration = .milliseconds(700), timeout: Duration = .seconds(30)) async throws -> Int {
        var last = capturedByteCount
        var since = ContinuousClock.now
        return try await Poll.until("the captured sound to stop growing", timeout: timeout, detail: { "captured \(self.capturedByteCount)" }) {
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
