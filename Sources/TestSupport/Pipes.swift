import Glibc

/// Pipes whose ends are closed on `exec`, so they never leak into programs started meanwhile.
enum Pipes {
    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32

    /// glibc's `pipe2`, a GNU extension Swift does not import.
    private static let pipe2: Pipe2? = dlsym(nil, "pipe2").map { unsafeBitCast($0, to: Pipe2.self) }

    /// A new pipe: (read end, write end), both close-on-exec.
    static func make() throws -> (Int32, Int32) {
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
}
