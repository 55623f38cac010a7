import Foundation
import LinuxSystem
import Testing

/// Descriptors on sockets: `send`.
@Suite("Sockets")
struct SocketTests {
    /// A connected pair of Unix stream sockets, close-on-exec (`socketpair(2)`, which the module
    /// does not wrap).
    private static func socketPair() throws -> (FileDescriptor, FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        let result = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends)
        try #require(result == 0, "socketpair: \(Errno.current)")
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    @Test("bytes sent on one end are read on the other; an injected EINTR is retried")
    func sendIsRead() throws {
        let (near, far) = try Self.socketPair()
        defer { try? near.close(); try? far.close() }
        SystemCallFaults.inject(.interrupted, into: .send, times: 2)
        defer { SystemCallFaults.removeAll() }
        let sent = try Array("hello".utf8).withUnsafeBytes { bytes in try near.send(bytes) }
        #expect(sent == 5)
        #expect(SystemCallFaults.remaining(.send) == 0)
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = try buffer.withUnsafeMutableBytes { bytes in try far.read(into: bytes) }
        #expect(String(decoding: buffer.prefix(count), as: UTF8.self) == "hello")
    }

    @Test("sending to a closed peer throws brokenPipe instead of raising SIGPIPE; an injected fault is thrown")
    func sendToClosedPeer() throws {
        let (near, far) = try Self.socketPair()
        defer { try? near.close() }
        try far.close()
        #expect(throws: Errno.brokenPipe) { try Array("gone".utf8).withUnsafeBytes { bytes in try near.send(bytes) } }
        SystemCallFaults.inject(.noSpace, into: .send)
        defer { SystemCallFaults.removeAll() }
        #expect(throws: Errno.noSpace) { try Array("x".utf8).withUnsafeBytes { bytes in try near.send(bytes) } }
    }
}
