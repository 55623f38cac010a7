import LinuxSystem

/// Pipes whose ends are closed on `exec`, so they never leak into programs started meanwhile.
package enum Pipes {
    /// A new pipe: (read end, write end), both close-on-exec.
    package static func make() throws -> (Int32, Int32) {
        let (readEnd, writeEnd) = try makeDescriptors()
        return (readEnd.rawValue, writeEnd.rawValue)
    }

    /// A new pipe as descriptors: (read end, write end), both close-on-exec.
    static func makeDescriptors() throws -> (readEnd: FileDescriptor, writeEnd: FileDescriptor) {
        do {
            return try FileDescriptor.pipe()
        } catch {
            throw SandboxError.failed("pipe(): \(error)")
        }
    }

    /// What can be read from `descriptor` until the pipe's end (every write end closed,
    /// wherever it was), or nil when the end did not come within `timeout`: how a test sees that
    /// no copy of a write end it handed out is still open. Blocks the calling thread.
    package static func readToEnd(_ descriptor: Int32, timeout: Duration) -> String? {
        let descriptor = FileDescriptor(rawValue: descriptor)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            var entries = [PollDescriptor(descriptor, events: .readable)]
            let milliseconds = min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000, 60_000)
            let ready = try? FileDescriptor.poll(&entries, timeoutMilliseconds: Int32(max(1, milliseconds)))
            guard let ready, ready > 0 else { continue }
            let read = buffer.withUnsafeMutableBytes { bytes in
                Result { () throws(Errno) in try descriptor.read(into: bytes) }
            }
            switch read {
            case .success(0): return String(decoding: bytes, as: UTF8.self)
            case .success(let count): bytes += buffer[0..<count]
            case .failure(.wouldBlock): continue
            case .failure: return nil
            }
        }
    }
}
