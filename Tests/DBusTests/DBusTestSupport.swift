import DBus
import Foundation
import Synchronization
import Testing
import TestSupport

// Shared pieces of the DBus tests: a private bus with a service and a client connection, an echo
// service, waiting on streams with a deadline, and running other programs without blocking the
// cooperative thread pool.

/// A private bus with two connections: `service` exports objects, `client` calls them.
final class BusPair: Sendable {
    let bus: PrivateBus
    let service: DBusConnection
    let client: DBusConnection

    init() throws {
        bus = try PrivateBus()
        service = try DBusConnection.connect(address: bus.address)
        client = try DBusConnection.connect(address: bus.address)
    }

    /// Another connection to the same bus.
    func connect() throws -> DBusConnection {
        try DBusConnection.connect(address: bus.address)
    }

    func stop() {
        client.close()
        service.close()
        bus.stop()
    }
}

/// Runs `body` with a fresh bus pair, stopped afterwards.
func withBusPair(_ body: (BusPair) async throws -> Void) async throws {
    let pair = try BusPair()
    defer { pair.stop() }
    try await body(pair)
}

/// Counts handler invocations.
final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

/// A waited-for event did not come in time.
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// The next element of a stream, failing after `timeout` (a minute by default: a test process that
/// starts hundreds of tests at once can hold a handler back for half a minute); nil when the stream
/// finished.
func next<T: Sendable>(
    _ stream: AsyncStream<T>, _ what: String = "a stream element", timeout: Duration = .seconds(60)
) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask {
            for await element in stream { return element }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw TimedOut(what: what)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// Awaits an async operation, failing after `timeout`.
func within<T: Sendable>(
    _ timeout: Duration, _ what: String, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw TimedOut(what: what)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// The error a call throws, as a `DBusError`; records an issue when it does not throw one.
func dbusError(_ operation: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> DBusError? {
    do {
        try await operation()
        Issue.record("expected a D-Bus error", sourceLocation: sourceLocation)
    } catch let error as DBusError {
        return error
    } catch {
        Issue.record("expected a D-Bus error, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// The echo service used by most tests.
enum Echo {
    static let path = "/test/obj"
    static let interfaceName = "test.Echo"

    /// Methods that return their arguments, one per shape of signature, plus failing ones.
    static func interface(calls: Counter = Counter()) -> DBusInterface {
        func echo(_ name: String, _ signature: String) -> DBusMethod {
            let arguments = signature.isEmpty ? [] : [DBusArgument(name: "value", signature: signature)]
            return DBusMethod(name: name, inArguments: arguments, outArguments: arguments) { call in
                calls.increment()
                return call.arguments
            }
        }
        let basics = ["y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g"]
        return DBusInterface(
            name: interfaceName,
            methods: [
                echo("Echo", "v"),
                echo("EchoString", "s"),
                echo("EchoDict", "a{sv}"),
                echo("EchoStruct", "(sa{sv}ai)"),
                echo("EchoNested", "aa{sas}"),
                DBusMethod(
                    name: "EchoBasics",
                    inArguments: basics.map { DBusArgument(name: "v\($0)", signature: $0) },
                    outArguments: basics.map { DBusArgument(name: "v\($0)", signature: $0) }
                ) { call in
                    calls.increment()
                    return call.arguments
                },
                DBusMethod(name: "Fail") { _ in
                    throw DBusError(name: "test.Error.Custom", message: "custom failure")
                },
                DBusMethod(name: "Boom") { _ in throw BoomError() },
                DBusMethod(name: "WrongReply", outArguments: [DBusArgument(name: "n", signature: "i")]) { _ in
                    [.string("not an int")]
                },
                DBusMethod(name: "Caller", outArguments: [DBusArgument(name: "sender", signature: "s")]) { call in
                    [.string(call.sender)]
                },
            ],
            signals: [DBusSignal(name: "Ping", arguments: [DBusArgument(name: "text", signature: "s")])])
    }
}

struct BoomError: Error, CustomStringConvertible {
    var description: String { "boom from a Swift error" }
}

/// What a program printed and how it ended.
struct ProgramResult: Sendable {
    let status: Int32
    let output: String
    let errorOutput: String
}

/// Runs a program to its end on a thread of its own (not a cooperative one, since the program
/// may be calling a service whose handlers need those threads).
func runProgram(_ path: String, _ arguments: [String]) async throws -> ProgramResult {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
                return
            }
            let errorData = Mutex(Data())
            let errorsRead = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                let data = errors.fileHandleForReading.readDataToEndOfFile()
                errorData.withLock { $0 = data }
                errorsRead.signal()
            }
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            errorsRead.wait()
            continuation.resume(
                returning: ProgramResult(
                    status: process.terminationStatus, output: String(decoding: data, as: UTF8.self),
                    errorOutput: String(decoding: errorData.withLock { $0 }, as: UTF8.self)))
        }
    }
}

/// A Python 3 that has the `dbus` module (Debian's `python3-dbus`), or nil.
let pythonWithDBus: String? = {
    for candidate in ["/usr/bin/python3", "/usr/local/bin/python3"] where FileManager.default.isExecutableFile(atPath: candidate) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: candidate)
        process.arguments = ["-c", "import dbus"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { continue }
        process.waitUntilExit()
        if process.terminationStatus == 0 { return candidate }
    }
    return nil
}()
