extension DBusConnection.ConnectionState {
    /// Queues ObjectManager signal work behind the work queued before it, so that
    /// `InterfacesAdded` and `InterfacesRemoved` go out in the order of export and unexport.
    mutating func queueManagerSignal(_ work: @escaping @Sendable () async -> Void) {
        let previous = managerSignals
        managerSignals = Task {
            await previous?.value
            await work()
        }
    }
}

/// Which callers may see which objects below an object manager, and who has listed them.
package struct ObjectVisibility: Sendable {
    /// Whether the caller (a unique bus name) may see the object at the path.
    package var isVisible: @Sendable (_ caller: String, _ objectPath: String) async -> Bool
    /// Told of each `GetManagedObjects` caller before its objects are read, so the owner can
    /// send it the changes that follow.
    package var listedBy: @Sendable (_ caller: String) async -> Void

    /// Creates a visibility test, and what to do when a caller lists the objects.
    package init(
        _ isVisible: @escaping @Sendable (_ caller: String, _ objectPath: String) async -> Bool,
        listedBy: @escaping @Sendable (_ caller: String) async -> Void = { _ in }
    ) {
        self.isVisible = isVisible
        self.listedBy = listedBy
    }
}

extension DBusConnection {
    /// Serves `org.freedesktop.DBus.ObjectManager` at `path`: `GetManagedObjects` lists every
    /// object exported strictly below it, and `export`/`unexport` below it emit
    /// `InterfacesAdded`/`InterfacesRemoved` from it. Objects exported before this call are
    /// listed but not announced.
    package func exportObjectManager(at path: String) {
        _ = state.withLock { $0.managers.insert(path) }
    }

    /// Serves `org.freedesktop.DBus.ObjectManager` at `path` for objects not everyone may see:
    /// `GetManagedObjects` lists only the objects `visibility` lets the caller see, and the manager
    /// announces nothing itself; its owner sends `InterfacesAdded` and `InterfacesRemoved`, unicast,
    /// to whom it chooses (a broadcast would tell every connection on the bus).
    package func exportObjectManager(at path: String, visibility: ObjectVisibility) {
        state.withLock { state in
            state.managers.insert(path)
            state.managerVisibility[path] = visibility
        }
    }

    /// Stops serving `org.freedesktop.DBus.ObjectManager` at `path`.
    package func unexportObjectManager(at path: String) {
        state.withLock { state in
            state.managers.remove(path)
            state.managerVisibility[path] = nil
        }
    }

    /// The object managers strictly above `path` that announce their objects themselves, sorted.
    static func announcingManagers(above path: String, in state: ConnectionState) -> [String] {
        state.managers.filter { isBelow(path, $0) && state.managerVisibility[$0] == nil }.sorted()
    }

    /// `GetManagedObjects`: an `a{oa{sa{sv}}}` of the objects below `manager`, with the readable
    /// properties of each interface, read with the caller's `call`.
    func managedObjects(below manager: String, call: DBusMethodCall) async -> DBusValue {
        // The caller is noted before the objects are read: an object exported in between is
        // then either listed or announced to it, never neither.
        await state.withLock { $0.managerVisibility[manager] }?.listedBy(call.sender)
        let (objects, visibility) = state.withLock { state in
            (state.objects.filter { Self.isBelow($0.key, manager) }.sorted { $0.key < $1.key }, state.managerVisibility[manager])
        }
        var entries: [DBusValue] = []
        for (path, interfaces) in objects {
            if let visibility, await !visibility.isVisible(call.sender, path) { continue }
            entries.append(.dictEntry(.objectPath(path), await Self.interfacesAndProperties(interfaces, call: call)))
        }
        return .array(elementSignature: "{oa{sa{sv}}}", entries)
    }

    /// An `a{sa{sv}}` of interface names and their readable properties.
    static func interfacesAndProperties(_ interfaces: [DBusInterface], call: DBusMethodCall) async -> DBusValue {
        var entries: [DBusValue] = []
        for interface in interfaces {
            entries.append(
                .dictEntry(.string(interface.name), .dictionary(await readableProperties(of: interface, call: call))))
        }
        return .array(elementSignature: "{sa{sv}}", entries)
    }

    /// Emits `InterfacesAdded` for a newly exported object from each manager above it. The
    /// properties are read with a call that has no caller (`sender` is empty).
    func emitInterfacesAdded(path: String, interfaces: [DBusInterface], managers: [String]) async {
        let call = DBusMethodCall(
            sender: "", path: path, interface: BusNames.objectManager, member: "InterfacesAdded", arguments: [],
            connection: self)
        let added = await Self.interfacesAndProperties(interfaces, call: call)
        for manager in managers {
            try? emitSignal(
                path: manager, interface: BusNames.objectManager, name: "InterfacesAdded",
                arguments: [.objectPath(path), added])
        }
    }
}
