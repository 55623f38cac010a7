import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// How a child process ended, from `waitpid`'s status.
package enum ProcessTermination: Hashable, Sendable {
    /// It exited with this status (`WEXITSTATUS`).
    case exited(Int32)
    /// A signal ended it (`WTERMSIG`).
    case signaled(Int32)
}

/// System calls on processes: starting one, signalling one, waiting for a child, and a
/// descriptor that refers to one.
package enum ProcessCalls {
    /// This process's limits on open files, soft then hard (`getrlimit(RLIMIT_NOFILE)`): no
    /// descriptor numbered at or above the soft limit can be made.
    package static func openFileLimits() throws(Errno) -> (soft: UInt64, hard: UInt64) {
        var limits = rlimit()
        _ = try systemCall(.getResourceLimit) { getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limits) }
        return (UInt64(limits.rlim_cur), UInt64(limits.rlim_max))
    }

    /// Sends `signal` to the process `processID` (`kill(2)`; 0 only checks that it exists).
    package static func kill(_ processID: Int32, signal: Int32) throws(Errno) {
        _ = try systemCall(.kill) { Glibc.kill(processID, signal) }
    }

    /// Waits for the child `processID` to end and reaps it (`waitpid(2)`); with `waiting` false,
    /// returns nil at once while it still runs (`WNOHANG`).
    package static func wait(for processID: Int32, waiting: Bool = true) throws(Errno) -> ProcessTermination? {
        var status: Int32 = 0
        let reaped = try systemCall(.waitpid) { waitpid(processID, &status, waiting ? 0 : WNOHANG) }
        guard reaped != 0 else { return nil }
        // <sys/wait.h>'s macros, which Swift does not import: the low 7 bits are the signal.
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }

    /// A descriptor that refers to the running process `processID` and never to another, close-on
    /// -exec (`pidfd_open(2)`, Linux 5.3: `.noSystemCall` before); it becomes readable when the
    /// process ends.
    package static func openHandle(_ processID: Int32) throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try systemCall(.pidfdOpen) { reveille_pidfd_open(processID) })
    }

    /// Starts the program at `path` detached (`posix_spawn(3)`): `arguments` after its name,
    /// `environment` as `NAME=value` entries (nil: this process's), standard input from
    /// `/dev/null`, standard output and error appended to `logPath` (created with mode 0600), and,
    /// with `newSession`, in a session of its own (`POSIX_SPAWN_SETSID`). It starts with no signal
    /// blocked and every signal's default action (`POSIX_SPAWN_SETSIGMASK`, `…_SETSIGDEF`), whatever
    /// the calling thread blocks or this process ignores: a dispatch or cooperative-pool thread
    /// blocks most signals, and a program started from one would otherwise never see `SIGTERM`.
    /// Returns its process id; throws why it could not start (`.noSuchFile`, `.permissionDenied`, …).
    package static func spawn(
        _ path: String, arguments: [String] = [], environment: [String]? = nil,
        appendingOutputTo logPath: String, newSession: Bool = true
    ) throws(Errno) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        var flags = Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        if newSession { flags |= reveille_posix_spawn_setsid() }
        posix_spawnattr_setflags(&attributes, flags)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { $0.map { strdup($0) } + [nil] }
        defer { envp?.forEach { free($0) } }
        var processID: pid_t = 0
        _ = try systemCall(.spawn) { () -> Int32 in
            // posix_spawn returns its error rather than setting errno.
            let status =
                envp.map { posix_spawn(&processID, path, &actions, &attributes, argv, $0) }
                ?? posix_spawn(&processID, path, &actions, &attributes, argv, environ)
            guard status != 0 else { return 0 }
            Glibc.errno = status
            return -1
        }
        return processID
    }
}
