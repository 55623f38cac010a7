import Foundation
import Glibc
import LinuxSystem
import Synchronization

/// A minimal D-Bus client over a Unix socket, in pure Swift: enough for the sandbox to wait for bus
/// names, call dunst, and monitor the bus. It does not pass file descriptors.
///
/// One thread reads at a time (the read buffer is behind a lock); sending is safe from any thread.
final class BusConnection: Sendable {
    /// The socket; closed by `close()`.
    private let socket: FileDescriptor
    /// Bytes read but not yet returned as messages; held by the one reading.
    private let state = Mutex(State())
    /// Whether the socket was shut down or closed; held while writing, so the descriptor is never
    /// used after it was closed (its number may belong to something else by then).
    private let lifecycle = Mutex(Lifecycle.open)
    /// The serial of the next message sent.
    private let nextSerial = Mutex<UInt32>(1)
    /// The unique name the bus gave this connection, set once Hello is answered.
    private let uniqueName = Mutex("")

    private struct State {
        var buffer: [UInt8] = []
        /// When the last bytes in `buffer` were read: a message complete in it had arrived by then.
        var lastRead: ContinuousClock.Instant?
    }

    private enum Lifecycle {
        case open, shutDown, closed
    }

    /// Connects to `address` (a `unix:path=` or `unix:abstract=` D-Bus address), authenticates with
    /// EXTERNAL and says Hello.
    init(address: String, timeout: Duration = .seconds(30)) throws {
        let deadline = ContinuousClock.now + timeout
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw SandboxError.failed("socket(): \(String(cString: strerror(errno)))") }
        self.socket = FileDescriptor(rawValue: socket)
        do {
            try Self.connect(self.socket, to: try Self.socketPath(in: address))
            try Self.authenticate(self.socket, deadline: deadline)
        } catch {
            close()
            throw error
        }
        let reply = try callBus("Hello")
        guard let name = reply.first?.string else { throw SandboxError.failed("the bus answered Hello with \(reply)") }
        uniqueName.withLock { $0 = name }
    }

    /// The unique name the bus gave this connection (such as `:1.7`).
    var name: String { uniqueName.withLock { $0 } }

    deinit { close() }

    // MARK: Sending and receiving

    /// Sends a message, giving it the next serial; returns that serial.
    @discardableResult
    func send(_ message: BusMessage) throws -> UInt32 {
        var message = message
        let serial = nextSerial.withLock { serial in
            defer { serial &+= 1 }
            return serial
        }
        message.serial = serial
        let bytes = try message.encoded()
        try lifecycle.withLock { lifecycle in
            guard lifecycle == .open else { throw SandboxError.failed("the bus connection was closed") }
            try Self.writeAll(socket, bytes)
        }
        return serial
    }

    /// The next message, or `nil` when `deadline` passes first; throws when the bus closes the connection.
    func receive(until deadline: ContinuousClock.Instant?) throws -> BusMessage? {
        try state.withLock { state -> BusMessage? in
            while true {
                if let length = try BusMessage.frameLength(state.buffer[...]), state.buffer.count >= length {
                    let bytes = Array(state.buffer[0..<length])
                    state.buffer.removeFirst(length)
                    // Stamped with the read that completed it, not after it was parsed: reading a
                    // large body into values (an image's pixels, 9 216 bytes) takes a while.
                    let arrived = state.lastRead ?? .now
                    var message = try BusMessage(bytes: bytes)
                    message.receivedAt = arrived
                    return message
                }
                guard lifecycle.withLock({ $0 }) != .closed else {
                    throw SandboxError.failed("the bus connection was closed")
                }
                guard try Self.waitReadable(socket, until: deadline) else { return nil }
                var chunk = [UInt8](repeating: 0, count: 65536)
                // read(2) is recv(2) without flags on a connected socket.
                let read = chunk.withUnsafeMutableBytes { bytes in
                    Result { () throws(Errno) in try socket.read(into: bytes) }
                }
                let count: Int
                switch read {
                case .success(let read): count = read
                case .failure(.wouldBlock): continue
                case .failure(let error): throw SandboxError.failed("reading from the bus: \(error)")
                }
                if count == 0 { throw SandboxError.failed("the bus closed the connection") }
                state.lastRead = .now
                state.buffer.append(contentsOf: chunk[0..<count])
            }
        }
    }

    /// Calls a method and returns its reply's arguments; throws the error reply as `SandboxError.busError`.
    ///
    /// Other messages that arrive meanwhile are passed to `other` (signals the caller subscribed to).
    func call(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [BusValue] = [],
        timeout: Duration = .seconds(30), other: (BusMessage) -> Void = { _ in }
    ) throws -> [BusValue] {
        let serial = try send(
            BusMessage(
                kind: .methodCall, path: path, interface: interface, member: member, destination: destination,
                body: arguments))
        let deadline = ContinuousClock.now + timeout
        while let message = try receive(until: deadline) {
            guard message.replySerial == serial, message.kind == .methodReturn || message.kind == .error else {
                other(message)
                continue
            }
            if message.kind == .error {
                throw SandboxError.busError(name: message.errorName ?? "", message: message.firstString ?? "")
            }
            return message.body
        }
        throw SandboxError.timeout("no reply to \(interface).\(member) within \(timeout)")
    }

    /// Calls a method of the bus itself (`org.freedesktop.DBus`).
    func callBus(_ member: String, _ arguments: [BusValue] = [], other: (BusMessage) -> Void = { _ in }) throws -> [BusValue] {
        try call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", member, arguments, other: other)
    }

    /// Wakes a reader blocked in `receive` (it then throws) without freeing the socket.
    func shutdown() {
        lifecycle.withLock { lifecycle in
            if lifecycle == .open {
                Glibc.shutdown(socket.rawValue, Int32(SHUT_RDWR))
                lifecycle = .shutDown
            }
        }
    }

    /// Shuts the connection and frees the socket; later calls throw. Safe to call more than once.
    func close() {
        shutdown()
        // Once a blocked reader has left `receive` (the shutdown woke it), the socket can go.
        state.withLock { _ in
            lifecycle.withLock { lifecycle in
                if lifecycle != .closed {
                    try? socket.close()
                    lifecycle = .closed
                }
            }
        }
    }

    // MARK: Setting up

    /// The socket path in a D-Bus address: a leading NUL byte marks an abstract socket.
    static func socketPath(in address: String) throws -> [UInt8] {
        for entry in address.split(separator: ";") {
            guard entry.hasPrefix("unix:") else { continue }
            var keys: [String: String] = [:]
            for pair in entry.dropFirst(5).split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { keys[String(parts[0])] = unescape(parts[1]) }
            }
            if let path = keys["path"] { return Array(path.utf8) }
            if let name = keys["abstract"] { return [0] + Array(name.utf8) }
        }
        throw SandboxError.failed("no unix:path= or unix:abstract= in the bus address \(address)")
    }

    /// Undoes the `%XX` escaping of D-Bus address values.
    private static func unescape(_ value: Substring) -> String {
        var bytes: [UInt8] = []
        var index = value.utf8.startIndex
        let utf8 = value.utf8
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"),
                let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex), high != utf8.endIndex,
                let low = utf8.index(high, offsetBy: 1, limitedBy: utf8.endIndex), low != utf8.endIndex,
                let value = UInt8(String(decoding: [utf8[high], utf8[low]], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index = utf8.index(after: low)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func connect(_ socket: FileDescriptor, to path: [UInt8]) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { throw SandboxError.failed("bus socket path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
        }
        // Abstract names are exactly their bytes; paths are NUL-terminated.
        let length = MemoryLayout<sa_family_t>.size + path.count + (path.first == 0 ? 0 : 1)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket.rawValue, $0, socklen_t(length)) }
        }
        guard result == 0 else {
            throw SandboxError.failed("connecting to the bus: \(String(cString: strerror(errno)))")
        }
    }

    /// The SASL exchange: a NUL byte, `AUTH EXTERNAL <uid in hex>`, `OK <guid>`, `BEGIN`.
    private static func authenticate(_ socket: FileDescriptor, deadline: ContinuousClock.Instant) throws {
        let uid = Array(String(getuid()).utf8).map { String(format: "%02x", $0) }.joined()
        try writeAll(socket, [0] + Array("AUTH EXTERNAL \(uid)\r\n".utf8))
        var line: [UInt8] = []
        while !(line.count >= 2 && line.suffix(2) == [13, 10]) {
            guard try waitReadable(socket, until: deadline) else { throw SandboxError.timeout("bus authentication") }
            var byte: UInt8 = 0
            let count = try? withUnsafeMutableBytes(of: &byte) { bytes throws(Errno) in try socket.read(into: bytes) }
            guard count == 1 else { throw SandboxError.failed("the bus closed the connection during authentication") }
            line.append(byte)
        }
        let reply = String(decoding: line, as: UTF8.self)
        guard reply.hasPrefix("OK ") else { throw SandboxError.failed("the bus refused authentication: \(reply)") }
        try writeAll(socket, Array("BEGIN\r\n".utf8))
    }

    private static func writeAll(_ socket: FileDescriptor, _ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { bytes in Result { () throws(Errno) in try socket.send(bytes) } }
            switch result {
            case .success(let count): sent += count
            case .failure(let error): throw SandboxError.failed("writing to the bus: \(error)")
            }
        }
    }

    /// Waits until the socket can be read; `false` when `deadline` passes first.
    private static func waitReadable(_ socket: FileDescriptor, until deadline: ContinuousClock.Instant?) throws -> Bool {
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let left = deadline - .now
                if left <= .zero { return false }
                let (seconds, attoseconds) = left.components
                milliseconds = Int32(min(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1, 60_000))
            }
            var descriptors = [PollDescriptor(socket, events: .readable)]
            let result: Int
            do {
                result = try FileDescriptor.poll(&descriptors, timeoutMilliseconds: milliseconds)
            } catch {
                throw SandboxError.failed("poll(): \(error)")
            }
            if result > 0 { return true }
            if deadline == nil { continue }
        }
    }
}
