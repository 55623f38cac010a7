import CLinux

#if canImport(Glibc)
import Glibc
#endif

extension FileDescriptor {
    /// Makes an event counter, readable while it is not zero (`eventfd(2)`); close-on-exec and
    /// non-blocking. `signalEvent` adds to it, `takeEvents` reads and resets it.
    package static func eventCounter() throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try systemCall(.eventfd) { eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK)) })
    }

    /// Adds one to an event counter, waking whoever polls it (`write(2)`).
    package func signalEvent() throws(Errno) {
        try writeCount(1)
    }

    /// Reads an event counter's value and resets it to zero (`read(2)`); `.wouldBlock` when it is
    /// zero.
    package func takeEvents() throws(Errno) -> UInt64 {
        try readCount()
    }
}
