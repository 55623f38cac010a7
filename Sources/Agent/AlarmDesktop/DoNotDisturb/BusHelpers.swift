import DBus
import Synchronization

/// `org.freedesktop.DBus.Properties` calls, and signal watches turned into change ticks, for the
/// D-Bus backends.
extension DBusConnection {
    /// Reads a property (`org.freedesktop.DBus.Properties.Get`), without its variant.
    func readProperty(_ name: String, of interface: String, at path: String, on destination: String) async throws -> DBusValue {
        let reply = try await call(
            destination: destination, path: path, interface: "org.freedesktop.DBus.Properties", method: "Get",
            arguments: [.string(interface), .string(name)], timeout: .seconds(5))
        guard let value = reply.first else { throw DoNotDisturbError("\(interface).\(name) answered nothing") }
        return value.unwrapped
    }

    /// Writes a property (`org.freedesktop.DBus.Properties.Set`), returning once it is answered.
    func writeProperty(_ name: String, of interface: String, at path: String, on destination: String, _ value: DBusValue) async throws {
        _ = try await call(
            destination: destination, path: path, interface: "org.freedesktop.DBus.Properties", method: "Set",
            arguments: [.string(interface), .string(name), .variant(value)], timeout: .seconds(5))
    }
}

/// Signal subscriptions whose every signal becomes a tick on one stream; ended by `stop()`.
final class SignalTicks: Sendable {
    private let tasks = Mutex<[Task<Void, Never>]>([])
    private let continuation = Mutex<AsyncStream<Void>.Continuation?>(nil)

    /// Subscribes to every rule (waiting until the bus has each match) and returns the tick stream.
    func start(on connection: DBusConnection, rules: [MatchRule]) async throws -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        var started: [Task<Void, Never>] = []
        for rule in rules {
            let signals = try await connection.subscribe(rule)
            started.append(
                Task {
                    for await _ in signals { continuation.yield() }
                })
        }
        tasks.withLock { $0 += started }
        self.continuation.withLock { $0 = continuation }
        return stream
    }

    /// Cancels the subscriptions and ends the stream.
    func stop() {
        for task in tasks.withLock({ tasks in
            defer { tasks = [] }; return tasks
        }) { task.cancel() }
        continuation.withLock { continuation in
            continuation?.finish()
            continuation = nil
        }
    }
}

/// `PropertiesChanged` of one interface from a well-known name.
func propertiesChangedRule(sender: String, path: String, interface: String) -> MatchRule {
    MatchRule(sender: sender, path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", arg0: interface)
}
