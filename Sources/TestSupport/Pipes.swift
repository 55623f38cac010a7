import Glibc

/// Pipes whose ends are closed on `exec`, so they never leak into programs started meanwhile.
public enum Pipes {
    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32

    /// glibc's `pipe2`, a GNU extension Swift does not import.
    private static let pipe2: Pipe2? = dlsym(nil, "pipe2").map { unsafeBitCast($0, to: Pipe2.self) }

    /// A new pipe: (read end, write end), both close-on-exec.
    public static func make() throws -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        let result: Int32
        if let pipe2 {
            result = pipe2(&ends, O_CLOEXEC)
        } else {
            result = pipe(&ends)
            if result == 0 { for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) } }
        }
        guard result == 0 else { throw SandboxError.failed("pipe(): \(String(cString: strerror(errno)))") }
        return (ends[0], ends[1])
    }

    /// What can be read from `descriptor` until the pipe's end (every write end closed,
    /// wherever it was), or nil when the end did not come within `timeout`: how a test sees that
    /// no copy of a write end it handed out is still open. Blocks the calling thread.
    public static func readToEnd(_ descriptor: Int32, timeout: Duration) -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000, 60_000)
            guard poll(&entry, 1, Int32(max(1, milliseconds))) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return String(decoding: bytes, as: UTF8.self) }
            if count > 0 {
                bytes += buffer[0..<count]
            } else if errno != EINTR && errno != EAGAIN {
                return nil
            }
        }
    }
}
