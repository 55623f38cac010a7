import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// What the process does with a signal that has no handler of its own.
package enum SignalDisposition: Sendable {
    /// `SIG_IGN`: nothing (a dispatch signal source still sees it).
    case ignore
    /// `SIG_DFL`: the signal's default action (for `SIGTERM`, ending the process).
    case `default`

    /// Sets this disposition for `signal` (`signal(2)`).
    package func apply(to signal: Int32) {
        _ = Glibc.signal(signal, self == .ignore ? SIG_IGN : SIG_DFL)
    }
}

/// Which signals the calling thread holds back (its signal mask), for signals read from a
/// descriptor instead of by a handler.
package enum SignalMask {
    /// Blocks `signals` in the calling thread (`pthread_sigmask(SIG_BLOCK)`): they stay pending
    /// until read from a signal descriptor. The threads it starts from then on inherit the mask, so
    /// a process blocks them in its main thread before it starts any other.
    package static func block(_ signals: [Int32]) {
        var set = signalSet(signals)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Unblocks `signals` in the calling thread (`pthread_sigmask(SIG_UNBLOCK)`).
    package static func unblock(_ signals: [Int32]) {
        var set = signalSet(signals)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    fileprivate static func signalSet(_ signals: [Int32]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        return set
    }
}

extension FileDescriptor {
    /// Makes a descriptor that is readable while one of `signals` is pending (`signalfd(2)`),
    /// close-on-exec and non-blocking. The signals must be blocked (`SignalMask.block`) in every
    /// thread, or one that does not block them takes them first.
    package static func signals(_ signals: [Int32]) throws(Errno) -> FileDescriptor {
        var set = SignalMask.signalSet(signals)
        return FileDescriptor(rawValue: try systemCall(.signalfd) { signalfd(-1, &set, Int32(SFD_CLOEXEC | SFD_NONBLOCK)) })
    }

    /// Takes one pending signal from a signal descriptor and returns its number; nil when none is
    /// pending.
    package func takeSignal() throws(Errno) -> Int32? {
        var information = signalfd_siginfo()
        do throws(Errno) {
            let read = try withUnsafeMutableBytes(of: &information) { bytes throws(Errno) in try self.read(into: bytes) }
            guard read == MemoryLayout<signalfd_siginfo>.size else { throw Errno.ioError }
        } catch let error where error == .wouldBlock {
            return nil
        }
        return Int32(bitPattern: information.ssi_signo)
    }
}
