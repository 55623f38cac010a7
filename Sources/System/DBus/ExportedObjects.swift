/// How an incoming method call on an exported path is answered.
enum CallRoute: Sendable {
    case method(interface: String, DBusMethod)
    case introspect
    case propertyGet, propertyGetAll, propertySet
    case managedObjects
}

/// Interfaces checked once (names, signatures, members), to export at many paths without checking
/// them again: what a service with one object per item exports.
package struct DBusObjectInterfaces: Sendable {
    /// The interfaces, checked.
    package let interfaces: [DBusInterface]

    /// Checks the interfaces. Throws `InvalidArgs` for an invalid name or signature, a member given twice or one of the standard interfaces the DBus
    /// module provides.
    package init(_ interfaces: [DBusInterface]) throws(DBusError) {
        try DBusConnection.validate(interfaces: interfaces)
        self.interfaces = interfaces
    }
}

extension DBusConnection {
    /// Serves objects at `path` with the described interfaces, plus
    /// `org.freedesktop.DBus.Properties`, `Introspectable` and `Peer`. Throws `InvalidArgs` for an
    /// invalid path, name or signature and `ObjectPathInUse`
    /// when the path is already exported. Emits `InterfacesAdded` from each object manager above
    /// the path (its property getters see a call with an empty `sender`).
    package func export(path: String, interfaces: [DBusInterface]) throws(DBusError) {
        try export(path: path, object: DBusObjectInterfaces(interfaces))
    }

    /// Serves an object with interfaces checked before (see `export(path:interfaces:)`). Throws
    /// `InvalidArgs` for an invalid path and `ObjectPathInUse` when the path is already exported.
    package func export(path: String, object: DBusObjectInterfaces) throws(DBusError) {
        try Validation.require(Validation.isValidPath(path), "Invalid object path \(path.debugDescription)")
        let interfaces = object.interfaces
        try state.withLock { (state) throws(DBusError) in
            guard !state.isClosed else { throw DBusError.connectionClosed() }
            guard state.objects[path] == nil else {
                throw DBusError(name: DBusError.objectPathInUse, message: "An object is already exported at \(path)")
            }
            state.objects[path] = interfaces
            let managers = Self.announcingManagers(above: path, in: state)
            guard !managers.isEmpty else { return }
            state.queueManagerSignal { [weak self] in
                await self?.emitInterfacesAdded(path: path, interfaces: interfaces, managers: managers)
            }
        }
    }

    /// Stops serving the object at `path`, emitting `InterfacesRemoved` from each object manager
    /// above it. Nothing happens when nothing is exported there.
    package func unexport(path: String) {
        state.withLock { state in
            guard let interfaces = state.objects.removeValue(forKey: path) else { return }
            let managers = Self.announcingManagers(above: path, in: state)
            guard !managers.isEmpty, !state.isClosed else { return }
            let names = interfaces.map(\.name)
            state.queueManagerSignal { [weak self] in
                for manager in managers {
                    try? self?.emitSignal(
                        path: manager, interface: BusNames.objectManager, name: "InterfacesRemoved",
                        arguments: [.objectPath(path), .strings(names)])
                }
            }
        }
    }

    /// The paths exported now, sorted.
    package var exportedPaths: [String] { state.withLock { $0.objects.keys.sorted() } }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged` from `path` for `interface`,
    /// each changed value wrapped in a variant; to `destination` only, when given.
    package func emitPropertiesChanged(
        path: String, interface: String, changed: [String: DBusValue], invalidated: [String] = [],
        destination: String? = nil
    ) throws(DBusError) {
        try emitSignal(
            path: path, interface: BusNames.properties, name: "PropertiesChanged",
            arguments: [.string(interface), .dictionary(changed), .strings(invalidated)], destination: destination)
    }

    /// Emits `PropertiesChanged` to each of `destinations`, unicast, built once (see
    /// `emitSignal(path:interface:name:arguments:destinations:)`).
    package func emitPropertiesChanged(
        path: String, interface: String, changed: [String: DBusValue], invalidated: [String] = [], destinations: [String]
    ) throws(DBusError) {
        try emitSignal(
            path: path, interface: BusNames.properties, name: "PropertiesChanged",
            arguments: [.string(interface), .dictionary(changed), .strings(invalidated)], destinations: destinations)
    }

    // MARK: - Checking descriptions

    private static let reservedInterfaces: Set<String> = [
        BusNames.properties, BusNames.introspectable, BusNames.peer, BusNames.objectManager,
    ]

    static func validate(interfaces: [DBusInterface]) throws(DBusError) {
        var interfaceNames: Set<String> = []
        func checkType(_ signature: String, _ owner: String) throws(DBusError) {
            try Validation.require(
                Validation.isValidSingleType(signature), "\(owner) has an invalid type \(signature.debugDescription)")
        }
        for interface in interfaces {
            let name = interface.name
            try Validation.require(Validation.isValidInterface(name), "Invalid interface name \(name.debugDescription)")
            try Validation.require(!reservedInterfaces.contains(name), "\(name) is provided by the DBus module")
            try Validation.require(interfaceNames.insert(name).inserted, "Interface \(name) is given twice")
            var members: Set<String> = []
            for method in interface.methods {
                try Validation.require(
                    Validation.isValidMember(method.name), "Invalid method name \(method.name.debugDescription)")
                try Validation.require(members.insert("m" + method.name).inserted, "Method \(method.name) is given twice")
                for argument in method.inArguments + method.outArguments {
                    try checkType(argument.signature, "\(name).\(method.name)")
                }
            }
            for property in interface.properties {
                try Validation.require(
                    Validation.isValidMember(property.name), "Invalid property name \(property.name.debugDescription)")
                try Validation.require(
                    members.insert("p" + property.name).inserted, "Property \(property.name) is given twice")
                try checkType(property.signature, "\(name).\(property.name)")
                try Validation.require(
                    property.access == .read || property.set != nil,
                    "Property \(name).\(property.name) is read-write but has no setter")
            }
            for signal in interface.signals {
                try Validation.require(
                    Validation.isValidMember(signal.name), "Invalid signal name \(signal.name.debugDescription)")
                try Validation.require(members.insert("s" + signal.name).inserted, "Signal \(signal.name) is given twice")
                for argument in signal.arguments { try checkType(argument.signature, "\(name).\(signal.name)") }
            }
        }
    }

    // MARK: - Dispatch

    /// Answers a method call; on the loop thread. Lookups happen here, in message order; the
    /// handlers run in a task and their replies go back through the loop.
    func handleMethodCall(_ message: DBusMessage) {
        let path = message.path ?? "/"
        // Only a call to a path with no object needs the tree (whether it is an intermediate node):
        // the common call, to an exported object, costs no scan of all the paths.
        let (object, isManager, hasChildren) = state.withLock { state in
            let object = state.objects[path]
            let isManager = state.managers.contains(path)
            return (object, isManager, object == nil && !isManager && !Self.children(of: path, in: state).isEmpty)
        }
        let route = Self.resolve(message, object: object, isManager: isManager, hasChildren: hasChildren)
        let reply: DBusMessage
        switch route {
        case .failure(let error):
            reply = DBusMessage.error(replyingTo: message, name: error.name, message: error.message)
        case .success(.introspect):
            let (children, guarded) = state.withLock { (Self.children(of: path, in: $0), Self.guardedChildren(of: path, in: $0)) }
            func introspection(_ children: [String]) -> DBusMessage {
                Self.reply(
                    to: message,
                    [
                        .string(
                            DBusInterface.introspectionXML(interfaces: object ?? [], children: children, includesObjectManager: isManager))
                    ])
            }
            guard !guarded.isEmpty else {
                reply = introspection(children)
                break
            }
            // Below a manager that chooses who sees what, a caller is shown only the nodes that lead
            // to an object it may see: listing them must not tell one app another's alarms.
            let caller = message.sender ?? ""
            Task { [self] in
                var shown: [String] = []
                for child in children {
                    guard let objects = guarded[child] else {
                        shown.append(child)
                        continue
                    }
                    for (objectPath, visibility) in objects where await visibility.isVisible(caller, objectPath) {
                        shown.append(child)
                        break
                    }
                }
                if !message.noReplyExpected { try? send(introspection(shown)) }
            }
            return
        case .success(let route):
            Task { [self] in
                guard let reply = await answer(message, route: route, interfaces: object ?? []) else { return }
                if !message.noReplyExpected { try? send(reply) }
            }
            return
        }
        if !message.noReplyExpected { loop.send(reply) }
    }

    /// Picks what answers a call, or the standard error.
    static func resolve(
        _ message: DBusMessage, object: [DBusInterface]?, isManager: Bool, hasChildren: Bool
    ) -> Result<CallRoute, DBusError> {
        let path = message.path ?? "/"
        let member = message.member ?? ""
        guard object != nil || isManager || hasChildren else {
            return .failure(DBusError(name: DBusError.unknownObject, message: "No such object path '\(path)'"))
        }
        func checked(_ route: CallRoute, _ interface: String, expected: String) -> Result<CallRoute, DBusError> {
            guard message.signature == expected else {
                return .failure(
                    DBusError.invalidArguments(
                        "Invalid arguments for \(interface).\(member): expected signature '\(expected)', "
                            + "received '\(message.signature)'"))
            }
            // The arguments themselves are read by the handler's task, not here on the loop thread.
            return .success(route)
        }
        func standard(_ interface: String) -> Result<CallRoute, DBusError>? {
            switch (interface, member) {
            case (BusNames.introspectable, "Introspect"): checked(.introspect, interface, expected: "")
            case (BusNames.properties, "Get"): checked(.propertyGet, interface, expected: "ss")
            case (BusNames.properties, "GetAll"): checked(.propertyGetAll, interface, expected: "s")
            case (BusNames.properties, "Set"): checked(.propertySet, interface, expected: "ssv")
            case (BusNames.objectManager, "GetManagedObjects") where isManager:
                checked(.managedObjects, interface, expected: "")
            default: nil
            }
        }
        let unknownMethod = DBusError(
            name: DBusError.unknownMethod,
            message: "No such method '\(member)' in interface '\(message.interface ?? "")' at object path '\(path)' "
                + "(signature '\(message.signature)')")
        guard let interface = message.interface else {
            for candidate in object ?? [] {
                if let method = candidate.methods.first(where: { $0.name == member }) {
                    return checked(.method(interface: candidate.name, method), candidate.name, expected: method.inSignature)
                }
            }
            for name in [BusNames.introspectable, BusNames.properties, BusNames.objectManager] {
                if let route = standard(name) { return route }
            }
            return .failure(unknownMethod)
        }
        if let route = standard(interface) { return route }
        if [BusNames.introspectable, BusNames.properties, BusNames.peer].contains(interface)
            || (interface == BusNames.objectManager && isManager)
        {
            return .failure(unknownMethod)
        }
        guard let object else {
            return .failure(DBusError(name: DBusError.unknownObject, message: "No such object path '\(path)'"))
        }
        guard let found = object.first(where: { $0.name == interface }) else {
            return .failure(
                DBusError(
                    name: DBusError.unknownInterface,
                    message: "No such interface '\(interface)' at object path '\(path)'"))
        }
        guard let method = found.methods.first(where: { $0.name == member }) else { return .failure(unknownMethod) }
        return checked(.method(interface: interface, method), interface, expected: method.inSignature)
    }

    /// Runs the handler for a routed call and builds the reply; `nil` when the handler replied itself.
    private func answer(_ message: DBusMessage, route: CallRoute, interfaces: [DBusInterface]) async -> DBusMessage? {
        // Read here, off the loop thread: a message too big to read is answered with the reason.
        if let error = message.argumentError {
            return DBusMessage.error(replyingTo: message, name: error.name, message: error.message)
        }
        var call = DBusMethodCall(
            sender: message.sender ?? "", path: message.path ?? "/", interface: message.interface ?? "",
            member: message.member ?? "", arguments: message.arguments, connection: self)
        let values: [DBusValue]
        do {
            switch route {
            case .method(let interface, let method):
                call.interface = interface
                let early = EarlyAnswer(call: message, outSignature: method.outSignature)
                call.answer = early
                values = try await method.handler(call)
                if call.isAnswered { return nil }
                guard values.signature == method.outSignature else {
                    throw DBusError(
                        name: DBusError.failed,
                        message: "\(interface).\(method.name) returned signature '\(values.signature)', "
                            + "expected '\(method.outSignature)'")
                }
            case .propertyGet:
                call.interface = BusNames.properties
                values = [try await getProperty(call, interfaces: interfaces)]
            case .propertyGetAll:
                call.interface = BusNames.properties
                values = [try await getAllProperties(call, interfaces: interfaces)]
            case .propertySet:
                call.interface = BusNames.properties
                try await setProperty(call, interfaces: interfaces)
                values = []
            case .managedObjects:
                call.interface = BusNames.objectManager
                values = [await managedObjects(below: call.path, call: call)]
            case .introspect:
                values = []  // Answered on the loop thread.
            }
        } catch let error as DBusError {
            if call.isAnswered { return nil }
            return DBusMessage.error(replyingTo: message, name: error.name, message: error.message)
        } catch {
            if call.isAnswered { return nil }
            return DBusMessage.error(replyingTo: message, name: DBusError.failed, message: String(describing: error))
        }
        return Self.reply(to: message, values)
    }

    /// A method return, or `Failed` when the values cannot be sent.
    static func reply(to message: DBusMessage, _ values: [DBusValue]) -> DBusMessage {
        do {
            return try DBusMessage.methodReturn(replyingTo: message, arguments: values)
        } catch {
            return DBusMessage.error(
                replyingTo: message, name: DBusError.failed, message: "The reply could not be sent: \(error.message)")
        }
    }

    // MARK: - org.freedesktop.DBus.Properties

    /// A name from a caller's arguments as an error message shows it: whole up to 255 bytes (the
    /// longest a D-Bus name can be), cut with `…` beyond, so a mebibyte "name" is not sent back.
    static func shown(_ name: String) -> String {
        guard name.utf8.count > 255 else { return name }
        var cut = ""
        for scalar in name.unicodeScalars {
            guard cut.utf8.count + String(scalar).utf8.count <= 255 else { break }
            cut.unicodeScalars.append(scalar)
        }
        return cut + "…"
    }

    private func property(
        _ call: DBusMethodCall, interfaces: [DBusInterface]
    ) throws(DBusError) -> (interface: String, property: DBusProperty) {
        guard call.arguments.count >= 2, case .string(let interfaceName) = call.arguments[0],
            case .string(let name) = call.arguments[1]
        else { throw DBusError.invalidArguments("Expected an interface name and a property name") }
        guard let interface = interfaces.first(where: { $0.name == interfaceName }) else {
            throw DBusError(
                name: DBusError.unknownInterface,
                message: "No such interface '\(Self.shown(interfaceName))' at object path '\(call.path)'")
        }
        guard let property = interface.properties.first(where: { $0.name == name }) else {
            throw DBusError(
                name: DBusError.unknownProperty,
                message: "No such property '\(Self.shown(name))' in interface '\(Self.shown(interfaceName))'")
        }
        return (interfaceName, property)
    }

    /// `Get`: the value in a variant; `UnknownInterface`, `UnknownProperty`, or the getter's error.
    private func getProperty(_ call: DBusMethodCall, interfaces: [DBusInterface]) async throws -> DBusValue {
        let (interface, property) = try property(call, interfaces: interfaces)
        let value = try await property.get(call)
        guard value.signature == property.signature else {
            throw DBusError(
                name: DBusError.failed,
                message: "\(interface).\(property.name) has type '\(property.signature)' but its getter returned "
                    + "'\(value.signature)'")
        }
        return .variant(value)
    }

    /// `GetAll`: an `a{sv}` of the interface's properties. A property whose getter throws or
    /// returns the wrong type is left out. The standard interfaces have none.
    private func getAllProperties(_ call: DBusMethodCall, interfaces: [DBusInterface]) async throws -> DBusValue {
        guard case .string(let interfaceName)? = call.arguments.first else {
            throw DBusError.invalidArguments("Expected an interface name")
        }
        if let interface = interfaces.first(where: { $0.name == interfaceName }) {
            return .dictionary(await Self.readableProperties(of: interface, call: call))
        }
        if Self.reservedInterfaces.contains(interfaceName) { return .dictionary([:]) }
        throw DBusError(
            name: DBusError.unknownInterface,
            message: "No such interface '\(Self.shown(interfaceName))' at object path '\(call.path)'")
    }

    /// The values of every property whose getter answers with the right type.
    static func readableProperties(of interface: DBusInterface, call: DBusMethodCall) async -> [String: DBusValue] {
        var values: [String: DBusValue] = [:]
        for property in interface.properties {
            guard let value = try? await property.get(call), value.signature == property.signature else { continue }
            values[property.name] = value
        }
        return values
    }

    /// `Set`: `PropertyReadOnly` for a read-only property, `InvalidArgs` for a value of another type.
    private func setProperty(_ call: DBusMethodCall, interfaces: [DBusInterface]) async throws {
        let (interface, property) = try property(call, interfaces: interfaces)
        guard property.access == .readWrite, let set = property.set else {
            throw DBusError(
                name: DBusError.propertyReadOnly, message: "Property '\(property.name)' of '\(interface)' is read-only")
        }
        guard call.arguments.count == 3, case .variant(let value) = call.arguments[2] else {
            throw DBusError.invalidArguments("Expected a variant value")
        }
        guard value.signature == property.signature else {
            throw DBusError.invalidArguments(
                "Property '\(property.name)' of '\(interface)' has type '\(property.signature)', "
                    + "received '\(value.signature)'")
        }
        try await set(call, value)
    }

    // MARK: - The tree

    /// The names of the nodes directly below `path` that lead to exported objects or managers.
    static func children(of path: String, in state: ConnectionState) -> [String] {
        let prefix = path == "/" ? "/" : path + "/"
        var names: Set<String> = []
        for candidate in Array(state.objects.keys) + Array(state.managers)
        where candidate != path && candidate.hasPrefix(prefix) {
            if let first = candidate.dropFirst(prefix.count).split(separator: "/").first {
                names.insert(String(first))
            }
        }
        return names.sorted()
    }

    /// The nodes directly below `path` whose every object lies below an object manager that chooses
    /// who sees what, with those objects and their managers' visibility tests: a caller is shown
    /// such a node only when it may see one of them.
    static func guardedChildren(of path: String, in state: ConnectionState) -> [String: [(String, ObjectVisibility)]] {
        guard !state.managerVisibility.isEmpty else { return [:] }
        let prefix = path == "/" ? "/" : path + "/"
        var guarded: [String: [(String, ObjectVisibility)]] = [:]
        var open: Set<String> = []
        for candidate in Array(state.objects.keys) + Array(state.managers)
        where candidate != path && candidate.hasPrefix(prefix) {
            guard let first = candidate.dropFirst(prefix.count).split(separator: "/").first.map(String.init) else { continue }
            let manager = state.managerVisibility.first { isBelow(candidate, $0.key) && !state.managers.contains(candidate) }
            if let manager {
                guarded[first, default: []].append((candidate, manager.value))
            } else {
                open.insert(first)
            }
        }
        for name in open { guarded[name] = nil }
        return guarded
    }

    /// Whether `path` is strictly below `ancestor`.
    static func isBelow(_ path: String, _ ancestor: String) -> Bool {
        guard path != ancestor else { return false }
        return ancestor == "/" ? path.hasPrefix("/") : path.hasPrefix(ancestor + "/")
    }
}
