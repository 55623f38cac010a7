#if canImport(Glibc)
import Glibc
#endif

/// An error number from the kernel or the C library (`errno`), thrown by every wrapper in this
/// module.
///
/// Two values are equal when their numbers are; `description` is the C library's text for the
/// number (`strerror`, in the language of `LC_MESSAGES`), so a message reads as it always has.
package struct Errno: Error, Hashable, Sendable, RawRepresentable, CustomStringConvertible {
    /// The error number (`EINTR`, `ENOENT`, …).
    package let rawValue: Int32

    /// The error with number `rawValue`.
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno` now.
    package static var current: Errno { Errno(rawValue: Glibc.errno) }

    /// The C library's text for the number (`strerror`): "No such file or directory".
    package var description: String { String(cString: strerror(rawValue)) }

    /// `EINTR`: a signal arrived during the call. The wrappers retry these themselves.
    package static let interrupted = Errno(rawValue: EINTR)
    /// `EAGAIN` (also `EWOULDBLOCK`): a non-blocking call found nothing to do yet.
    package static let wouldBlock = Errno(rawValue: EAGAIN)
    /// `ENOENT`: no such file or directory.
    package static let noSuchFile = Errno(rawValue: ENOENT)
    /// `EMFILE`: this process has no file descriptor left.
    package static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    /// `ENFILE`: the system has no open file left.
    package static let tooManyOpenFilesInSystem = Errno(rawValue: ENFILE)
    /// `EBADF`: not an open file descriptor (or not open for the operation).
    package static let badFileDescriptor = Errno(rawValue: EBADF)
    /// `EINVAL`: an argument the call does not take.
    package static let invalidArgument = Errno(rawValue: EINVAL)
    /// `EACCES`: permission denied.
    package static let permissionDenied = Errno(rawValue: EACCES)
    /// `EPERM`: the operation is not permitted (a capability is missing, the file is immutable).
    package static let notPermitted = Errno(rawValue: EPERM)
    /// `EROFS`: the file system is mounted read-only.
    package static let readOnlyFileSystem = Errno(rawValue: EROFS)
    /// `ENOTDIR`: a component of the path is not a folder.
    package static let notADirectory = Errno(rawValue: ENOTDIR)
    /// `EEXIST`: the file exists.
    package static let fileExists = Errno(rawValue: EEXIST)
    /// `ESRCH`: no such process.
    package static let noSuchProcess = Errno(rawValue: ESRCH)
    /// `ECHILD`: no child process to wait for.
    package static let noChildProcess = Errno(rawValue: ECHILD)
    /// `ECANCELED`: the operation was cancelled (a timer's wall clock was set).
    package static let canceled = Errno(rawValue: ECANCELED)
    /// `EPIPE`: the reading end of the pipe is closed.
    package static let brokenPipe = Errno(rawValue: EPIPE)
    /// `ENOSPC`: no space left on the device.
    package static let noSpace = Errno(rawValue: ENOSPC)
    /// `EIO`: an input/output error.
    package static let ioError = Errno(rawValue: EIO)
    /// `ENOSYS`: the kernel has no such call (an older kernel).
    package static let noSystemCall = Errno(rawValue: ENOSYS)
    /// `ENOMEM`: out of memory.
    package static let noMemory = Errno(rawValue: ENOMEM)
    /// `ENOTTY`: not a terminal.
    package static let notATerminal = Errno(rawValue: ENOTTY)
    /// `EWOULDBLOCK` from `flock`: the lock is held elsewhere (the same number as `wouldBlock`).
    package static let lockHeld = Errno(rawValue: EWOULDBLOCK)
}
