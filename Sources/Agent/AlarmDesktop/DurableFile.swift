import FoundationEssentials
import LinuxSystem

/// Small files in the store's folder replaced whole and durably: the journals of settings to put
/// back, and the agent's resume measurements.
package enum DurableFile {
    /// Replaces the file at `url` with `data` (made 0600, its folder 0700 if new): writes a
    /// temporary file, `fsync`s it, renames it over the file and `fsync`s the folder, so after a
    /// crash the file is either the old one or the new one, whole. Returns once it is on disk.
    package static func replace(_ url: URL, with data: Data) throws {
        let folder = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = folder.appendingPathComponent("." + url.lastPathComponent + ".new")
        do throws(Errno) {
            let descriptor = try FileDescriptor.open(
                temporary.path, .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: 0o600)
            // Written once, and a short write fails (`EIO`): the file is small.
            let written = data.withUnsafeBytes { bytes in Result { () throws(Errno) in try descriptor.write(bytes) } }
            let synced = Result { () throws(Errno) in try descriptor.sync() }
            try? descriptor.close()
            do throws(Errno) {
                guard try written.get() == data.count else { throw Errno.ioError }
                try synced.get()
                try FileSystem.rename(temporary.path, to: url.path)
            } catch {
                try? FileSystem.unlink(temporary.path)
                throw error
            }
        } catch {
            throw POSIXError(error)
        }
        syncFolder(folder)
    }

    /// `fsync`s a folder, so that a rename or unlink in it is on disk; failures are ignored.
    package static func syncFolder(_ folder: URL) {
        guard let descriptor = try? FileDescriptor.open(folder.path, .readOnly, options: [.directory, .closeOnExec]) else { return }
        try? descriptor.sync()
        try? descriptor.close()
    }
}
