@_exported import AlarmCore
import DBus
import Dispatch
import Foundation
import Synchronization

extension AlarmManager {
    /// The shared manager, as in AlarmKit; it talks to the Reveille agent on the session bus.
    public static let shared = AlarmManager()

    /// Schedules an alarm with the id you chose; scheduling an id again replaces the alarm.
    ///
    /// The first time an app schedules, the person is asked whether it may (see
    /// `requestAuthorization()`). Throws `AlarmManager.AlarmError.maximumLimitReached` at the
    /// limit, `AlarmRequestError` for a configuration the agent refuses, and `AgentClientError`
    /// when the agent cannot be reached or refuses the app.
    public func schedule<Metadata: AlarmMetadata>(
        id: Alarm.ID, configuration: AlarmConfiguration<Metadata>
    ) async throws -> Alarm {
        let definition = try AlarmDefinition(configuration)
        return try await AgentConnection.translatingErrors {
            try await AgentConnection.client().schedule(id: id, definition: definition).alarm
        }
    }

    /// Removes an alarm, whatever its state.
    public func cancel(id: Alarm.ID) throws { try AgentConnection.blocking { try await $0.cancel(id: id) } }
    /// Stops an alerting alarm: a one-shot alarm is removed, a repeating one scheduled again.
    public func stop(id: Alarm.ID) throws { try AgentConnection.blocking { try await $0.stop(id: id) } }
    /// Pauses a countdown.
    public func pause(id: Alarm.ID) throws { try AgentConnection.blocking { try await $0.pause(id: id) } }
    /// Resumes a paused countdown.
    public func resume(id: Alarm.ID) throws { try AgentConnection.blocking { try await $0.resume(id: id) } }
    /// Snoozes or repeats an alerting alarm into its `postAlert` countdown.
    public func countdown(id: Alarm.ID) throws { try AgentConnection.blocking { try await $0.countdown(id: id) } }

    /// The app's alarms.
    public var alarms: [Alarm] {
        get throws { try AgentConnection.blocking { try await $0.list().map(\.alarm) } }
    }

    /// The app's whole list of alarms, now and after every change.
    public var alarmUpdates: some AsyncSequence<[Alarm], Never> & Sendable {
        AgentConnection.stream { client in client.updates().map { $0.map(\.alarm) } }
    }

    /// Whether the app may schedule alarms; `.notDetermined` also when the agent cannot be reached.
    public var authorizationState: AuthorizationState {
        (try? AgentConnection.blocking { try await $0.authorizationState() }) ?? .notDetermined
    }

    /// Asks the person, once, whether the app may schedule alarms, and returns the answer.
    public func requestAuthorization() async throws -> AuthorizationState {
        try await AgentConnection.translatingErrors { try await AgentConnection.client().requestAuthorization() }
    }

    /// The app's authorization state, now and after every change.
    public var authorizationUpdates: some AsyncSequence<AuthorizationState, Never> & Sendable {
        AgentConnection.stream { client in client.authorizationUpdates() }
    }
}

/// The shared manager's connection to the agent, made on first use.
enum AgentConnection {
    private static let shared = Mutex<AgentClient?>(nil)

    static func client() throws -> AgentClient {
        try shared.withLock { client in
            if let client { return client }
            let made = try AgentClient.connect()
            client = made
            return made
        }
    }

    /// Runs an agent call, turning the agent's named errors back into AlarmKit's types.
    static func translatingErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as AgentClientError {
            switch error.name {
            case "io.github.reveille.Alarms1.Error.MaximumLimitReached": throw AlarmManager.AlarmError.maximumLimitReached
            default: throw error
            }
        }
    }

    /// Runs an agent call to completion from synchronous code, as AlarmKit's control calls are.
    ///
    /// The call runs on its own thread-independent task, and the reply arrives on the D-Bus
    /// connection's own thread, so the wait never needs the caller's executor.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable (AgentClient) async throws -> T) throws -> T {
        let client = try client()
        let result = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await translatingErrors { try await body(client) }) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }

    /// A stream from the client, or an empty one when the agent cannot be reached.
    static func stream<Element: Sendable>(
        _ make: @escaping @Sendable (AgentClient) -> some AsyncSequence<Element, Never> & Sendable
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            if let client = try? client() {
                for await element in make(client) { continuation.yield(element) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
