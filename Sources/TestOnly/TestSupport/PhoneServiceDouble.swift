import Foundation
import Synchronization

/// A test double of KDE Connect's daemon or of GSConnect on a real (private) bus, speaking the
/// services' real D-Bus protocol so that code ringing phones can be tested without a phone.
///
/// It owns the service's real bus name and exports its objects at their real paths:
///
/// - KDE Connect (`kdeconnectd`, KDE/kdeconnect-kde): `org.kde.kdeconnect` at `/modules/kdeconnect`,
///   interface `org.kde.kdeconnect.daemon` with `devices(b onlyReachable, b onlyPaired) → as` and
///   `deviceNames(bb) → a{ss}` (`core/daemon.h`); every known device at
///   `/modules/kdeconnect/devices/<id>` with the `org.kde.kdeconnect.device` properties `type`,
///   `name`, `isReachable`, `isPaired` and `supportedPlugins` and the methods `hasPlugin(s) → b`
///   and `loadedPlugins() → as` (`core/device.h`); and, for a device that is reachable and paired
///   and has its find-my-phone plugin on (when the real daemon loads that plugin),
///   `/modules/kdeconnect/devices/<id>/findmyphone` with `org.kde.kdeconnect.device.findmyphone`'s
///   `ring()` (`plugins/findmyphone/findmyphoneplugin.h`). A missing object is answered as Qt
///   answers it, `org.freedesktop.DBus.Error.UnknownObject`.
/// - GSConnect (GSConnect/gnome-shell-extension-gsconnect): `org.gnome.Shell.Extensions.GSConnect`
///   with `org.freedesktop.DBus.ObjectManager.GetManagedObjects` at
///   `/org/gnome/Shell/Extensions/GSConnect` (`src/service/manager.js`), each known device at
///   `…/GSConnect/Device/<id, non-word runs made _>` with the
///   `org.gnome.Shell.Extensions.GSConnect.Device` properties (`Connected`, `EncryptionInfo`,
///   `Id`, `Name`, `Paired`, `IconName`, `Type`: `data/org.gnome.Shell.Extensions.GSConnect.xml`),
///   and its action group on the same object (`org.gtk.Actions`: `List`, `Describe`,
///   `DescribeAll`, `Activate(sava{sv})`) holding the find-my-phone plugin's `ring` action, which
///   exists while the device is paired and is enabled while it is also connected. Activating a
///   missing or disabled action is refused with `org.freedesktop.DBus.Error.InvalidArgs`, so a
///   ring that should not have been sent shows as a failure rather than as silence.
///
/// Every object answers `org.freedesktop.DBus.Introspectable.Introspect` (with its child nodes),
/// `org.freedesktop.DBus.Properties.Get`/`GetAll`, and `org.freedesktop.DBus.Peer.Ping`. Every
/// ring the double receives is recorded (device, time, caller and what it answered); a device can
/// be set to refuse its ring with a D-Bus error, or never to answer it.
///
/// It runs on its own thread over the sandbox's own D-Bus reader (`BusConnection`), independent
/// of the project's `DBus` module.
package final class PhoneServiceDouble: Sendable {
    /// Which service the double plays.
    package enum Service: Sendable, Hashable {
        /// KDE Connect's daemon, `org.kde.kdeconnect`.
        case kdeConnect
        /// GSConnect, `org.gnome.Shell.Extensions.GSConnect`.
        case gsConnect

        /// The service's bus name.
        package var busName: String {
            switch self {
            case .kdeConnect: "org.kde.kdeconnect"
            case .gsConnect: "org.gnome.Shell.Extensions.GSConnect"
            }
        }
    }

    /// What a device does when asked to ring.
    package enum RingAnswer: Sendable, Hashable {
        /// Accepts the ring (an empty reply, as the real services send).
        case ring
        /// Refuses it with the D-Bus error `name` and `message`.
        case fail(name: String, message: String)
        /// Never answers: the caller waits until its own time-out.
        case never
    }

    /// A device the service knows.
    package struct Device: Sendable, Hashable {
        /// The service's device id (also the last part of its object path).
        package var id: String
        /// The device's name.
        package var name: String
        /// Whether the device is reachable now (KDE Connect's `isReachable`, GSConnect's `Connected`).
        package var isReachable: Bool
        /// Whether the device is paired (KDE Connect's `isPaired`, GSConnect's `Paired`).
        package var isPaired: Bool
        /// What the device does when asked to ring.
        package var ringAnswer: RingAnswer
        /// Whether the find-my-phone plugin is on, on the computer and in the phone's app: when it
        /// is off, KDE Connect loads no `findmyphone` object for the device and `hasPlugin` says
        /// no, and GSConnect's device has no `ring` action.
        package var findsPhone: Bool

        /// A device, reachable and paired and ringing unless told otherwise.
        package init(
            id: String, name: String, isReachable: Bool = true, isPaired: Bool = true, ringAnswer: RingAnswer = .ring,
            findsPhone: Bool = true
        ) {
            self.id = id
            self.name = name
            self.isReachable = isReachable
            self.isPaired = isPaired
            self.ringAnswer = ringAnswer
            self.findsPhone = findsPhone
        }
    }

    /// A ring the double received.
    package struct Ring: Sendable, Hashable {
        /// What the double answered.
        package enum Outcome: Sendable, Hashable {
            /// The ring was accepted.
            case rang
            /// The ring was refused with this D-Bus error name.
            case refused(String)
            /// The ring was left unanswered.
            case unanswered
        }

        /// The device asked to ring: its id, or for a path that names no device, the path.
        package var deviceID: String
        /// When the double read the call off the bus.
        package var receivedAt: ContinuousClock.Instant
        /// The caller's unique bus name.
        package var sender: String
        /// The call's object path, interface and member, such as
        /// `/modules/kdeconnect/devices/<id>/findmyphone org.kde.kdeconnect.device.findmyphone.ring`.
        package var call: String
        /// The call's arguments, typed as sent (`Activate`'s `"ring", [], {}`).
        package var arguments: [BusValue]
        /// What the double answered.
        package var outcome: Outcome
    }

    /// A wait for rings that did not come in time.
    package struct Timeout: Error, CustomStringConvertible {
        /// What was awaited and what came.
        package var description: String
    }

    /// The service played.
    package let service: Service
    /// Whether the service answers the call listing its devices (KDE Connect's `devices`,
    /// GSConnect's `GetManagedObjects`); false plays a service that hangs.
    package let answersListing: Bool
    private let connection: BusConnection
    private let state: Mutex<State>

    private struct State: ~Copyable {
        var devices: [Device]
        var rings: [Ring] = []
        var waiters: [Int: Waiter] = [:]
        var expired: Set<Int> = []
        var nextWaiter = 0
        var stopped = false
    }

    private struct Waiter {
        var count: Int
        var continuation: CheckedContinuation<[Ring], any Error>
    }

    /// Connects to the bus at `address`, takes the service's name and starts answering; returns
    /// once the name is owned. With `answersListing` false, the call listing the devices is never
    /// answered.
    package init(_ service: Service, address: String, devices: [Device], answersListing: Bool = true) throws {
        self.service = service
        self.answersListing = answersListing
        state = Mutex(State(devices: devices))
        connection = try BusConnection(address: address)
        // RequestName(name, DBUS_NAME_FLAG_DO_NOT_QUEUE): 1 is "primary owner".
        let reply = try connection.callBus("RequestName", [.string(service.busName), .uint32(4)])
        guard reply.first?.integer == 1 else {
            connection.close()
            throw SandboxError.failed("\(service.busName) could not be owned: RequestName answered \(reply)")
        }
        Thread.detachNewThread { [self] in serve() }
    }

    deinit { connection.close() }

    /// Replaces the devices the service knows (later calls see the new ones).
    package func setDevices(_ devices: [Device]) {
        state.withLock { $0.devices = devices }
    }

    /// Every ring received so far, in order.
    package var rings: [Ring] { state.withLock { $0.rings } }

    /// Waits until at least `count` rings were received and returns them all; throws `Timeout`
    /// when `timeout` passes first, or when the double is stopped.
    package func waitForRings(_ count: Int, timeout: Duration = .seconds(10)) async throws -> [Ring] {
        let key = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timer = Task { [weak self] in
            try await Task.sleep(for: timeout)
            self?.expire(key, count: count, timeout: timeout)
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<[Ring], any Error>? in
                if state.rings.count >= count { return .success(state.rings) }
                if state.expired.remove(key) != nil || state.stopped {
                    return .failure(Timeout(description: "\(count) rings within \(timeout); received \(state.rings)"))
                }
                state.waiters[key] = Waiter(count: count, continuation: continuation)
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    private func expire(_ key: Int, count: Int, timeout: Duration) {
        let (waiter, rings) = state.withLock { state -> (Waiter?, [Ring]) in
            guard let waiter = state.waiters.removeValue(forKey: key) else {
                state.expired.insert(key)
                return (nil, state.rings)
            }
            return (waiter, state.rings)
        }
        waiter?.continuation.resume(throwing: Timeout(description: "\(count) rings within \(timeout); received \(rings)"))
    }

    /// Leaves the bus (calls left unanswered then fail for their callers) and ends the waits.
    /// Safe to call more than once.
    package func stop() {
        let waiters = state.withLock { state -> [Waiter] in
            state.stopped = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        connection.close()
        for waiter in waiters {
            waiter.continuation.resume(throwing: Timeout(description: "the double was stopped while waiting for rings"))
        }
    }

    // MARK: Serving

    private func serve() {
        while true {
            let message: BusMessage
            do {
                guard let next = try connection.receive(until: nil) else { continue }
                message = next
            } catch {
                return  // The connection was closed.
            }
            guard message.kind == .methodCall, let path = message.path, let member = message.member else { continue }
            let answer = answer(message, path: path, member: member)
            guard message.flags & 1 == 0 else { continue }  // NO_REPLY_EXPECTED
            switch answer {
            case .reply(let body):
                var reply = BusMessage(kind: .methodReturn, destination: message.sender, body: body)
                reply.replySerial = message.serial
                _ = try? connection.send(reply)
            case .error(let name, let text):
                var reply = BusMessage(kind: .error, destination: message.sender, body: [.string(text)])
                reply.errorName = name
                reply.replySerial = message.serial
                _ = try? connection.send(reply)
            case .none:
                break
            }
        }
    }

    /// What to answer a call.
    private enum Answer {
        case reply([BusValue])
        case error(String, String)
        case none
    }

    private static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
    private static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    private static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
    private static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
    private static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    private static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"

    private func answer(_ call: BusMessage, path: String, member: String) -> Answer {
        let devices = state.withLock { $0.devices }
        let objects = objects(for: devices)
        let interface = call.interface
        if interface == "org.freedesktop.DBus.Introspectable" || (interface == nil && member == "Introspect") {
            guard member == "Introspect" else { return unknownMethod(call) }
            return .reply([.string(introspection(of: path, objects: objects))])
        }
        if interface == "org.freedesktop.DBus.Peer" {
            return member == "Ping" ? .reply([]) : unknownMethod(call)
        }
        guard let object = objects[path] else {
            return .error(Self.unknownObject, "No such object path '\(path)'")
        }
        if interface == "org.freedesktop.DBus.Properties" {
            return properties(call, member: member, object: object)
        }
        return object.handle(call, member)
    }

    private func unknownMethod(_ call: BusMessage) -> Answer {
        .error(
            Self.unknownMethod,
            "No such method '\(call.member ?? "")' in interface '\(call.interface ?? "")' at object path '\(call.path ?? "")' (signature '\(call.signature)')"
        )
    }

    private func properties(_ call: BusMessage, member: String, object: Object) -> Answer {
        switch (member, call.signature) {
        case ("Get", "ss"):
            guard let interface = call.body[0].string, let name = call.body[1].string else { return unknownMethod(call) }
            guard let properties = object.properties[interface] else {
                return .error(Self.unknownInterface, "No such interface '\(interface)' at object path '\(object.path)'")
            }
            guard let value = properties.first(where: { $0.name == name })?.value else {
                return .error(Self.unknownProperty, "No such property '\(name)' in interface '\(interface)'")
            }
            return .reply([.variant(value)])
        case ("GetAll", "s"):
            guard let interface = call.body[0].string else { return unknownMethod(call) }
            guard let properties = object.properties[interface] else {
                return .error(Self.unknownInterface, "No such interface '\(interface)' at object path '\(object.path)'")
            }
            return .reply([Self.dictionary(properties)])
        case ("Set", "ssv"):
            return .error(Self.propertyReadOnly, "Property '\(call.body[1].string ?? "")' is read-only")
        default:
            return unknownMethod(call)
        }
    }

    private static func dictionary(_ properties: [(name: String, value: BusValue)]) -> BusValue {
        .array(elementSignature: "{sv}", properties.map { .dictEntry(key: .string($0.name), value: .variant($0.value)) })
    }

    // MARK: Objects

    /// An exported object: its interfaces' XML, properties and method handler.
    private struct Object {
        var path: String
        var interfacesXML: [String]
        var properties: [String: [(name: String, value: BusValue)]] = [:]
        var handle: (BusMessage, String) -> Answer
    }

    private func objects(for devices: [Device]) -> [String: Object] {
        var objects: [String: Object] = [:]
        func add(_ object: Object) { objects[object.path] = object }
        switch service {
        case .kdeConnect:
            add(
                Object(path: "/modules/kdeconnect", interfacesXML: [Self.kdeDaemonXML]) { [self] call, member in
                    switch (call.interface ?? "org.kde.kdeconnect.daemon", member, call.signature) {
                    case ("org.kde.kdeconnect.daemon", "devices", "bb"):
                        guard answersListing else { return .none }
                        return .reply([.array(elementSignature: "s", Self.filter(devices, call).map { .string($0.id) })])
                    case ("org.kde.kdeconnect.daemon", "deviceNames", "bb"):
                        return .reply([
                            .array(
                                elementSignature: "{ss}",
                                Self.filter(devices, call).map { .dictEntry(key: .string($0.id), value: .string($0.name)) })
                        ])
                    case ("org.kde.kdeconnect.daemon", "selfId", ""):
                        return .reply([.string("reveille_test_desktop")])
                    default:
                        return unknownMethod(call)
                    }
                })
            for device in devices {
                let path = "/modules/kdeconnect/devices/" + device.id
                // kdeconnectd loads a device's plugins (and exports their objects) only while it
                // is reachable and paired, and only those enabled here that the phone supports.
                let loaded = device.isReachable && device.isPaired && device.findsPhone ? [Self.findMyPhonePlugin] : []
                var object = Object(path: path, interfacesXML: [Self.kdeDeviceXML]) { [self] call, member in
                    switch (call.interface ?? "org.kde.kdeconnect.device", member, call.signature) {
                    case ("org.kde.kdeconnect.device", "hasPlugin", "s"):
                        return .reply([.boolean(loaded.contains(call.body[0].string ?? ""))])
                    case ("org.kde.kdeconnect.device", "loadedPlugins", ""):
                        return .reply([.array(elementSignature: "s", loaded.map { .string($0) })])
                    default:
                        return unknownMethod(call)
                    }
                }
                object.properties["org.kde.kdeconnect.device"] = [
                    ("type", .string("phone")), ("name", .string(device.name)),
                    ("isReachable", .boolean(device.isReachable)), ("isPaired", .boolean(device.isPaired)),
                    ("supportedPlugins", .array(elementSignature: "s", device.findsPhone ? [.string(Self.findMyPhonePlugin)] : [])),
                ]
                add(object)
                guard !loaded.isEmpty else { continue }
                add(
                    Object(path: path + "/findmyphone", interfacesXML: [Self.kdeFindMyPhoneXML]) { [self] call, member in
                        guard (call.interface ?? "org.kde.kdeconnect.device.findmyphone") == "org.kde.kdeconnect.device.findmyphone",
                            member == "ring", call.signature.isEmpty
                        else { return unknownMethod(call) }
                        return ring(device, call)
                    })
            }
        case .gsConnect:
            let managerPath = "/org/gnome/Shell/Extensions/GSConnect"
            add(
                Object(path: managerPath, interfacesXML: [Self.objectManagerXML]) { [self] call, member in
                    guard call.interface ?? "org.freedesktop.DBus.ObjectManager" == "org.freedesktop.DBus.ObjectManager",
                        member == "GetManagedObjects", call.signature.isEmpty
                    else { return unknownMethod(call) }
                    guard answersListing else { return .none }
                    let entries = devices.map { device -> BusValue in
                        .dictEntry(
                            key: .objectPath(Self.gsConnectPath(device.id)),
                            value: .array(
                                elementSignature: "{sa{sv}}",
                                [
                                    .dictEntry(
                                        key: .string("org.gnome.Shell.Extensions.GSConnect.Device"),
                                        value: Self.dictionary(Self.gsConnectProperties(device)))
                                ]))
                    }
                    return .reply([.array(elementSignature: "{oa{sa{sv}}}", entries)])
                })
            for device in devices {
                var object = Object(path: Self.gsConnectPath(device.id), interfacesXML: [Self.gsDeviceXML, Self.gtkActionsXML]) {
                    [self] call, member in
                    gsConnectAction(device, call, member)
                }
                object.properties["org.gnome.Shell.Extensions.GSConnect.Device"] = Self.gsConnectProperties(device)
                add(object)
            }
        }
        return objects
    }

    /// KDE Connect's name for the find-my-phone plugin (`plugins/findmyphone`'s JSON id).
    static let findMyPhonePlugin = "kdeconnect_findmyphone"

    private static func filter(_ devices: [Device], _ call: BusMessage) -> [Device] {
        let onlyReachable = call.body[0].boolean ?? false
        let onlyPaired = call.body[1].boolean ?? false
        return devices.filter { (!onlyReachable || $0.isReachable) && (!onlyPaired || $0.isPaired) }
    }

    /// GSConnect's object path for a device id: `\W+` runs made `_` (`src/service/manager.js`).
    package static func gsConnectPath(_ id: String) -> String {
        var path = "/org/gnome/Shell/Extensions/GSConnect/Device/"
        var inRun = false
        for scalar in id.unicodeScalars {
            let word = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_")
            if word {
                path.unicodeScalars.append(scalar)
                inRun = false
            } else if !inRun {
                path.append("_")
                inRun = true
            }
        }
        return path
    }

    private static func gsConnectProperties(_ device: Device) -> [(name: String, value: BusValue)] {
        [
            ("Connected", .boolean(device.isReachable)), ("EncryptionInfo", .string("")), ("Id", .string(device.id)),
            ("Name", .string(device.name)), ("Paired", .boolean(device.isPaired)),
            ("IconName", .string("smartphone-symbolic")), ("Type", .string("phone")),
        ]
    }

    /// `org.gtk.Actions` on a GSConnect device: the `ring` action exists while the device is
    /// paired and its find-my-phone plugin is on (the plugin is loaded), and is enabled while it
    /// is also connected.
    private func gsConnectAction(_ device: Device, _ call: BusMessage, _ member: String) -> Answer {
        guard call.interface ?? "org.gtk.Actions" == "org.gtk.Actions" else { return unknownMethod(call) }
        let actions = device.isPaired && device.findsPhone ? ["ring"] : []
        let description = BusValue.structure([.boolean(device.isReachable), .signature(""), .array(elementSignature: "v", [])])
        switch (member, call.signature) {
        case ("List", ""):
            return .reply([.array(elementSignature: "s", actions.map { .string($0) })])
        case ("Describe", "s"):
            guard let name = call.body[0].string, actions.contains(name) else {
                return .error(Self.invalidArgs, "Unknown action name '\(call.body[0].string ?? "")'")
            }
            return .reply([description])
        case ("DescribeAll", ""):
            return .reply([
                .array(
                    elementSignature: "{s(bgav)}", actions.map { .dictEntry(key: .string($0), value: description) })
            ])
        case ("Activate", "sava{sv}"):
            let name = call.body[0].string ?? ""
            guard actions.contains(name) else {
                record(device.id, call, .refused(Self.invalidArgs))
                return .error(Self.invalidArgs, "Unknown action name '\(name)'")
            }
            guard device.isReachable else {
                record(device.id, call, .refused(Self.invalidArgs))
                return .error(Self.invalidArgs, "Action '\(name)' is disabled")
            }
            guard call.body[1].elements?.isEmpty ?? false else {
                record(device.id, call, .refused(Self.invalidArgs))
                return .error(Self.invalidArgs, "Action '\(name)' takes no parameter")
            }
            return ring(device, call)
        default:
            return unknownMethod(call)
        }
    }

    /// Answers a ring as the device is set to, and records it.
    private func ring(_ device: Device, _ call: BusMessage) -> Answer {
        switch device.ringAnswer {
        case .ring:
            record(device.id, call, .rang)
            return .reply([])
        case .fail(let name, let message):
            record(device.id, call, .refused(name))
            return .error(name, message)
        case .never:
            record(device.id, call, .unanswered)
            return .none
        }
    }

    private func record(_ id: String, _ call: BusMessage, _ outcome: Ring.Outcome) {
        let ring = Ring(
            deviceID: id, receivedAt: call.receivedAt ?? .now, sender: call.sender ?? "",
            call: "\(call.path ?? "") \(call.interface ?? "").\(call.member ?? "")", arguments: call.body, outcome: outcome)
        let ready = state.withLock { state -> [(Waiter, [Ring])] in
            state.rings.append(ring)
            let rings = state.rings
            let ready = state.waiters.filter { $0.value.count <= rings.count }
            for key in ready.keys { state.waiters[key] = nil }
            return ready.values.map { ($0, rings) }
        }
        for (waiter, rings) in ready { waiter.continuation.resume(returning: rings) }
    }

    // MARK: Introspection

    private func introspection(of path: String, objects: [String: Object]) -> String {
        let prefix = path == "/" ? "/" : path + "/"
        var children: [String] = []
        for other in objects.keys.sorted() where other.hasPrefix(prefix) {
            let child = String(other.dropFirst(prefix.count).prefix { $0 != "/" })
            if !child.isEmpty, !children.contains(child) { children.append(child) }
        }
        var xml = """
            <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
            <node>

            """
        if let object = objects[path] {
            xml += object.interfacesXML.joined() + Self.standardXML
        }
        for child in children { xml += "  <node name=\"\(child)\"/>\n" }
        return xml + "</node>\n"
    }

    private static let standardXML = """
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get"><arg name="interface_name" type="s" direction="in"/><arg name="property_name" type="s" direction="in"/><arg name="value" type="v" direction="out"/></method>
            <method name="GetAll"><arg name="interface_name" type="s" direction="in"/><arg name="values" type="a{sv}" direction="out"/></method>
            <method name="Set"><arg name="interface_name" type="s" direction="in"/><arg name="property_name" type="s" direction="in"/><arg name="value" type="v" direction="in"/></method>
            <signal name="PropertiesChanged"><arg name="interface_name" type="s"/><arg name="changed_properties" type="a{sv}"/><arg name="invalidated_properties" type="as"/></signal>
          </interface>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect"><arg name="xml_data" type="s" direction="out"/></method>
          </interface>
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
          </interface>

        """

    private static let kdeDaemonXML = """
          <interface name="org.kde.kdeconnect.daemon">
            <method name="devices"><arg type="as" direction="out"/><arg name="onlyReachable" type="b" direction="in"/><arg name="onlyPaired" type="b" direction="in"/></method>
            <method name="deviceNames"><arg type="a{ss}" direction="out"/><arg name="onlyReachable" type="b" direction="in"/><arg name="onlyPaired" type="b" direction="in"/></method>
            <method name="selfId"><arg type="s" direction="out"/></method>
          </interface>

        """

    private static let kdeDeviceXML = """
          <interface name="org.kde.kdeconnect.device">
            <property name="type" type="s" access="read"/>
            <property name="name" type="s" access="read"/>
            <property name="isReachable" type="b" access="read"/>
            <property name="isPaired" type="b" access="read"/>
            <property name="supportedPlugins" type="as" access="read"/>
            <method name="hasPlugin"><arg type="b" direction="out"/><arg name="name" type="s" direction="in"/></method>
            <method name="loadedPlugins"><arg type="as" direction="out"/></method>
          </interface>

        """

    private static let kdeFindMyPhoneXML = """
          <interface name="org.kde.kdeconnect.device.findmyphone">
            <method name="ring"/>
          </interface>

        """

    private static let objectManagerXML = """
          <interface name="org.freedesktop.DBus.ObjectManager">
            <method name="GetManagedObjects"><arg name="object_paths_interfaces_and_properties" type="a{oa{sa{sv}}}" direction="out"/></method>
            <signal name="InterfacesAdded"><arg name="object_path" type="o"/><arg name="interfaces_and_properties" type="a{sa{sv}}"/></signal>
            <signal name="InterfacesRemoved"><arg name="object_path" type="o"/><arg name="interfaces" type="as"/></signal>
          </interface>

        """

    private static let gsDeviceXML = """
          <interface name="org.gnome.Shell.Extensions.GSConnect.Device">
            <property type="b" name="Connected" access="read"/>
            <property type="s" name="EncryptionInfo" access="read"/>
            <property type="s" name="Id" access="read"/>
            <property type="s" name="Name" access="read"/>
            <property type="b" name="Paired" access="read"/>
            <property type="s" name="IconName" access="read"/>
            <property type="s" name="Type" access="read"/>
          </interface>

        """

    private static let gtkActionsXML = """
          <interface name="org.gtk.Actions">
            <method name="List"><arg type="as" name="list" direction="out"/></method>
            <method name="Describe"><arg type="s" name="action_name" direction="in"/><arg type="(bgav)" name="description" direction="out"/></method>
            <method name="DescribeAll"><arg type="a{s(bgav)}" name="descriptions" direction="out"/></method>
            <method name="Activate"><arg type="s" name="action_name" direction="in"/><arg type="av" name="parameter" direction="in"/><arg type="a{sv}" name="platform_data" direction="in"/></method>
            <signal name="Changed"><arg type="as" name="removals"/><arg type="a{sb}" name="enable_changes"/><arg type="a{sv}" name="state_changes"/><arg type="a{s(bgav)}" name="additions"/></signal>
          </interface>

        """
}
