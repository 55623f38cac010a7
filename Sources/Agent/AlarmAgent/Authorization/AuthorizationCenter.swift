import AlarmCore
import AlarmModel
import AlarmRecords
import DBus
import FoundationEssentials
import Localization
import Logging
import Synchronization

/// Keeps each app's authorization, asks the person once when an app is not decided, and stores
/// the answer: AlarmKit's `requestAuthorization` on Linux.
package actor AuthorizationCenter {
    private let store: AlarmStore
    private let connection: DBusConnection
    private let logger: Logger
    /// The stored answers by app; read without waiting for the actor, so a decided app's calls
    /// never queue behind another's question.
    private let states = Mutex<[String: AppAuthorization]>([:])
    private var pendingPrompts: [String: Task<AlarmManager.AuthorizationState, Never>] = [:]
    /// The calls waiting for the person's answer, by app.
    private var waiting: [String: Int] = [:]

    /// How many calls of one undecided app may wait for the person's answer at once; more are
    /// refused at once. Each waiting call keeps its message (up to the bus's 32 MiB) alive.
    package static let waitingCallsPerApp = 2
    /// How many calls of all undecided apps may wait at once: what they hold stays under
    /// `waitingCallsInAll` times the bus's largest message (256 MiB on a default session bus).
    package static let waitingCallsInAll = 8
    private var listeners: [UUID: AsyncStream<AppAuthorization>.Continuation] = [:]

    /// Creates the center over the store's stored answers.
    package init(store: AlarmStore, connection: DBusConnection, logger: Logger) throws {
        self.store = store
        self.connection = connection
        self.logger = logger
        let stored = try store.authorizations()
        states.withLock { states in
            for answer in stored { states[answer.app] = answer }
        }
    }

    /// The stored state of an app.
    package nonisolated func state(of app: String) -> AlarmManager.AuthorizationState {
        states.withLock { $0[app]?.state } ?? .notDetermined
    }

    /// Every stored answer.
    package nonisolated func all() -> [AppAuthorization] {
        states.withLock { $0.values.sorted { $0.app < $1.app } }
    }

    /// The app's state, asking the person first when it is not decided. Concurrent requests for
    /// one app share one question; at most `waitingCallsPerApp` of an app's calls (and
    /// `waitingCallsInAll` in all) wait for it.
    ///
    /// - Throws: `NotAuthorized`, at once, when as many calls already wait for the person.
    ///
    /// `usage` is the app's own sentence saying why it sets alarms (AlarmKit's
    /// `NSAlarmKitUsageDescription`), shown under the question; a question already asked keeps its text.
    package nonisolated func request(for identity: CallerIdentity, usage: String? = nil) async throws -> AlarmManager.AuthorizationState {
        if let decided = states.withLock({ $0[identity.appID]?.state }) { return decided }
        return try await ask(identity, usage: usage)
    }

    /// The longest usage description, in characters: a sentence or two, as a question's body shows.
    package static let usageDescriptionLimit = 500

    /// The usage description of a `RequestAuthorizationWithUsage` call: `nil` when empty or only
    /// blanks (the question is asked without it).
    ///
    /// - Throws: `InvalidArguments` when it is not a string or longer than `usageDescriptionLimit`.
    package static func usageDescription(_ argument: DBusValue?) throws -> String? {
        guard let text = argument?.stringValue else {
            throw DBusError(name: AgentError.invalidArguments, message: "the usage description must be a string")
        }
        let trimmed = text.trimmingWhitespace()
        guard trimmed.count <= usageDescriptionLimit else {
            throw DBusError(
                name: AgentError.invalidArguments,
                message: "the usage description has \(trimmed.count) characters; at most \(usageDescriptionLimit) are shown")
        }
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Asks the person about an undecided app, or joins the question already asked.
    private func ask(_ identity: CallerIdentity, usage: String?) async throws -> AlarmManager.AuthorizationState {
        let app = identity.appID
        if let decided = states.withLock({ $0[app]?.state }) { return decided }
        guard waiting[app, default: 0] < Self.waitingCallsPerApp, waiting.values.reduce(0, +) < Self.waitingCallsInAll else {
            throw DBusError(
                name: AgentError.notAuthorized,
                message: "the person has not answered yet whether \(app) may set alarms, and its other calls already wait for it")
        }
        waiting[app, default: 0] += 1
        defer {
            waiting[app, default: 1] -= 1
            if waiting[app] == 0 { waiting[app] = nil }
        }
        if let pending = pendingPrompts[app] { return await pending.value }
        let question = NotificationQuestion(
            summary: Translation.format("Allow “%s” to set alarms?", Self.displayName(identity)),
            body: Translation.format("%s wants to schedule alarms and timers that ring even during do-not-disturb.", app)
                + (usage.map { "\n\n" + $0 } ?? ""),
            yes: ("allow", Translation.text("Allow")), no: ("deny", Translation.text("Don’t Allow")))
        let connection = self.connection
        let logger = self.logger
        let task = Task<AlarmManager.AuthorizationState, Never> {
            do {
                switch try await question.ask(on: connection) {
                case .yes: return .authorized
                case .no: return .denied
                case .dismissed: return .notDetermined
                }
            } catch {
                logger.warning("Could not ask about an app's alarms", metadata: ["app": "\(app)", "error": "\(error)"])
                return .notDetermined
            }
        }
        pendingPrompts[app] = task
        let answer = await task.value
        pendingPrompts[app] = nil
        if answer != .notDetermined {
            try? set(answer, for: app)
        }
        return answer
    }

    /// Stores an answer for an app (`.notDetermined` forgets it) and tells listeners.
    package func set(_ state: AlarmManager.AuthorizationState, for app: String) throws {
        let answer = AppAuthorization(app: app, state: state, decidedAt: Date())
        try store.setAuthorization(state, for: app, at: answer.decidedAt)
        states.withLock { $0[app] = state == .notDetermined ? nil : answer }
        logger.info("Authorization changed", metadata: ["app": "\(app)", "state": "\(state.rawValue)"])
        for listener in listeners.values { listener.yield(answer) }
    }

    /// A stream of changes to any app's state.
    package func changes() -> AsyncStream<AppAuthorization> {
        let (stream, continuation) = AsyncStream.makeStream(of: AppAuthorization.self)
        let key = UUID.random()
        listeners[key] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeListener(key) } }
        return stream
    }

    private func removeListener(_ key: UUID) { listeners[key] = nil }

    /// A name for the app a person recognises: the app id, or the executable's file name.
    static func displayName(_ identity: CallerIdentity) -> String {
        AlarmOwner.displayName(of: identity.appID) ?? identity.appID
    }
}
