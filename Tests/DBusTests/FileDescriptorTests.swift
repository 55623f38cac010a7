import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

// Unix file descriptors (type `h`) across a real dbus-daemon: a descriptor one connection sends is
// one the other can use, each side's copies are its own, and nothing stays open once the messages
// and values holding them are gone.

@Suite("D-Bus: Unix file descriptors", .onItsOwnThread, .timeLimit(.minutes(5)))
struct FileDescriptorTests {
    static let path = "/test/fd"
    static let interfaceName = "test.Descriptors"

    /// `Write(h)` writes "ring" into the descriptor; `Echo(v)` returns its argument; `Identify(h)`
    /// returns the device and inode the descriptor names.
    static func interface() -> DBusInterface {
        DBusInterface(
            name: interfaceName,
            methods: [
                DBusMethod(name: "Write", inArguments: [DBusArgument(name: "fd", signature: "h")]) { call in
                    guard let descriptor = call.arguments.first?.fileDescriptorValue else {
                        throw DBusError(name: DBusError.failed, message: "no descriptor")
                    }
                    let written = Array("ring".utf8).withUnsafeBytes { write(descriptor.rawValue, $0.baseAddress, $0.count) }
                    guard written == 4 else { throw DBusError(name: DBusError.failed, message: "write failed: \(errno)") }
                    return []
                },
                DBusMethod(
                    name: "Echo", inArguments: [DBusArgument(name: "value", signature: "v")],
                    outArguments: [DBusArgument(name: "value", signature: "v")]
                ) { call in call.arguments },
                DBusMethod(
                    name: "Identify", inArguments: [DBusArgument(name: "fd", signature: "h")],
                    outArguments: [DBusArgument(name: "file", signature: "(tt)")]
                ) { call in
                    guard let descriptor = call.arguments.first?.fileDescriptorValue else {
                        throw DBusError(name: DBusError.failed, message: "no descriptor")
                    }
                    let file = fileIdentity(descriptor.rawValue)
                    return [.structure([.uint64(file.device), .uint64(file.inode)])]
                },
            ])
    }

    /// The device and inode an open descriptor names (`fstat`).
    static func fileIdentity(_ descriptor: Int32) -> (device: UInt64, inode: UInt64) {
        var status = stat()
        fstat(descriptor, &status)
        return (UInt64(status.st_dev), UInt64(status.st_ino))
    }

    /// What can be read from `descriptor` until the pipe's end; nil when a write end is still
    /// open somewhere after `timeout`.
    static func readToEnd(_ descriptor: Int32, timeout: Duration = .seconds(10)) -> String? {
        Pipes.readToEnd(descriptor, timeout: timeout)
    }

    /// The number of descriptors this process has open.
    static func openDescriptorCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }

    @Test("a connection to the bus passes descriptors")
    func negotiated() async throws {
        try await withBusPair { pair in
            #expect(pair.client.canPassFileDescriptors)
            #expect(pair.service.canPassFileDescriptors)
        }
    }

    @Test("the service writes into a pipe the client sent, and every copy is closed afterwards")
    func passesAndCloses() async throws {
        try await withBusPair { pair in
            try pair.service.export(path: Self.path, interfaces: [Self.interface()])
            let (readEnd, writeEnd) = try Pipes.make()
            defer { close(readEnd) }
            try await Self.callWrite(pair, UnixFileDescriptor(taking: writeEnd))
            // The pipe reaches its end only when no write end is open anywhere: not the client's
            // own, not libdbus's copies in the messages, not the one the service received.
            #expect(Self.readToEnd(readEnd) == "ring", "a copy of the pipe's write end was left open")
        }
    }

    /// Calls `Write` with `descriptor`, the last reference to it, which goes when this returns.
    static func callWrite(_ pair: BusPair, _ descriptor: UnixFileDescriptor) async throws {
        let message = try DBusMessage.methodCall(
            destination: pair.service.uniqueName, path: path, interface: interfaceName, method: "Write",
            arguments: [.unixFD(descriptor)])
        #expect(message.containsFileDescriptors)
        _ = try await pair.client.call(message)
    }

    @Test("a descriptor comes back naming the same file, nested in variants, arrays and dictionaries")
    func roundTrip() async throws {
        try await withBusPair { pair in
            try pair.service.export(path: Self.path, interfaces: [Self.interface()])
            let file = try #require(
                FileManager.default.temporaryDirectory.path.withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) })
            try #require(file >= 0)
            let sent = UnixFileDescriptor(taking: file)
            let expected = Self.fileIdentity(sent.rawValue)

            let identified = try await pair.client.call(
                destination: pair.service.uniqueName, path: Self.path, interface: Self.interfaceName,
                method: "Identify", arguments: [.unixFD(sent)])
            #expect(identified == [.structure([.uint64(expected.device), .uint64(expected.inode)])])

            let nested: DBusValue = .variant(
                .dictionary([
                    "one": .unixFD(sent),
                    "list": .array(elementSignature: "h", [.unixFD(sent), .unixFD(sent)]),
                    "byHandle": .array(elementSignature: "{hs}", [.dictEntry(.unixFD(sent), .string("key"))]),
                ]))
            let reply = try await pair.client.call(
                destination: pair.service.uniqueName, path: Self.path, interface: Self.interfaceName,
                method: "Echo", arguments: [nested])
            let dictionary = try #require(reply.first?.unwrapped.dictionaryValue)
            let one = try #require(dictionary["one"]?.fileDescriptorValue)
            let list = try #require(dictionary["list"]?.arrayValue).compactMap(\.fileDescriptorValue)
            let byHandle = try #require(dictionary["byHandle"]?.arrayValue)
            guard case .dictEntry(let key, .string("key"))? = byHandle.first, let keyDescriptor = key.fileDescriptorValue else {
                Issue.record("the {hs} entry came back as \(byHandle)")
                return
            }
            let received = [one, keyDescriptor] + list
            #expect(received.count == 4)
            for descriptor in received {
                #expect(descriptor.rawValue != sent.rawValue, "a received descriptor is a copy of its own")
                #expect(Self.fileIdentity(descriptor.rawValue) == expected)
            }
            #expect(Set(received.map(\.rawValue)).count == 4, "each received descriptor is a separate copy")
        }
    }

    @Test("a thousand calls sending and receiving descriptors leave none open")
    func noLeaks() async throws {
        try await withBusPair { pair in
            try pair.service.export(path: Self.path, interfaces: [Self.interface()])
            let (readEnd, writeEnd) = try Pipes.make()
            defer { close(readEnd) }
            let (before, after) = try await Self.echoMany(pair, UnixFileDescriptor(taking: writeEnd))
            #expect(after <= before, "\(after - before) descriptors were left open after 1,000 calls")
            #expect(Self.readToEnd(readEnd) == "", "a copy of the pipe's write end was left open")
        }
    }

    /// Echoes 1 to 8 copies of `descriptor` a thousand times, four callers at once, and counts
    /// this process's open descriptors before and after.
    static func echoMany(_ pair: BusPair, _ descriptor: UnixFileDescriptor) async throws -> (before: Int, after: Int) {
        let echo = { @Sendable (values: [DBusValue]) async throws -> [DBusValue] in
            try await pair.client.call(
                destination: pair.service.uniqueName, path: path, interface: interfaceName,
                method: "Echo", arguments: [.variant(.array(elementSignature: "h", values))])
        }
        _ = try await echo([.unixFD(descriptor)])  // Warms up whatever the connections open once.
        let before = try openDescriptorCount()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for round in 0..<250 {
                        let count = (worker + round) % 8 + 1
                        let reply = try await echo(Array(repeating: .unixFD(descriptor), count: count))
                        let back = reply.first?.unwrapped.arrayValue?.compactMap(\.fileDescriptorValue) ?? []
                        #expect(back.count == count)
                    }
                }
            }
            try await group.waitForAll()
        }
        // The handlers' tasks may hold their calls a moment after replying.
        var after = try openDescriptorCount()
        try await waitUntil("this process's open descriptors back to \(before)", timeout: .seconds(10), detail: { "\(after) open" }) {
            after = try openDescriptorCount()
            return after <= before ? () : nil
        }
        return (before, after)
    }
}
