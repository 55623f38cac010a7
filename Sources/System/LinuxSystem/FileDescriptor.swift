#if canImport(Glibc)
import Glibc
#endif

/// A file descriptor's number, with the system calls made on it as methods.
///
/// A plain value, as in swift-system: it owns nothing and closes nothing by itself; whoever opens
/// one closes it (`close()`). Every method throws the call's `Errno`, and none returns `EINTR`:
/// interrupted calls are retried.
package struct FileDescriptor: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The descriptor's number in this process.
    package let rawValue: Int32

    /// The descriptor numbered `rawValue`.
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// Standard input, 0.
    package static let standardInput = FileDescriptor(rawValue: STDIN_FILENO)
    /// Standard output, 1.
    package static let standardOutput = FileDescriptor(rawValue: STDOUT_FILENO)
    /// Standard error, 2.
    package static let standardError = FileDescriptor(rawValue: STDERR_FILENO)

    /// `fd N`, for messages.
    package var description: String { "fd \(rawValue)" }

    /// Opens the file at `path` (`open(2)`); `permissions` are the mode of a file `.create` makes.
    package static func open(
        _ path: String, _ access: AccessMode, options: OpenOptions = [.closeOnExec], permissions: UInt32 = 0
    ) throws(Errno) -> FileDescriptor {
        let flags = access.rawValue | options.rawValue
        return FileDescriptor(rawValue: try systemCall(.open) { Glibc.open(path, flags, mode_t(permissions)) })
    }

    /// Closes the descriptor (`close(2)`). Not retried when interrupted: Linux has closed the
    /// descriptor even then, and its number may already name another file.
    package func close() throws(Errno) {
        _ = try systemCall(.close, retryOnInterrupt: false) { Glibc.close(rawValue) }
    }

    /// Reads up to `buffer.count` bytes into `buffer` (`read(2)`); 0 at the end of the file.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try systemCall(.read) { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Writes up to `buffer.count` bytes of `buffer` (`write(2)`, once); how many were written.
    package func write(_ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try systemCall(.write) { Glibc.write(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Writes all of `text` (`write(2)`, as often as it takes), or as much as the descriptor takes
    /// before failing: a terminal that went away fails the write quietly.
    package func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { buffer in try? write(buffer) }
            guard let written, written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Reads one 8-byte count (`read(2)`): an eventfd's counter, a timerfd's expirations.
    package func readCount() throws(Errno) -> UInt64 {
        var count: UInt64 = 0
        let read = try withUnsafeMutableBytes(of: &count) { bytes throws(Errno) in try self.read(into: bytes) }
        guard read == MemoryLayout<UInt64>.size else { throw .ioError }
        return count
    }

    /// Writes one 8-byte count (`write(2)`): adds it to an eventfd's counter.
    package func writeCount(_ count: UInt64) throws(Errno) {
        var count = count
        let written = try withUnsafeBytes(of: &count) { bytes throws(Errno) in try self.write(bytes) }
        guard written == MemoryLayout<UInt64>.size else { throw .ioError }
    }

    /// A new close-on-exec descriptor for the same open file (`fcntl(F_DUPFD_CLOEXEC)`).
    package func duplicate() throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try systemCall(.duplicate) { fcntl(rawValue, F_DUPFD_CLOEXEC, 0) })
    }

    /// Flushes the file's data and metadata to the disk (`fsync(2)`).
    package func sync() throws(Errno) {
        _ = try systemCall(.sync) { fsync(rawValue) }
    }

    /// What kind of file the descriptor is open on (`fstat(2)`).
    package func fileType() throws(Errno) -> FileType {
        var status = stat()
        _ = try systemCall(.status) { fstat(rawValue, &status) }
        return FileType(mode: UInt32(status.st_mode))
    }

    /// Takes an advisory lock on the whole file (`flock(2)`); with `waiting` false, throws
    /// `.lockHeld` at once when another open file holds a conflicting one.
    package func lock(exclusive: Bool = true, waiting: Bool = false) throws(Errno) {
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | (waiting ? 0 : LOCK_NB)
        _ = try systemCall(.lock) { flock(rawValue, operation) }
    }

    /// Whether the descriptor is a terminal (`isatty(3)`).
    package var isTerminal: Bool { isatty(rawValue) == 1 }
}
