import Glibc
import LinuxSystem

/// Starting programs with `posix_spawn`, cleanly: default signal handlers and an empty signal mask
/// in the child, no descriptors of this process but the ones asked for, optionally a process group
/// of its own.
///
/// Foundation's `Process` is not used for test programs: on Linux it hands the child a socket it
/// watches to learn that the child ended, so `waitUntilExit()` hangs as long as any descendant
/// (such as a daemon that forked) keeps that socket; and the child inherits the signal mask of the
/// calling thread, where Swift's worker threads block SIGTERM, so `dbus-daemon` started from a
/// test never reacted to SIGTERM.
enum ProcessSpawner {
    /// Where one of the standard descriptors of the child comes from.
    enum Stream {
        /// Opened from a path (input: read only; output: created, truncated, appended to).
        case path(String)
        /// A descriptor of this process.
        case descriptor(Int32)
        /// The same as this process's.
        case inherited
    }

    private typealias AddClosefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`, a GNU extension Swift does not
    /// import; found at run time.
    private static let addClosefrom: AddClosefrom? =
        dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map { unsafeBitCast($0, to: AddClosefrom.self) }

    /// glibc's `posix_spawn_file_actions_addchdir_np`, likewise.
    private static let addChdir: AddChdir? =
        dlsym(nil, "posix_spawn_file_actions_addchdir_np").map { unsafeBitCast($0, to: AddChdir.self) }

    /// Starts `executable` (a path) and returns its process id.
    ///
    /// `passing` maps descriptors of this process to descriptor numbers (above 2) in the child; every
    /// other descriptor above 2 is closed in the child.
    static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String],
        standardInput: Stream = .path("/dev/null"), standardOutput: Stream, standardError: Stream,
        newProcessGroup: Bool, currentDirectory: String? = nil, passing descriptors: [(parent: Int32, child: Int32)] = []
    ) throws -> pid_t {
        try spawn(
            executable, byteArguments: arguments.map { Array($0.utf8) }, environment: environment, standardInput: standardInput,
            standardOutput: standardOutput, standardError: standardError, newProcessGroup: newProcessGroup,
            currentDirectory: currentDirectory, passing: descriptors)
    }

    /// Starts `executable` with arguments given as bytes, which need not be UTF-8 (a command line
    /// may hold any bytes but NUL); see `spawn(_:_:environment:…)`.
    static func spawn(
        _ executable: String, byteArguments arguments: [[UInt8]], environment: [String: String],
        standardInput: Stream = .path("/dev/null"), standardOutput: Stream, standardError: Stream,
        newProcessGroup: Bool, currentDirectory: String? = nil, passing descriptors: [(parent: Int32, child: Int32)] = []
    ) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        var flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var duplicates: [Int32] = []
        defer { for duplicate in duplicates { try? FileDescriptor(rawValue: duplicate).close() } }

        /// dup2 onto the same number would leave close-on-exec set: go through a spare number.
        func source(_ parent: Int32, for child: Int32) throws -> Int32 {
            guard parent == child else { return parent }
            let spare = fcntl(parent, F_DUPFD_CLOEXEC, 10)
            guard spare >= 0 else { throw SandboxError.failed("fcntl(): \(String(cString: strerror(errno)))") }
            duplicates.append(spare)
            return spare
        }
        for (number, stream) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            switch stream {
            case .path(let path):
                let mode = number == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC | O_APPEND
                posix_spawn_file_actions_addopen(&actions, number, path, mode, 0o644)
            case .descriptor(let parent):
                posix_spawn_file_actions_adddup2(&actions, try source(parent, for: number), number)
            case .inherited:
                break
            }
        }
        var highest: Int32 = 2
        for (parent, child) in descriptors {
            precondition(child > 2, "pass descriptors to numbers above 2")
            posix_spawn_file_actions_adddup2(&actions, try source(parent, for: child), child)
            highest = max(highest, child)
        }
        if let addClosefrom { _ = addClosefrom(&actions, highest + 1) }
        if let currentDirectory {
            guard let addChdir else { throw SandboxError.failed("this C library cannot start a program in another folder") }
            _ = addChdir(&actions, currentDirectory)
        }

        guard !arguments.contains(where: { $0.contains(0) }) else {
            throw SandboxError.failed("a command-line argument cannot hold a NUL byte")
        }
        let argv =
            ([Array(executable.utf8)] + arguments).map { bytes -> UnsafeMutablePointer<CChar>? in
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
                for (index, byte) in bytes.enumerated() { copy[index] = CChar(bitPattern: byte) }
                copy[bytes.count] = 0
                return copy
            } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { pointer?.deallocate() }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        var result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        // A program file written a moment ago (a test's copy of a build) is busy (ETXTBSY) while
        // a child that another thread of this process is starting still holds the descriptor the
        // copy was written through, inherited in the instant between its fork and its exec. Seen
        // once in a full run: tried again, 20 ms apart, for at most a second.
        var busyTries = 0
        while result == ETXTBSY, busyTries < 50 {
            busyTries += 1
            usleep(20_000)
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        }
        guard result == 0 else {
            throw SandboxError.failed("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        return pid
    }

    /// Waits for the child `pid` to end and reaps it; `nil` if it is not a child of this process
    /// (or something else reaped it first).
    static func wait(_ pid: pid_t) -> SandboxProcess.ExitStatus? {
        // Without WNOHANG waitpid returns only once the child has ended: nil only from an error.
        switch try? ProcessCalls.wait(for: pid) {
        case .exited(let status): .exited(status)
        case .signaled(let signal): .signaled(signal)
        case nil: nil
        }
    }
}
