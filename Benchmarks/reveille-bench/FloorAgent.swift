import AgentRuntime
import AlarmProtocol
import AlarmCore
import AlarmModel
import AlarmKit
import DBus
import Foundation

/// A stand-in for the agent that answers `Schedule` as the agent does on the wire and does
/// nothing else: the floor under the load benchmark's latency.
///
/// It owns the agent's bus name and serves the manager's `Schedule` with the same libraries: the
/// call is read into an `AlarmDefinition` (`AlarmWire.decodeConfiguration`), the state machine
/// makes the alarm, and the reply is the whole alarm (`AlarmWire.encode`). It resolves no caller,
/// asks for no authorization, checks no sound, stores nothing and exports no objects; its tasks
/// run on libdispatch's pool, not the agent's `WorkerPool`. The same clients on the same bus
/// against it show what the bus, libdbus, the DBus module and the clients cost by themselves on
/// this machine; what the real agent adds on top is its own.
///
/// It also answers `Watch` (an empty list) and then sends its callers `AlarmsChanged` as the
/// agent does, one per group of calls (`FloorAnnouncer`): with the load's subscribers watching
/// it, it shows what the subscribers and their signals cost by themselves. Unwatched, it encodes
/// nothing more than the reply.
enum FloorAgent {
    /// The word that starts `reveille-bench` in this role (the load benchmark spawns it).
    static let role = "floor-agent"

    /// Serves the session bus (`DBUS_SESSION_BUS_ADDRESS`) until the process is stopped.
    static func serve() async throws -> Never {
        let connection = try DBusConnection.session()
        let machine = AlarmStateMachine()
        let announcer = FloorAnnouncer(connection: connection)
        let schedule = DBusMethod(
            name: "Schedule", inArguments: [.init(name: "id", signature: "s"), .init(name: "configuration", signature: "a{sv}")],
            outArguments: [.init(name: "alarm", signature: "a{sv}")]
        ) { call in
            guard let id = call.arguments.first?.stringValue.flatMap({ UUID(text: $0) }) else {
                throw DBusError(name: DBusError.invalidArgs, message: "not an alarm id")
            }
            let reading = ClockReading(
                now: Date(), uptime: .seconds(ProcessInfo.processInfo.systemUptime), bootID: "floor", timeZone: .current)
            do {
                let definition = try AlarmWire.decodeConfiguration(call.arguments[1])
                guard let record = try machine.schedule(id: id, owner: call.sender, definition: definition, at: reading).record else {
                    return []
                }
                if announcer.isWatched { announcer.add(AlarmWire.encode(record, at: reading, summary: true)) }
                return [AlarmWire.encode(record, at: reading)]
            } catch {
                throw DBusError(name: DBusError.invalidArgs, message: "\(error)")
            }
        }
        let watch = DBusMethod(name: "Watch", inArguments: [], outArguments: [.init(name: "alarms", signature: "aa{sv}")]) { call in
            announcer.watch(call.sender)
            return [.array(elementSignature: "a{sv}", [])]
        }
        try connection.export(
            path: AgentClient.managerPath, interfaces: [DBusInterface(name: AgentClient.managerInterface, methods: [schedule, watch])])
        guard try await connection.requestName(AgentClient.busName) == .primaryOwner else {
            throw DBusError(name: DBusError.failed, message: "\(AgentClient.busName) is taken")
        }
        while true { try await Task.sleep(for: .seconds(3_600)) }
    }
}
