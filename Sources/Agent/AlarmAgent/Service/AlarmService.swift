import AlarmCore
import AlarmModel
import AlarmPresentation
import AlarmRecords
import AlarmDesktop
import AlarmProtocol
import DBus
import FoundationEssentials
import Logging
import Synchronization

/// The agent's D-Bus API: the manager object with its methods and properties, and one object per
/// alarm, kept in step with the engine.
///
/// Every call is attributed to its caller from the bus (`CallerResolver`): apps see and change only
/// their own alarms and must be authorized to schedule; the person's own `reveille` sees all.
/// Alarm objects answer only callers that may see them, and their `PropertiesChanged` and the
/// `ObjectManager` signals go, unicast, only to those callers.
package final class AlarmService: Sendable {
    /// The well-known bus name.
    package static let busName = AlarmBus.name
    /// The manager object's path.
    package static let managerPath = AlarmBus.managerPath
    /// The manager interface.
    package static let managerInterface = AlarmBus.managerInterface
    /// The interface of each alarm object.
    package static let alarmInterface = AlarmBus.alarmInterface

    /// The object path of an alarm: its UUID with `-` escaped to `_`.
    package static func path(of id: UUID) -> String { AlarmWire.alarmPath(of: id) }

    let connection: DBusConnection
    let engine: AlarmEngine
    let clock: any AlarmClock
    let resolver: CallerResolver
    let authorization: AuthorizationCenter
    let status: AgentStatus
    /// Notifications and sound, for the status properties.
    let desktop: DesktopPresenter?
    /// Where sounds are found: refuses a sound given at scheduling time that cannot be played,
    /// and lists those a person may choose.
    let sounds: SoundResolver
    let logger: Logger
    /// The alarm objects exported now, with the record each was last announced with. Held while
    /// an object changes and its signals go out, and while `List` or `Watch` reads and replies, so
    /// replies and signals leave in the order of the changes.
    private let exported = Mutex<[UUID: AlarmRecord]>([:])

    /// What `Version`, `StorePath`, the wake-up properties and `reveille status` report.
    package struct AgentStatus: Sendable {
        /// The agent's version.
        package var version: String
        /// The store's database file.
        package var storePath: String
        /// Why the store is read-only (no change can be stored), or `nil` when it is not.
        package var storeReadOnlyReason: String?
        /// What wakes the agent besides its timers, and whether alarms wake the machine.
        var wakeSources: WakeSources?
        /// The phone backup's wait and the ringer that finds the phones; `nil` when it is off.
        var phoneBackup: (after: Duration, ringer: PhoneRinger)?
        /// The snooze lengths (seconds) the person chose (`--snooze-choices`); none by default.
        var snoozeChoices: [Int] = []
        /// How long an alarm whose Snooze has no length of its own snoozes, in seconds.
        var defaultSnooze: TimeInterval = AlarmPolicy.nineMinutes
    }

    /// Creates the service; `start()` exports it.
    package init(
        connection: DBusConnection, engine: AlarmEngine, clock: any AlarmClock, resolver: CallerResolver,
        authorization: AuthorizationCenter, status: AgentStatus, desktop: DesktopPresenter?, sounds: SoundResolver, logger: Logger
    ) {
        self.desktop = desktop
        self.sounds = sounds
        self.connection = connection
        self.engine = engine
        self.clock = clock
        self.resolver = resolver
        self.authorization = authorization
        self.status = status
        self.logger = logger
    }

    /// Refuses a sound given at scheduling time that cannot be played.
    var validateSound: @Sendable (AlertConfiguration.AlertSound) throws(SoundError) -> Void {
        { [sounds] (sound) throws(SoundError) in try sounds.validate(sound) }
    }

    /// Exports the manager object, its object manager and the objects of the alarms there are. The
    /// agent calls this before it takes its bus name, so a client that sees the name finds them all.
    package func export() async throws {
        try connection.export(path: Self.managerPath, interfaces: [Self.managerDescription(self)])
        connection.exportObjectManager(
            at: Self.managerPath,
            visibility: ObjectVisibility(
                { [weak self] caller, path in
                    guard let self, let id = Self.id(ofPath: path), let resolved = try? await self.resolver.resolve(caller) else {
                        return false
                    }
                    return (try? await self.engine.alarm(id: id, caller: resolved.caller)) != nil
                },
                listedBy: { [weak self] caller in _ = try? await self?.watchingCaller(caller) }))
        let alarmObject = try DBusObjectInterfaces([Self.alarmDescription(self)])
        // The desktop draws what the changed alarms will show (their tint images) ahead of their
        // alerts; it hands the work off and returns.
        await engine.observeChanges { [weak self, desktop] changes in
            self?.mirror(changes, exporting: alarmObject)
            desktop?.prepare(changes)
        }
        desktop?.doNotDisturb?.onStatusChange { [weak self] status in
            guard let self else { return }
            try? connection.emitPropertiesChanged(
                path: Self.managerPath, interface: Self.managerInterface, changed: ["DoNotDisturb": Self.encode(status)])
        }
    }

    /// Follows authorization changes and departing callers, until the task is cancelled. (The
    /// alarm objects follow the engine from `export()` on.)
    package func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.followAuthorizations() }
            group.addTask { await self.followDepartures() }
        }
    }

    // MARK: - Following the engine

    /// Brings the alarms' D-Bus objects in step with one stored transaction's changes: exports
    /// and announces each new alarm, signals changed properties, or unexports and announces a
    /// removed one, to the callers that watch objects; then sends the callers that called `Watch`
    /// one `AlarmsChanged` for the whole transaction (`announceToListWatchers`).
    ///
    /// The engine calls this on itself, in the order of its transactions, before the calls that
    /// made them return (`AlarmEngine.observeChanges(_:)`): a caller that hears of its change
    /// finds the object there, or gone.
    private func mirror(_ changes: [AlarmChange], exporting alarmObject: DBusObjectInterfaces) {
        exported.withLock { map in
            let objectWatchers = resolver.watchers(.objects)
            // Each alarm's last record in this transaction, and whether that was its removal.
            var final: [UUID: ListedChange] = [:]
            var order: [UUID] = []
            for change in changes {
                switch change {
                case .removed(let record):
                    guard let old = map.removeValue(forKey: record.id) else { continue }
                    let path = Self.path(of: record.id)
                    connection.unexport(path: path)
                    try? connection.emitSignal(
                        path: Self.managerPath, interface: "org.freedesktop.DBus.ObjectManager", name: "InterfacesRemoved",
                        arguments: [.objectPath(path), .strings([Self.alarmInterface])],
                        destinations: Self.recipients(of: old, among: objectWatchers))
                    if final.updateValue(ListedChange(record: old, removed: true), forKey: record.id) == nil { order.append(record.id) }
                case .updated(let record):
                    let old = map[record.id]
                    guard old != record else { continue }
                    if old == nil {
                        do {
                            try connection.export(path: Self.path(of: record.id), object: alarmObject)
                        } catch {
                            logger.error("Could not export an alarm object", metadata: ["id": "\(record.id)", "error": "\(error)"])
                            continue
                        }
                    }
                    map[record.id] = record
                    let recipients = Self.recipients(of: record, among: objectWatchers)
                    if old == nil { announce(record, to: recipients) } else { notifyChanged(record, to: recipients) }
                    if final.updateValue(ListedChange(record: record, removed: false), forKey: record.id) == nil { order.append(record.id) }
                }
            }
            announceToListWatchers(order.map { final[$0]! })
        }
    }

    /// An alarm as a transaction left it, for `AlarmsChanged`: its record, or its last record
    /// when it was removed.
    private struct ListedChange {
        var record: AlarmRecord
        var removed: Bool
    }

    /// Sends each caller that called `Watch` one `AlarmsChanged` with the changes it may see,
    /// if any: the alarms as `List` shows them, and the ids of those removed (each alarm in at
    /// most one of the two, as the transaction left it). Callers that see the same changes share
    /// one built message, copied for each (`emitSignal(destinations:)`).
    private func announceToListWatchers(_ changes: [ListedChange]) {
        let watchers = resolver.watchers(.lists)
        guard !changes.isEmpty, !watchers.isEmpty else { return }
        var recipientsBySeen: [[Int]: [String]] = [:]
        for (name, resolved) in watchers {
            let seen = changes.indices.filter { resolved.caller.mayAccess(changes[$0].record) }
            if !seen.isEmpty { recipientsBySeen[seen, default: []].append(name) }
        }
        guard !recipientsBySeen.isEmpty else { return }
        let reading = clock.read()
        // Each alarm someone sees is encoded once, however many see it.
        var encoded: [Int: DBusValue] = [:]
        for index in Set(recipientsBySeen.keys.joined()) {
            let change = changes[index]
            encoded[index] =
                change.removed
                ? .string(change.record.id.lowercasedText()) : AlarmWire.encode(change.record, at: reading, summary: true)
        }
        for (seen, recipients) in recipientsBySeen {
            let alarms = seen.filter { !changes[$0].removed }.map { encoded[$0]! }
            let removed = seen.filter { changes[$0].removed }.map { encoded[$0]! }
            try? connection.emitSignal(
                path: Self.managerPath, interface: Self.managerInterface, name: "AlarmsChanged",
                arguments: [.array(elementSignature: "a{sv}", alarms), .array(elementSignature: "s", removed)],
                destinations: recipients.sorted())
        }
    }

    /// Answers `List` and `Watch`: the alarms the caller may see, as their objects were last announced.
    ///
    /// It reads and replies while no object changes, so the reply comes after every signal about
    /// what it lists and before any signal about a later change: a client that applies, on top of
    /// the list, the signals that come after the reply (by their serials) misses nothing and goes
    /// back in nothing.
    func list(for caller: AlarmCaller, replyingTo call: DBusMethodCall) throws(DBusError) -> [DBusValue] {
        try exported.withLock { (map) throws(DBusError) in
            let records = map.values.filter(caller.mayAccess).sorted { $0.id.precedes($1.id) }
            let reading = clock.read()
            let values: [DBusValue] = [.array(elementSignature: "a{sv}", records.map { AlarmWire.encode($0, at: reading, summary: true) })]
            try call.reply(values)
            return values
        }
    }

    /// The callers among `watchers` that may see this alarm: its object signals go to them
    /// alone, unicast. A caller that only schedules is not woken by every change.
    private static func recipients(of record: AlarmRecord, among watchers: [String: CallerResolver.Resolved]) -> [String] {
        watchers.filter { $0.value.caller.mayAccess(record) }.map(\.key).sorted()
    }

    /// Sends `PropertiesChanged` for an alarm to `recipients`.
    private func notifyChanged(_ record: AlarmRecord, to recipients: [String]) {
        guard !recipients.isEmpty else { return }
        try? connection.emitPropertiesChanged(
            path: Self.path(of: record.id), interface: Self.alarmInterface,
            changed: Self.properties(of: record, at: clock.read()), destinations: recipients)
    }

    /// Sends the object manager's `InterfacesAdded` for a new alarm object to `recipients`, with
    /// the properties `GetManagedObjects` would show them (every caller that may see an alarm
    /// sees the same values).
    private func announce(_ record: AlarmRecord, to recipients: [String]) {
        guard !recipients.isEmpty else { return }
        let interfaces = DBusValue.array(
            elementSignature: "{sa{sv}}",
            [.dictEntry(.string(Self.alarmInterface), .dictionary(Self.properties(of: record, at: clock.read())))])
        try? connection.emitSignal(
            path: Self.managerPath, interface: "org.freedesktop.DBus.ObjectManager", name: "InterfacesAdded",
            arguments: [.objectPath(Self.path(of: record.id)), interfaces], destinations: recipients)
    }

    /// The alarm id in an alarm object's path.
    static func id(ofPath path: String) -> UUID? { AlarmWire.alarmID(ofPath: path) }

    private func followAuthorizations() async {
        for await answer in await authorization.changes() {
            for (name, resolved) in resolver.knownCallers where resolved.caller == .app(answer.app) {
                try? connection.emitSignal(
                    path: Self.managerPath, interface: Self.managerInterface, name: "AuthorizationChanged",
                    arguments: [.string(answer.state.rawValue)], destination: name)
                try? connection.emitPropertiesChanged(
                    path: Self.managerPath, interface: Self.managerInterface,
                    changed: ["AuthorizationState": .string(answer.state.rawValue)], destination: name)
            }
        }
    }

    private func followDepartures() async {
        let rule = MatchRule(
            sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameOwnerChanged")
        for await signal in connection.signals(rule) {
            guard case let arguments = signal.arguments, arguments.count == 3,
                let name = arguments[0].stringValue, name.hasPrefix(":"), arguments[2].stringValue == ""
            else { continue }
            resolver.forget(name)
        }
    }

    // MARK: - Properties of an alarm object

    /// The alarm object's property names, in the order the interface lists them.
    static let propertyNames = ["Id", "State", "Kind", "Title", "Owner", "Schedule", "Countdown", "FireDate", "Remaining", "Alarm"]

    /// One property of an alarm object. `FireDate` is 0 and `Remaining` is 0 when not known.
    static func property(_ name: String, of record: AlarmRecord, at reading: ClockReading) -> DBusValue? {
        switch name {
        case "Id": .string(record.id.lowercasedText())
        case "State": .string(record.state.rawValue)
        case "Kind": .string(record.definition.isTimer ? "timer" : "alarm")
        case "Title": .string(record.definition.title)
        case "Owner": .string(record.owner)
        case "Schedule": record.definition.schedule.map(AlarmWire.encode) ?? .dictionary([:])
        case "Countdown": record.definition.countdownDuration.map(AlarmWire.encode) ?? .dictionary([:])
        case "FireDate": .double(record.fireDate(from: reading)?.timeIntervalSince1970 ?? 0)
        case "Remaining": .double(record.remaining(from: reading) ?? 0)
        case "Alarm": AlarmWire.encode(record, at: reading)
        default: nil
        }
    }

    /// Every property of an alarm object.
    static func properties(of record: AlarmRecord, at reading: ClockReading) -> [String: DBusValue] {
        var properties: [String: DBusValue] = [:]
        for name in propertyNames { properties[name] = property(name, of: record, at: reading) }
        return properties
    }

    // MARK: - Calls

    func caller(of call: DBusMethodCall) async throws -> CallerResolver.Resolved {
        try await resolver.resolve(call.sender)
    }

    /// The caller (a unique name) of a call that reads alarms, noted as watching them: it is sent
    /// their changes from now on, as object signals or as `AlarmsChanged` (`mirror(_:exporting:)`).
    func watchingCaller(_ sender: String, _ watching: CallerResolver.Watching = .objects) async throws -> CallerResolver.Resolved {
        let resolved = try await resolver.resolve(sender)
        resolver.markWatching(sender, watching)
        return resolved
    }

    static func id(_ value: DBusValue?) throws -> UUID {
        let text = value?.stringValue ?? ""
        guard let id = UUID(text: text) else { throw AgentError.badID(text) }
        return id
    }

    /// Runs a handler, turning every error into the agent's named D-Bus errors.
    func handle(_ body: () async throws -> [DBusValue]) async throws -> [DBusValue] {
        do {
            return try await body()
        } catch {
            let named = AgentError.dbusError(for: error)
            // An alert silenced but not stored (`AlertEndedNotStored`) is logged by the engine.
            if !(error is AlertEndedNotStored), named.name == AgentError.storageFailed {
                // The disk is full, the folder read-only, the database failing: the caller hears
                // StorageFailed, the person's log says why; nothing changed.
                logger.error("A change could not be stored; nothing changed", metadata: ["error": "\(error)"])
            }
            throw named
        }
    }

    /// The user, or an app that is authorized (asking the person first when undecided).
    func authorizedCaller(of call: DBusMethodCall) async throws -> CallerResolver.Resolved {
        let resolved = try await caller(of: call)
        guard case .app(let app) = resolved.caller else { return resolved }
        switch try await authorization.request(for: resolved.identity) {
        case .authorized:
            return resolved
        case .denied:
            throw DBusError(name: AgentError.notAuthorized, message: "the person has not allowed \(app) to set alarms")
        case .notDetermined:
            throw DBusError(
                name: AgentError.notAuthorized,
                message: "the person did not answer whether \(app) may set alarms (reveille auth allow \(app))")
        }
    }
}
