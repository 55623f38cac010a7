public import AlarmModel
package import AlarmProtocol
package import AlarmRecords
package import DBus
public import FoundationEssentials

/// A client of the Reveille agent's D-Bus API (`io.github.reveille.Alarms1`): every method the
/// agent offers, as Swift calls. `AlarmManager` is built on it; the `reveille` command uses it
/// directly for what AlarmKit does not cover (history, authorizations, status).
///
/// Apps see only Swift and AlarmKit types through it: the bus connection, the agent's alarm
/// records and the D-Bus values stay inside the package (`package`), and the bus's failures come
/// out as `AgentClientError`, `AgentBusError` and `AgentStartError`.
public final class AgentClient: Sendable {
    /// The agent's well-known bus name.
    public static let busName = AlarmBus.name
    /// The manager object's path.
    public static let managerPath = AlarmBus.managerPath
    /// The manager interface.
    public static let managerInterface = AlarmBus.managerInterface
    /// The alarm objects' interface.
    public static let alarmInterface = AlarmBus.alarmInterface

    /// The bus connection.
    package let connection: DBusConnection

    /// Creates a client on a connection.
    package init(connection: DBusConnection) {
        self.connection = connection
    }

    /// Connects to the session bus (or the given address); throws `AgentBusError` when it cannot.
    public static func connect(address: String? = nil) throws -> AgentClient {
        do {
            return AgentClient(connection: try address.map { try DBusConnection.connect(address: $0) } ?? DBusConnection.session())
        } catch let error as DBusError {
            throw AgentBusError(error)
        }
    }

    /// Closes the connection; calls made after fail (`AgentClientError`, kind `.unavailable`).
    public func close() {
        connection.close()
    }

    // MARK: - Alarms

    /// Schedules (or replaces) an alarm; returns it as the agent stored it.
    package func schedule(id: UUID, definition: AlarmDefinition, timeout: Duration = .seconds(600)) async throws -> AlarmWire.RemoteAlarm {
        let reply = try await call("Schedule", [.string(id.lowercasedText()), AlarmWire.encode(definition)], timeout: timeout)
        return try AlarmWire.decodeAlarm(try Self.first(reply))
    }

    /// Changes some of an alarm's settings, keeping its id and history (`Edit`); returns it as the
    /// agent stored it.
    package func edit(id: UUID, _ change: AlarmEdit, timeout: Duration = .seconds(600)) async throws -> AlarmWire.RemoteAlarm {
        let reply = try await call("Edit", [.string(id.lowercasedText()), AlarmWire.encode(change)], timeout: timeout)
        return try AlarmWire.decodeAlarm(try Self.first(reply))
    }

    /// Removes an alarm.
    public func cancel(id: UUID) async throws { _ = try await call("Cancel", [.string(id.lowercasedText())]) }
    /// Stops an alerting alarm.
    public func stop(id: UUID) async throws { _ = try await call("Stop", [.string(id.lowercasedText())]) }
    /// Pauses a countdown.
    public func pause(id: UUID) async throws { _ = try await call("Pause", [.string(id.lowercasedText())]) }
    /// Resumes a paused countdown.
    public func resume(id: UUID) async throws { _ = try await call("Resume", [.string(id.lowercasedText())]) }
    /// Snoozes or repeats an alerting alarm.
    public func countdown(id: UUID) async throws { _ = try await call("Countdown", [.string(id.lowercasedText())]) }
    /// Snoozes or repeats an alerting alarm for `seconds` instead of its `postAlert` duration.
    public func snooze(id: UUID, for seconds: TimeInterval) async throws {
        _ = try await call("Snooze", [.string(id.lowercasedText()), .double(seconds)])
    }
    /// Skips a repeating alarm's next alert; it rings again the time after.
    public func skip(id: UUID) async throws { _ = try await call("Skip", [.string(id.lowercasedText())]) }
    /// Rings a skipped alert after all, if it is still ahead; does nothing when none is skipped.
    public func unskip(id: UUID) async throws { _ = try await call("Unskip", [.string(id.lowercasedText())]) }
    /// Turns an alarm off (it keeps its settings and never rings) or on again.
    public func setEnabled(_ enabled: Bool, id: UUID) async throws {
        _ = try await call("SetEnabled", [.string(id.lowercasedText()), .boolean(enabled)])
    }

    /// The alarms the caller may see.
    package func list() async throws -> [AlarmWire.RemoteAlarm] {
        let reply = try await call("List", [])
        return try AlarmWire.decodeAlarms(try Self.first(reply).arrayValue ?? [])
    }

    /// One alarm.
    package func get(id: UUID) async throws -> AlarmWire.RemoteAlarm {
        try AlarmWire.decodeAlarm(try Self.first(try await call("Get", [.string(id.lowercasedText())])))
    }

    // MARK: - Authorization

    /// Asks the agent (and through it, the person) whether this app may set alarms.
    public func requestAuthorization(timeout: Duration = .seconds(600)) async throws -> AlarmManager.AuthorizationState {
        let reply = try await call("RequestAuthorization", [], timeout: timeout)
        return AlarmManager.AuthorizationState(rawValue: try Self.first(reply).stringValue ?? "") ?? .notDetermined
    }

    /// Asks the agent whether this app may set alarms; a question to the person shows
    /// `usageDescription`, the app's reason (as `NSAlarmKitUsageDescription` does on Apple's systems).
    public func requestAuthorization(
        usageDescription: String, timeout: Duration = .seconds(600)
    ) async throws
        -> AlarmManager.AuthorizationState
    {
        let reply = try await call("RequestAuthorizationWithUsage", [.string(usageDescription)], timeout: timeout)
        return AlarmManager.AuthorizationState(rawValue: try Self.first(reply).stringValue ?? "") ?? .notDetermined
    }

    /// This app's authorization as the agent stores it.
    public func authorizationState() async throws -> AlarmManager.AuthorizationState {
        AlarmManager.AuthorizationState(rawValue: try await property("AuthorizationState").stringValue ?? "") ?? .notDetermined
    }

    /// Every app's stored answer (the person's own command only).
    public func authorizations() async throws -> [AppAuthorization] {
        try (try Self.first(try await call("ListAuthorizations", [])).arrayValue ?? []).map { value in
            guard case .structure(let fields) = value, fields.count == 3, let app = fields[0].stringValue,
                let state = fields[1].stringValue.flatMap(AlarmManager.AuthorizationState.init(rawValue:)),
                let decided = fields[2].doubleValue
            else { throw AlarmWireError.malformed("an authorization is not (ssd)") }
            return AppAuthorization(app: app, state: state, decidedAt: Date(timeIntervalSince1970: decided))
        }
    }

    /// Stores the person's answer for an app (the person's own command only).
    public func setAuthorization(_ state: AlarmManager.AuthorizationState, for app: String) async throws {
        _ = try await call("SetAuthorization", [.string(app), .string(state.rawValue)])
    }

    // MARK: - Sounds

    /// The sounds a person may give an alarm by name: Reveille's own and the sound theme's
    /// (`ListSounds`; the person's own command only).
    package func sounds() async throws -> [SoundChoice] {
        try (try Self.first(try await call("ListSounds", [])).arrayValue ?? []).map(AlarmWire.decodeSound)
    }

    /// Plays a sound (a name or a file) for about `seconds`, as an alert would, so a person can
    /// hear it (`PlaySound`; the person's own command only); returns where it was found and how
    /// long it plays.
    package func playSound(_ sound: String, seconds: Double) async throws -> (source: String, seconds: Double) {
        let reply = try await call("PlaySound", [.string(sound), .double(seconds)])
        guard reply.count == 2, let source = reply[0].stringValue, let playing = reply[1].doubleValue else {
            throw AlarmWireError.malformed("PlaySound's reply is not (sd)")
        }
        return (source, playing)
    }

    // MARK: - History and status

    /// The alert history, newest first (the person's own command only).
    public func history(limit: Int = 1_000) async throws -> [AlertHistoryEntry] {
        let reply = try await call("History", [.uint32(UInt32(clamping: limit))])
        return try (try Self.first(reply).arrayValue ?? []).map { value in
            guard let entry = value.dictionaryValue, let id = entry["alarmID"]?.stringValue.flatMap({ UUID(text: $0) }),
                let scheduled = entry["scheduledAt"]?.doubleValue
            else { throw AlarmWireError.malformed("a history entry lacks its alarm or instant") }
            return AlertHistoryEntry(
                alarmID: id, title: entry["title"]?.stringValue ?? "",
                scheduledAt: Date(timeIntervalSince1970: scheduled),
                alertedAt: entry["alertedAt"]?.doubleValue.map(Date.init(timeIntervalSince1970:)),
                endedAt: entry["endedAt"]?.doubleValue.map(Date.init(timeIntervalSince1970:)),
                outcome: entry["outcome"]?.stringValue.flatMap(AlertOutcome.init(rawValue:)),
                count: Int(entry["count"]?.integerValue ?? 1),
                phonesRung: entry["phonesRung"]?.arrayValue.map { $0.compactMap(\.stringValue) })
        }
    }

    /// A property of the manager object, by its name in the D-Bus API (docs/API.md, "The D-Bus API"):
    /// `Version`, `StorePath`, `AlarmCount`, `NotificationServer`, …; throws `AgentBusError`
    /// when the bus or the agent cannot give it.
    public func property(_ name: String) async throws -> PropertyValue {
        PropertyValue(try await propertyValue(name))
    }

    /// A property of the manager object, as the bus gave it.
    package func propertyValue(_ name: String) async throws -> DBusValue {
        do {
            let reply = try await connection.call(
                destination: Self.busName, path: Self.managerPath, interface: "org.freedesktop.DBus.Properties", method: "Get",
                arguments: [.string(Self.managerInterface), .string(name)])
            return try Self.first(reply).unwrapped
        } catch let error as DBusError {
            throw AgentBusError(error)
        }
    }

    /// Whether the agent owns its bus name now.
    public func isAgentRunning() async -> Bool {
        await AgentLauncher.isRunning(on: connection)
    }

    /// Starts the agent and returns once it runs: by D-Bus activation when it is installed,
    /// otherwise by running `reveilled` from this program's own folder.
    ///
    /// A call to the agent starts it by activation by itself; this is for when it is not
    /// installed for activation (`AgentClientError.isAgentMissing`), or to start it before waiting
    /// for its signals.
    public func startAgent() async throws(AgentStartError) {
        try await startAgent(beside: AgentLauncher.ownFolder())
    }

    /// Starts the agent and returns once it runs: by D-Bus activation when it is installed,
    /// otherwise by running `reveilled` from `folder`.
    public func startAgent(beside folder: URL) async throws(AgentStartError) {
        do {
            try await AgentLauncher.start(on: connection, beside: folder)
        } catch {
            throw AgentStartError(error.message)
        }
    }

    // MARK: - Updates

    /// The caller's whole list of alarms: now, then after every change the agent signals.
    ///
    /// One `Watch` (the list, as `List` gives it), then the agent's `AlarmsChanged` signals, one
    /// per stored change with every alarm it changed that the caller may see, applied on top of
    /// it in order (`AlarmListMirror`); another `Watch` only when the agent starts again. A list
    /// is built when the reader asks for the next one, so a thousand changes while the reader is
    /// busy cost one list, and the last list always shows the last change. While changes stream
    /// in, lists come at most every 16 ms (`AlarmListFeed`); a change after a quiet spell comes
    /// at once.
    package func updates() -> AsyncStream<[AlarmWire.RemoteAlarm]> {
        let feed = AlarmListFeed()
        // Each signal is applied to the list on the connection's thread as it comes: no task
        // switch per signal, however many come (the list is handed out at most once a frame).
        let signals = connection.handleSignals(
            MatchRule(sender: Self.busName, path: Self.managerPath, interface: Self.managerInterface, member: "AlarmsChanged"),
            onEnd: { feed.finish() }
        ) { message in
            guard let changes = AlarmListMirror.changes(in: message), let sender = message.sender else { return }
            feed.update { $0.received(changes, sender: sender, serial: message.serial) }
        }
        // When the agent starts again (a crash, an update), the new one knows nothing of this
        // client: watching it again makes it send this client its changes.
        let restarts = connection.signals(
            MatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: Self.busName))
        // Lists asked for: one at a time, however many restarts come meanwhile.
        let (wanted, want) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        want.yield()
        let tasks = [
            Task {
                // An agent without `Watch` signals its changes only as its objects' changes: each
                // one asks for the whole list again (they are set up once, at the first such list).
                var objectSignals: [SignalSubscription] = []
                defer { for subscription in objectSignals { subscription.cancel() } }
                for await _ in wanted {
                    guard let reply = try? await listReply() else { continue }
                    if !reply.watched && objectSignals.isEmpty {
                        objectSignals = objectChangeSignals { want.yield() }
                        // A change between that list and the subscriptions is in the next list.
                        want.yield()
                    }
                    feed.update { $0.listed(reply.alarms, sender: reply.sender, serial: reply.serial) }
                }
            },
            Task {
                for await signal in restarts where signal.arguments.count == 3 && signal.arguments[2].stringValue?.isEmpty == false {
                    feed.update { $0.agentRestarted() }
                    want.yield()
                }
            },
        ]
        // The tasks end with the stream: when its reader's task is cancelled, or the stream goes away.
        let lifetime = StreamLifetime {
            for task in tasks { task.cancel() }
            signals.cancel()
            want.finish()
            feed.finish()
        }
        return AsyncStream(
            unfolding: { [lifetime] in
                withExtendedLifetime(lifetime) {}
                return await feed.next()
            }, onCancel: { lifetime.end() })
    }

    /// `Watch`: the list, with the reply's sender and serial (where the agent's signals about it
    /// start). From an agent without `Watch` (the first ones), `List`, and `watched` is false: it
    /// sends no `AlarmsChanged`.
    private func listReply() async throws -> (alarms: [AlarmWire.RemoteAlarm], sender: String, serial: UInt32, watched: Bool) {
        var watched = true
        let reply: DBusMessage
        do {
            do {
                reply = try await connection.call(
                    try DBusMessage.methodCall(
                        destination: Self.busName, path: Self.managerPath, interface: Self.managerInterface, method: "Watch", arguments: [])
                )
            } catch let error as DBusError where error.name == DBusError.unknownMethod {
                watched = false
                reply = try await connection.call(
                    try DBusMessage.methodCall(
                        destination: Self.busName, path: Self.managerPath, interface: Self.managerInterface, method: "List", arguments: []))
            }
        } catch let error as DBusError {
            throw AgentClientError(error)
        }
        let alarms = try AlarmWire.decodeAlarms(try Self.first(reply.decodedArguments()).arrayValue ?? [])
        return (alarms, reply.sender ?? "", reply.serial, watched)
    }

    /// The signals by which an agent without `Watch` shows a change: an alarm object added or
    /// removed (`InterfacesAdded`, `InterfacesRemoved`) and an alarm's properties changed
    /// (`PropertiesChanged`). `changed` runs on the connection's thread for each.
    private func objectChangeSignals(_ changed: @escaping @Sendable () -> Void) -> [SignalSubscription] {
        [
            MatchRule(
                sender: Self.busName, path: Self.managerPath, interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded"),
            MatchRule(
                sender: Self.busName, path: Self.managerPath, interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesRemoved"),
            MatchRule(sender: Self.busName, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"),
        ].map { rule in connection.handleSignals(rule) { _ in changed() } }
    }

    /// This app's authorization: now, then after every change.
    public func authorizationUpdates() -> AsyncStream<AlarmManager.AuthorizationState> {
        let signals = connection.signals(MatchRule(sender: Self.busName, interface: Self.managerInterface, member: "AuthorizationChanged"))
        let (stream, continuation) = AsyncStream.makeStream(of: AlarmManager.AuthorizationState.self)
        let task = Task {
            if let state = try? await authorizationState() { continuation.yield(state) }
            for await signal in signals {
                if let text = signal.arguments.first?.stringValue, let state = AlarmManager.AuthorizationState(rawValue: text) {
                    continuation.yield(state)
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    // MARK: - Blocking calls, for AlarmKit's synchronous control calls

    /// Calls a manager method that takes an alarm id (`Cancel`, `Stop`, `Pause`, `Resume`,
    /// `Countdown`), blocking the calling thread until the agent answers.
    public func controlBlocking(_ method: String, id: UUID) throws {
        _ = try callBlocking(method, [.string(id.lowercasedText())])
    }

    /// `List`, blocking the calling thread until the agent answers.
    package func listBlocking() throws -> [AlarmWire.RemoteAlarm] {
        try AlarmWire.decodeAlarms(try Self.first(try callBlocking("List", [])).arrayValue ?? [])
    }

    /// This app's authorization, blocking the calling thread until the agent answers.
    public func authorizationStateBlocking() throws -> AlarmManager.AuthorizationState {
        do {
            let message = try DBusMessage.methodCall(
                destination: Self.busName, path: Self.managerPath, interface: "org.freedesktop.DBus.Properties", method: "Get",
                arguments: [.string(Self.managerInterface), .string("AuthorizationState")])
            let reply = try connection.callBlocking(message)
            return AlarmManager.AuthorizationState(rawValue: reply.arguments.first?.stringValue ?? "") ?? .notDetermined
        } catch let error as DBusError {
            throw AgentBusError(error)
        }
    }

    private func callBlocking(_ method: String, _ arguments: [DBusValue]) throws -> [DBusValue] {
        do {
            let message = try DBusMessage.methodCall(
                destination: Self.busName, path: Self.managerPath, interface: Self.managerInterface, method: method,
                arguments: arguments)
            return try connection.callBlocking(message).decodedArguments()
        } catch let error as DBusError {
            throw AgentClientError(error)
        }
    }

    // MARK: - Calls

    private func call(_ method: String, _ arguments: [DBusValue], timeout: Duration = .seconds(25)) async throws -> [DBusValue] {
        do {
            return try await connection.call(
                destination: Self.busName, path: Self.managerPath, interface: Self.managerInterface, method: method,
                arguments: arguments, timeout: timeout)
        } catch let error as DBusError {
            throw AgentClientError(error)
        }
    }

    private static func first(_ values: [DBusValue]) throws -> DBusValue {
        guard let value = values.first else { throw AlarmWireError.malformed("an empty reply") }
        return value
    }
}
