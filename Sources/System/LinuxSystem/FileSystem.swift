#if canImport(Glibc)
import Glibc
#endif

/// System calls on paths rather than descriptors.
package enum FileSystem {
    /// What `checkAccess` asks for (`access(2)`'s mode).
    package struct Access: OptionSet, Hashable, Sendable {
        /// The `_OK` bits.
        package let rawValue: Int32
        /// The access with bits `rawValue`.
        package init(rawValue: Int32) { self.rawValue = rawValue }

        /// `R_OK`.
        package static let read = Access(rawValue: R_OK)
        /// `W_OK`.
        package static let write = Access(rawValue: W_OK)
        /// `X_OK`.
        package static let execute = Access(rawValue: X_OK)
    }

    /// Renames `source` to `destination`, replacing it atomically (`rename(2)`).
    package static func rename(_ source: String, to destination: String) throws(Errno) {
        _ = try systemCall(.rename) { Glibc.rename(source, destination) }
    }

    /// Removes the file at `path` (`unlink(2)`).
    package static func unlink(_ path: String) throws(Errno) {
        _ = try systemCall(.unlink) { Glibc.unlink(path) }
    }

    /// A file's size and last modification, as `stat(2)` gives them.
    package struct Stamp: Hashable, Sendable {
        /// The size in bytes.
        package let size: Int64
        /// The last modification, in nanoseconds since the epoch.
        package let modifiedNanoseconds: Int64
    }

    /// The size and last modification of the file at `path`, following links (`fstatat(2)`);
    /// unlike Foundation's file attributes, it looks up no owner or group name.
    package static func stamp(_ path: String) throws(Errno) -> Stamp {
        var status = stat()
        _ = try systemCall(.status) { fstatat(AT_FDCWD, path, &status, 0) }
        return Stamp(
            size: Int64(status.st_size),
            modifiedNanoseconds: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec))
    }

    /// Throws the reason this process may not use the file at `path` as `access` says
    /// (`access(2)`: `EROFS` on a read-only mount, `EACCES` without permission).
    package static func checkAccess(_ path: String, _ access: Access) throws(Errno) {
        _ = try systemCall(.access) { Glibc.access(path, access.rawValue) }
    }
}
