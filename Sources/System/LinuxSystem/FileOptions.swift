#if canImport(Glibc)
import Glibc
#endif

/// How a file is opened for access: `O_RDONLY`, `O_WRONLY` or `O_RDWR`.
package struct AccessMode: RawRepresentable, Hashable, Sendable {
    /// The `O_` flag.
    package let rawValue: Int32
    /// The mode with flag `rawValue`.
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// `O_RDONLY`.
    package static let readOnly = AccessMode(rawValue: O_RDONLY)
    /// `O_WRONLY`.
    package static let writeOnly = AccessMode(rawValue: O_WRONLY)
    /// `O_RDWR`.
    package static let readWrite = AccessMode(rawValue: O_RDWR)
}

/// The other `open(2)` flags.
package struct OpenOptions: OptionSet, Hashable, Sendable {
    /// The `O_` flags.
    package let rawValue: Int32
    /// The options with flags `rawValue`.
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// `O_CLOEXEC`: closed in a program this process starts.
    package static let closeOnExec = OpenOptions(rawValue: O_CLOEXEC)
    /// `O_NONBLOCK`: calls on it never wait (opening a FIFO does not wait for a writer).
    package static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
    /// `O_CREAT`: creates the file when it is not there.
    package static let create = OpenOptions(rawValue: O_CREAT)
    /// `O_TRUNC`: empties the file.
    package static let truncate = OpenOptions(rawValue: O_TRUNC)
    /// `O_APPEND`: every write goes to the end.
    package static let append = OpenOptions(rawValue: O_APPEND)
    /// `O_DIRECTORY`: fails unless the path is a folder.
    package static let directory = OpenOptions(rawValue: O_DIRECTORY)
}

/// The kind of a file, from its `st_mode` (`S_IFMT`).
package enum FileType: Hashable, Sendable {
    /// `S_IFREG`.
    case regular
    /// `S_IFDIR`.
    case directory
    /// `S_IFLNK`.
    case symbolicLink
    /// `S_IFIFO`.
    case fifo
    /// `S_IFSOCK`.
    case socket
    /// `S_IFCHR`.
    case characterDevice
    /// `S_IFBLK`.
    case blockDevice
    /// Any other.
    case unknown

    /// The kind a `stat`'s `st_mode` names.
    init(mode: UInt32) {
        switch mode & UInt32(S_IFMT) {
        case UInt32(S_IFREG): self = .regular
        case UInt32(S_IFDIR): self = .directory
        case UInt32(S_IFLNK): self = .symbolicLink
        case UInt32(S_IFIFO): self = .fifo
        case UInt32(S_IFSOCK): self = .socket
        case UInt32(S_IFCHR): self = .characterDevice
        case UInt32(S_IFBLK): self = .blockDevice
        default: self = .unknown
        }
    }
}
