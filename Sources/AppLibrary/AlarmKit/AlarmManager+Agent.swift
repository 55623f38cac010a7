@_exported import AlarmModel
import AlarmProtocol
import DBus
public import FoundationEssentials
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
    public func cancel(id: Alarm.ID) throws { try AgentConnection.blocking { try $0.controlBlocking("Cancel", id: id) } }
    /// Stops an alerting alarm: a one-shot alarm is removed, a repeating one scheduled again.
    public func stop(id: Alarm.ID) throws { try AgentConnection.blocking { try $0.controlBlocking("Stop", id: id) } }
    /// Pauses a countdown.
    public func pause(id: Alarm.ID) throws { try AgentConnection.blocking { try $0.controlBlocking("Pause", id: id) } }
    /// Resumes a paused countdown.
    public func resume(id: Alarm.ID) throws { try AgentConnection.blocking { try $0.controlBlocking("Resume", id: id) } }
    /// Snoozes or repeats an alerting alarm into its `postAlert` countdown.
    public func countdown(id: Alarm.ID) throws { try AgentConnection.blocking { try $0.controlBlocking("Countdown", id: id) } }

    /// The app's alarms.
    public var alarms: [Alarm] {
        get throws { try AgentConnection.blocking { try $0.listBlocking().map(\.alarm) } }
    }

    /// The app's whole list of alarms, now and after every change.
    public var alarmUpdates: some AsyncSequence<[Alarm], Never> & Sendable {
        AgentConnection.stream { client in client.updates().map { $0.map(\.alarm) } }
    }

    /// Whether the app may schedule alarms; `.notDetermined` also when the agent cannot be reached.
    public var authorizationState: AuthorizationState {
        (try? AgentConnection.blocking { try $0.authorizationStateBlocking() }) ?? .notDetermined
    }

    /// Asks the person, once, whether the app may schedule alarms, and returns the answer.
    public func requestAuthorization() async throws -> AuthorizationState {
        try await AgentConnection.translatingErrors { try await AgentConnection.client().requestAuthorization() }
    }

    /// Asks the person, once, whether the app may schedule alarms, showing why the app asks, and
    /// returns the answer.
    ///
    /// `usageDescription` plays the part of `NSAlarmKitUsageDescription` in an app's Info.plist on
    /// Apple's systems: a sentence or two (at most 500 characters) saying what the app's alarms are
    /// for, shown under the question. A question already on the screen keeps its text.
    public func requestAuthorization(usageDescription: String) async throws -> AuthorizationState {
        try await AgentConnection.translatingErrors {
            try await AgentConnection.client().requestAuthorization(usageDescription: usageDescription)
        }
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
            case AlarmErrorName.maximumLimitReached: throw AlarmManager.AlarmError.maximumLimitReached
            default: throw error
            }
        }
    }

    /// Runs a blocking agent call from synchronous code, as AlarmKit's control calls are, turning
    /// the agent's named errors back into AlarmKit's types. The reply arrives on the D-Bus
    /// connection's own thread, so no Swift task is needed and the caller's executor is never waited on.
    static func blocking<T>(_ body: (AgentClient) throws -> T) throws -> T {
        do {
            return try body(try client())
        } catch let error as AgentClientError where error.name == AlarmErrorName.maximumLimitReached {
            throw AlarmManager.AlarmError.maximumLimitReached
        }
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
