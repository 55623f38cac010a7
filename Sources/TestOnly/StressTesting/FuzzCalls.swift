import AlarmProtocol
import AlarmKit
import CommandLineText
import DBus
import Foundation
import TestSupport

/// One message the fuzzer sends: a method call (or a signal) with its header and arguments, and
/// what it means for the agent's alarms if it succeeds.
package struct FuzzCall: Sendable, CustomStringConvertible {
    /// What a successful call does to the alarms, for the fuzzer's model of the store.
    package enum Effect: Sendable {
        /// Nothing (a read, or a call that must fail).
        case none
        /// `Schedule` of this id (nil when the text is no UUID) with this configuration.
        case schedule(UUID?, DBusValue)
        /// A manager method on one alarm by id: `Cancel`, `Stop`, `Pause`, `Resume`, `Countdown`, `Get`,
        /// `Skip`, `Unskip`, and `SetEnabled` and `Snooze` with their second argument.
        case control(String, UUID?)
        /// `Edit` of this id with these changes.
        case edit(UUID?, DBusValue)
    }

    /// Whether to send it to the agent's unique name rather than its well-known name.
    package var toUniqueName: Bool
    /// The object path.
    package var path: String
    /// The interface; nil sends none (the agent then looks the member up on every interface).
    package var interface: String?
    /// The method or signal name.
    package var member: String
    /// The arguments.
    package var arguments: [DBusValue]
    /// Whether this is a signal (sent to the agent alone), not a method call.
    package var isSignal = false
    /// What success means for the model.
    package var effect: Effect = .none

    /// The call in one line, values cut short.
    package var description: String {
        var text = (isSignal ? "signal " : "") + "\(interface ?? "<no interface>").\(member) at \(path)"
        text += " (\(arguments.map(\.signature).joined())) " + String(describing: arguments)
        return text.count > 400 ? String(text.prefix(400)) + "…" : text
    }
}

/// Makes the fuzzer's calls from a seeded generator: the agent's own methods with hostile
/// arguments, its methods with wrong signatures, property access, introspection, object manager,
/// peer and random calls to random objects, and signals.
package struct FuzzCallGenerator: Sendable {
    /// The generator; the same seed makes the same calls.
    package var rng: SeededGenerator
    /// The ids most calls use, so that calls meet alarms that exist.
    package let idPool: [UUID]
    /// The instant configurations are made relative to.
    package var now: Date

    static let busName = AlarmBus.name
    static let managerPath = AlarmBus.managerPath
    static let managerInterface = AlarmBus.managerInterface
    static let alarmInterface = AlarmBus.alarmInterface
    static let managerMethods = [
        "Schedule", "Edit", "Cancel", "Stop", "Pause", "Resume", "Countdown", "Snooze", "Skip", "Unskip", "SetEnabled", "List", "Watch",
        "Get", "RequestAuthorization", "History", "ListAuthorizations", "SetAuthorization", "ListSounds", "PlaySound",
    ]
    static let managerProperties = [
        "Version", "StorePath", "StoreReadOnly", "AuthorizationState", "AlarmCount", "SnoozeChoices", "DefaultSnooze", "PhoneBackup",
    ]
    static let alarmProperties = ["Id", "State", "Kind", "Title", "Owner", "Schedule", "Countdown", "FireDate", "Remaining", "Alarm"]
    static let standardInterfaces = [
        "org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Peer",
        "org.freedesktop.DBus.ObjectManager",
    ]

    /// A generator from a seed, with a pool of `poolSize` ids.
    package init(seed: UInt64, poolSize: Int = 48, now: Date = Date()) {
        var rng = SeededGenerator(seed: seed)
        idPool = (0..<poolSize).map { _ in UUID.random(using: &rng) }
        self.rng = rng
        self.now = now
    }

    /// The path of an alarm's object.
    package static func path(of id: UUID) -> String {
        AlarmWire.alarmPath(of: id)
    }

    /// The next call. `used` holds the ids of the calls it goes out with; the call's id (if any)
    /// is not among them and is added, so that calls sent together never race on one alarm.
    package mutating func next(used: inout Set<UUID>) -> FuzzCall {
        switch rng.weighted([(35, 0), (15, 1), (6, 8), (5, 2), (12, 3), (10, 4), (3, 5), (15, 6), (5, 7)]) {
        case 0: return schedule(used: &used)
        case 1: return control(used: &used)
        case 8: return edit(used: &used)
        case 2: return otherManagerMethod()
        case 3: return wrongSignature()
        case 4: return propertyCall(used: &used)
        case 5: return standardCall(used: &used)
        case 6: return randomCall()
        default: return signal()
        }
    }

    /// An id argument: usually one of the pool's (in any case), sometimes a fresh one, sometimes
    /// text that is no id (or happens to be one).
    mutating func idArgument(used: inout Set<UUID>) -> (String, UUID?) {
        let text: String
        switch rng.weighted([(55, 0), (10, 1), (10, 2), (25, 3)]) {
        case 0, 1:
            let free = idPool.filter { !used.contains($0) }
            guard let id = free.randomElement(using: &rng) else { return ("not-a-uuid", nil) }
            text = rng.chance(0.8) ? id.lowercasedText() : id.uuidString
        case 2:
            text = UUID.random(using: &rng).lowercasedText()
        default:
            text = HostileText.string(using: &rng)
        }
        guard let id = UUID(text: text) else { return (text, nil) }
        guard !used.contains(id) else { return ("not-a-uuid", nil) }
        used.insert(id)
        return (text, id)
    }

    mutating func manager(_ member: String, _ arguments: [DBusValue], effect: FuzzCall.Effect = .none) -> FuzzCall {
        FuzzCall(
            toUniqueName: rng.chance(0.3), path: Self.managerPath, interface: rng.chance(0.95) ? Self.managerInterface : nil,
            member: member, arguments: arguments, effect: effect)
    }

    mutating func schedule(used: inout Set<UUID>) -> FuzzCall {
        let (text, id) = idArgument(used: &used)
        let configuration = HostileConfigurations.configuration(now: now, using: &rng)
        return manager("Schedule", [.string(text), configuration], effect: .schedule(id, configuration))
    }

    mutating func edit(used: inout Set<UUID>) -> FuzzCall {
        let (text, id) = idArgument(used: &used)
        let changes = HostileConfigurations.changes(now: now, using: &rng)
        return manager("Edit", [.string(text), changes], effect: .edit(id, changes))
    }

    mutating func control(used: inout Set<UUID>) -> FuzzCall {
        let method = rng.pick(["Cancel", "Stop", "Pause", "Resume", "Countdown", "Get", "Skip", "Unskip", "SetEnabled", "Snooze"])
        let (text, id) = idArgument(used: &used)
        var arguments: [DBusValue] = [.string(text)]
        switch method {
        case "SetEnabled": arguments.append(.boolean(rng.chance(0.5)))
        case "Snooze": arguments.append(.double(rng.pick([60, 0.5, 0, -1, .nan, .infinity, 1e12])))
        default: break
        }
        return manager(method, arguments, effect: .control(method, id))
    }

    mutating func otherManagerMethod() -> FuzzCall {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return manager(rng.pick(["List", "Watch"]), [])
        case 5:
            // The agent runs silent under the fuzzer: PlaySound finds the sound, then refuses to play.
            return rng.chance(0.5)
                ? manager("ListSounds", [])
                : manager(
                    "PlaySound",
                    [
                        .string(rng.pick(["chimes", "default", "no-such-sound", "/etc/passwd", HostileText.string(using: &rng)])),
                        .double(rng.pick([1, 0, -1, .nan, 1e9])),
                    ])
        case 1: return manager("History", [.uint32(rng.chance(0.5) ? rng.pick([0, 1, .max]) : UInt32.random(in: 0 ... .max, using: &rng))])
        case 2: return manager("RequestAuthorization", [])
        case 3: return manager("ListAuthorizations", [])
        default:
            return manager(
                "SetAuthorization",
                [
                    .string(HostileText.string(using: &rng)),
                    .string(rng.pick(["authorized", "denied", "notDetermined", HostileText.string(using: &rng, allowHuge: false)])),
                ])
        }
    }

    /// A known method (of the manager, or a standard interface) with random arguments.
    mutating func wrongSignature() -> FuzzCall {
        let member =
            rng.chance(0.8) ? rng.pick(Self.managerMethods) : rng.pick(["Get", "GetAll", "Set", "Introspect", "GetManagedObjects", "Ping"])
        var call = manager(member, RandomDBusValues.arguments(using: &rng))
        if !Self.managerMethods.contains(member) || rng.chance(0.2) {
            call.interface = rng.pick(Self.standardInterfaces + [Self.alarmInterface])
        }
        if rng.chance(0.2) { call.path = RandomDBusValues.objectPath(using: &rng) }
        return call
    }

    /// A path the agent serves (the manager, or an alarm from the pool) or a random one.
    mutating func servedPath() -> String {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return Self.managerPath
        case 1, 2: return Self.path(of: rng.pick(idPool))
        default: return RandomDBusValues.objectPath(using: &rng)
        }
    }

    mutating func propertyCall(used: inout Set<UUID>) -> FuzzCall {
        let path = servedPath()
        let interface = rng.weighted([
            (4, path == Self.managerPath ? Self.managerInterface : Self.alarmInterface), (1, Self.managerInterface),
            (1, Self.alarmInterface), (1, rng.pick(Self.standardInterfaces)), (1, RandomDBusValues.interfaceName(using: &rng)),
            (1, HostileText.string(using: &rng, allowHuge: false)),
        ])
        let property = rng.weighted([
            (4, rng.pick(path == Self.managerPath ? Self.managerProperties : Self.alarmProperties)),
            (1, rng.pick(Self.managerProperties + Self.alarmProperties)), (1, HostileText.string(using: &rng, allowHuge: false)),
        ])
        let arguments: [DBusValue]
        let member: String
        switch Int.random(in: 0..<3, using: &rng) {
        case 0:
            member = "Get"
            arguments = [.string(interface), .string(property)]
        case 1:
            member = "GetAll"
            arguments = [.string(interface)]
        default:
            member = "Set"
            arguments = [.string(interface), .string(property), .variant(RandomDBusValues.value(using: &rng))]
        }
        return FuzzCall(
            toUniqueName: rng.chance(0.3), path: path, interface: rng.chance(0.9) ? "org.freedesktop.DBus.Properties" : nil,
            member: member, arguments: arguments)
    }

    mutating func standardCall(used: inout Set<UUID>) -> FuzzCall {
        let path = servedPath()
        switch Int.random(in: 0..<4, using: &rng) {
        case 0:
            return FuzzCall(
                toUniqueName: rng.chance(0.5), path: path, interface: "org.freedesktop.DBus.Introspectable", member: "Introspect",
                arguments: [])
        case 1:
            return FuzzCall(
                toUniqueName: rng.chance(0.5), path: rng.chance(0.7) ? Self.managerPath : path,
                interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects", arguments: [])
        case 2:
            return FuzzCall(
                toUniqueName: rng.chance(0.5), path: path, interface: "org.freedesktop.DBus.Peer", member: "Ping", arguments: [])
        default:
            return FuzzCall(
                toUniqueName: rng.chance(0.5), path: path, interface: "org.freedesktop.DBus.Peer", member: "GetMachineId", arguments: [])
        }
    }

    /// Anything: random path, interface, member and arguments.
    mutating func randomCall() -> FuzzCall {
        let interface: String? = rng.weighted([
            (3, RandomDBusValues.interfaceName(using: &rng)),
            (2, rng.pick(Self.standardInterfaces + [Self.managerInterface, Self.alarmInterface])),
            (1, nil),
        ])
        let member =
            rng.chance(0.5)
            ? RandomDBusValues.memberName(using: &rng) : rng.pick(Self.managerMethods + ["Get", "GetAll", "Set", "Introspect", "Ping"])
        return FuzzCall(
            toUniqueName: rng.chance(0.5), path: rng.chance(0.5) ? servedPath() : RandomDBusValues.objectPath(using: &rng),
            interface: interface, member: member, arguments: RandomDBusValues.arguments(using: &rng))
    }

    /// A signal sent to the agent alone: random, or one that mimics the bus, the notification
    /// server or the agent's own signals.
    mutating func signal() -> FuzzCall {
        let (path, interface, member, arguments): (String, String, String, [DBusValue])
        switch Int.random(in: 0..<5, using: &rng) {
        case 0:
            (path, interface, member) = (
                "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                rng.pick(["ActionInvoked", "NotificationClosed", "ActivationToken"])
            )
            arguments = [
                .uint32(UInt32.random(in: 0...20, using: &rng)),
                rng.chance(0.5) ? .string(rng.pick(["allow", "deny", "stop", "snooze", "default"])) : .uint32(2),
            ]
        case 1:
            (path, interface, member) = ("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged")
            arguments = [
                .string(rng.pick([":1.1", ":1.2", ":1.3", Self.busName, "org.freedesktop.Notifications"])), .string(":1.9"), .string(""),
            ]
        case 2:
            (path, interface, member) = ("/org/freedesktop/login1", "org.freedesktop.login1.Manager", "PrepareForSleep")
            arguments = [.boolean(rng.chance(0.5))]
        case 3:
            (path, interface, member) = (
                Self.managerPath, "org.freedesktop.DBus.ObjectManager", rng.pick(["InterfacesAdded", "InterfacesRemoved"])
            )
            arguments = RandomDBusValues.arguments(using: &rng)
        default:
            path = RandomDBusValues.objectPath(using: &rng)
            interface = RandomDBusValues.interfaceName(using: &rng)
            member = RandomDBusValues.memberName(using: &rng)
            arguments = RandomDBusValues.arguments(using: &rng)
        }
        return FuzzCall(toUniqueName: true, path: path, interface: interface, member: member, arguments: arguments, isSignal: true)
    }
}
