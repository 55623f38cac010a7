import DBus
import FoundationEssentials
import LinuxSystem
import AlarmModel

#if canImport(Glibc)
import Glibc
#endif

/// A process file descriptor (pidfd): a reference to one process that, unlike its id, can never
/// come to name another. One wrapper per call: `pidfd_open`, the `Pid:` line of its
/// `/proc/self/fdinfo` entry, and `poll` for its end.
///
/// A bus of dbus 1.15.2 or later hands one out with a caller's credentials (`ProcessFD`), so that
/// what is read of `/proc/PID` can be checked to belong to that caller: read the id through the
/// pidfd, read `/proc`, then make sure the process has not ended meanwhile (while it runs, no other
/// process can take its id).
struct ProcessHandle {
    /// The pidfd, owned.
    let descriptor: UnixFileDescriptor

    /// Opens a pidfd for a running process (`pidfd_open`), or the reason it cannot (no such
    /// process, a kernel before 5.3).
    static func open(processID: pid_t) throws(POSIXError) -> ProcessHandle {
        do {
            return ProcessHandle(descriptor: UnixFileDescriptor(taking: try ProcessCalls.openHandle(processID).rawValue))
        } catch {
            throw POSIXError(error)
        }
    }

    /// The process's id in this process's pid namespace, from the kernel's `fdinfo` of the pidfd;
    /// nil when the process has ended (the kernel then says -1, or 0 when it is in no namespace of ours)
    /// or the descriptor is not a pidfd.
    var processID: UInt32? {
        guard let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(descriptor.rawValue)", encoding: .utf8) else {
            return nil
        }
        return Self.processID(fdinfo: info)
    }

    /// The value of the `Pid:` line of a pidfd's `fdinfo` text, when it names a process.
    static func processID(fdinfo: String) -> UInt32? {
        for line in fdinfo.split(whereSeparator: \.isNewline) where line.hasPrefix("Pid:") {
            let value = line.dropFirst("Pid:".count).trimmingWhitespace(newlines: false)
            guard let id = Int64(value), id > 0, id <= Int64(UInt32.max) else { return nil }
            return UInt32(id)
        }
        return nil
    }

    /// Whether the process still runs: a pidfd becomes readable when its process ends (`poll`
    /// with no wait).
    var isRunning: Bool {
        var entries = [PollDescriptor(FileDescriptor(rawValue: descriptor.rawValue), events: .readable)]
        return (try? FileDescriptor.poll(&entries, timeoutMilliseconds: 0)) == 0
    }
}
