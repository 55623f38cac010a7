import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// The process's capabilities: what a file's capabilities (`setcap`) gave it at `exec`, and
/// giving them up.
package enum Capabilities {
    /// The calling thread's permitted capabilities, as bits by number (`capget(2)`):
    /// `CAP_WAKE_ALARM` is bit 35.
    package static func permitted() throws(Errno) -> UInt64 {
        var bits: UInt64 = 0
        _ = try systemCall(.capabilitiesGet) { reveille_capabilities_permitted(&bits) }
        return bits
    }

    /// `CAP_WAKE_ALARM`'s bit in `permitted()`.
    package static let wakeAlarm: UInt64 = 1 << 35

    /// Gives up every capability that a file's capabilities gave a process of an ordinary user
    /// (`capset(2)`: effective, permitted, inheritable and so ambient), so that it is an ordinary
    /// process of its user again: the kernel lets another of the user's processes read it through
    /// `/proc` (its executable, say) only when that one holds every capability it holds; and it is
    /// made dumpable (`PR_SET_DUMPABLE`), which a kernel may turn off at an `exec` that raised
    /// capabilities. Does nothing for root, whose capabilities are its own, nor for a process that
    /// holds none, nor for a set-user-ID or set-group-ID one. Call it before the process starts a
    /// thread: capabilities are each thread's.
    package static func dropFileCapabilities() throws(Errno) {
        guard getuid() != 0, geteuid() == getuid(), getegid() == getgid(), try permitted() != 0 else { return }
        _ = try systemCall(.capabilitiesSet) { reveille_capabilities_clear() }
        _ = try systemCall(.setDumpable) { reveille_set_dumpable(1) }
    }
}
