import CLinux

#if canImport(Glibc)
import Glibc
#endif

extension FileDescriptor {
    /// Makes a pipe (`pipe2(2)`), both ends close-on-exec: what is written to `writeEnd` is read
    /// from `readEnd`.
    package static func pipe() throws(Errno) -> (readEnd: FileDescriptor, writeEnd: FileDescriptor) {
        var ends: (Int32, Int32) = (-1, -1)
        _ = try withUnsafeMutableBytes(of: &ends) { bytes throws(Errno) in
            try systemCall(.pipe) { reveille_pipe_cloexec(bytes.baseAddress!.assumingMemoryBound(to: Int32.self)) }
        }
        return (FileDescriptor(rawValue: ends.0), FileDescriptor(rawValue: ends.1))
    }
}
