import Foundation
import LinuxSystem
import Testing

/// `SystemCallFaults`: a named call fails with the chosen errno the given number of times, on the
/// injecting thread only, and then reaches the kernel again.
@Suite("Fault injection")
struct FaultInjectionTests {
    @Test("timerfd_create fails with the injected errno exactly twice, then succeeds")
    func timerCreateFailsTwice() throws {
        SystemCallFaults.inject(.tooManyOpenFiles, into: .timerfdCreate, times: 2)
        defer { SystemCallFaults.removeAll() }
        #expect(SystemCallFaults.remaining(.timerfdCreate) == 2)
        #expect(throws: Errno.tooManyOpenFiles) { try FileDescriptor.timer(clock: .monotonic) }
        #expect(SystemCallFaults.remaining(.timerfdCreate) == 1)
        #expect(throws: Errno.tooManyOpenFiles) { try FileDescriptor.timer(clock: .monotonic) }
        #expect(SystemCallFaults.remaining(.timerfdCreate) == 0)
        let timer = try FileDescriptor.timer(clock: .monotonic)
        defer { try? timer.close() }
        // A real timer: disarmed, and nothing to read yet.
        #expect(try timer.timerRemaining() == nil)
        #expect(throws: Errno.wouldBlock) { try timer.readExpirations() }
    }

    @Test("a fault on open leaves other calls alone, and other threads' opens too")
    func openFaultIsScoped() throws {
        try SystemCallFaults.with(.permissionDenied, injectedInto: .open) {
            // Another thread opens while this one's fault is pending.
            let other = Result { () throws(Errno) in
                try Self.onAnotherThread { () throws(Errno) in try FileDescriptor.open("/dev/null", .readOnly) }
            }
            let opened = try other.get()
            try opened.close()
            // Other calls on this thread reach the kernel.
            let (readEnd, writeEnd) = try FileDescriptor.pipe()
            try readEnd.close()
            try writeEnd.close()
            #expect(throws: Errno.permissionDenied) { try FileDescriptor.open("/dev/null", .readOnly) }
        }
        #expect(SystemCallFaults.remaining(.open) == 0)
        try FileDescriptor.open("/dev/null", .readOnly).close()
    }

    @Test("an injected EINTR is retried where the kernel's would be; close's is thrown")
    func injectedInterruptIsRetried() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe()
        defer { try? readEnd.close(); try? writeEnd.close() }
        _ = try Array("ring".utf8).withUnsafeBytes { bytes in try writeEnd.write(bytes) }
        SystemCallFaults.inject(.interrupted, into: .read, times: 3)
        defer { SystemCallFaults.removeAll() }
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = try buffer.withUnsafeMutableBytes { bytes in try readEnd.read(into: bytes) }
        #expect(Array(buffer.prefix(count)) == Array("ring".utf8))
        #expect(SystemCallFaults.remaining(.read) == 0)

        // close is not retried: the descriptor is gone even when interrupted.
        let spare = try FileDescriptor.open("/dev/null", .readOnly)
        SystemCallFaults.inject(.interrupted, into: .close)
        #expect(throws: Errno.interrupted) { try spare.close() }
        try spare.close()
    }

    /// Runs `body` on a new thread and returns what it returned.
    static func onAnotherThread<T: Sendable>(_ body: @escaping @Sendable () throws(Errno) -> T) throws(Errno) -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<T, Errno>?
        let thread = Thread {
            result = Result { () throws(Errno) in try body() }
            done.signal()
        }
        thread.start()
        done.wait()
        return try result!.get()
    }
}
