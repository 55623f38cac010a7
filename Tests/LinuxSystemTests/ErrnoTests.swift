import Foundation
import LinuxSystem
import Testing

/// `Errno`: its numbers, its text, and the errors the wrappers throw.
@Suite("Errno")
struct ErrnoTests {
    @Test("the named constants carry the C library's numbers")
    func constants() {
        #expect(Errno.interrupted.rawValue == EINTR)
        #expect(Errno.wouldBlock.rawValue == EAGAIN)
        #expect(Errno.noSuchFile.rawValue == ENOENT)
        #expect(Errno.tooManyOpenFiles.rawValue == EMFILE)
        #expect(Errno.canceled.rawValue == ECANCELED)
        #expect(Errno.noSuchFile != Errno.notADirectory)
    }

    @Test("a description reads as strerror's text")
    func descriptions() {
        #expect(Errno.noSuchFile.description == String(cString: strerror(ENOENT)))
        #expect(Errno.tooManyOpenFiles.description == String(cString: strerror(EMFILE)))
        // The test process never calls setlocale, so the text is the C locale's.
        #expect(Errno.noSuchFile.description == "No such file or directory")
        #expect("\(Errno.permissionDenied)" == "Permission denied")
    }

    @Test("a failing call throws its errno, and Foundation's POSIXError carries the same code")
    func thrownByWrappers() throws {
        let missing = "/nonexistent-\(UUID().uuidString)/file"
        #expect(throws: Errno.noSuchFile) { try FileDescriptor.open(missing, .readOnly) }
        #expect(throws: Errno.noSuchFile) { try FileSystem.unlink(missing) }
        #expect(throws: Errno.noSuchFile) { try FileSystem.checkAccess(missing, .write) }
        #expect(throws: Errno.badFileDescriptor) { try FileDescriptor(rawValue: -1).close() }
        #expect(POSIXError(Errno.noSuchFile).code == .ENOENT)
    }

    @Test("a pipe is not a terminal")
    func notATerminal() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        defer { try? readEnd.close(); try? writeEnd.close() }
        #expect(!readEnd.isTerminal)
        #expect(throws: Errno.notATerminal) { try readEnd.terminalModes() }
        #expect(throws: Errno.notATerminal) { try readEnd.terminalSize() }
    }
}
