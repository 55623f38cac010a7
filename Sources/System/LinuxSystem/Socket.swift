#if canImport(Glibc)
import Glibc
#endif

extension FileDescriptor {
    /// Sends up to `buffer.count` bytes on a connected socket (`send(2)` with `MSG_NOSIGNAL`,
    /// once); how many were sent. A peer that has closed its end gives `.brokenPipe`, never
    /// `SIGPIPE`.
    package func send(_ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try systemCall(.send) { Glibc.send(rawValue, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
    }
}
