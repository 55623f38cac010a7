import Foundation
import LinuxSystem
import Testing

/// Descriptors on files: open, write, read, sync, lock, rename.
@Suite("Files")
struct FileTests {
    @Test("a file written, synced, renamed and read back; its type and a second lock's refusal")
    func roundTrip() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("linux-system-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = folder.appendingPathComponent("first").path
        let second = folder.appendingPathComponent("second").path

        let writer = try FileDescriptor.open(first, .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: 0o600)
        let written = try Array("journal".utf8).withUnsafeBytes { bytes in try writer.write(bytes) }
        #expect(written == 7)
        try writer.sync()
        #expect(try writer.fileType() == .regular)
        try writer.close()
        try FileSystem.rename(first, to: second)
        #expect(throws: Errno.noSuchFile) { try FileDescriptor.open(first, .readOnly) }

        let reader = try FileDescriptor.open(second, .readOnly)
        defer { try? reader.close() }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = try buffer.withUnsafeMutableBytes { bytes in try reader.read(into: bytes) }
        #expect(String(decoding: buffer.prefix(count), as: UTF8.self) == "journal")
        #expect(try buffer.withUnsafeMutableBytes { bytes in try reader.read(into: bytes) } == 0, "end of file")

        try reader.lock(exclusive: true, waiting: false)
        let other = try FileDescriptor.open(second, .readOnly)
        defer { try? other.close() }
        #expect(throws: Errno.lockHeld) { try other.lock(exclusive: true, waiting: false) }
        let copy = try reader.duplicate()
        #expect(copy != reader)
        try copy.close()

        let directory = try FileDescriptor.open(folder.path, .readOnly, options: [.directory, .closeOnExec])
        #expect(try directory.fileType() == .directory)
        try directory.close()
        #expect(throws: Errno.notADirectory) { try FileDescriptor.open(second, .readOnly, options: [.directory]) }
        try FileSystem.unlink(second)
        #expect(throws: Errno.noSuchFile) { try FileSystem.checkAccess(second, .read) }
    }
}
