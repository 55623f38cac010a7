import DBus
import Synchronization
import Testing
import TestRequirements
import TestSupport

// Exported objects as other connections see them: method errors, Properties, Introspectable and
// ObjectManager, through a real dbus-daemon.

/// A property-holding interface: `Name` (read-write), `Count` (read-only) and `Caller` (the
/// caller's unique name, to show that a getter sees who is asking).
private func propertyInterface(name: Shared<String>) -> DBusInterface {
    DBusInterface(
        name: "test.Props",
        properties: [
            DBusProperty(
                name: "Name", signature: "s", access: .readWrite,
                get: { _ in .string(name.value) },
                set: { call, value in
                    let text = value.stringValue ?? ""
                    name.value = text
                    try call.connection.emitPropertiesChanged(
                        path: call.path, interface: "test.Props", changed: ["Name": .string(text)])
                }),
            DBusProperty(name: "Count", signature: "u", get: { _ in .uint32(42) }),
            DBusProperty(name: "Caller", signature: "s", get: { call in .string(call.sender) }),
        ])
}

@Suite("exported objects", .onItsOwnThread, .timeLimit(.minutes(5)))
struct ExportedObjectTests {
    @Test("handler errors: a named DBusError, a Swift error, a reply of the wrong type")
    func handlerErrors() async throws {
        try await withBusPair { pair in
            try pair.service.export(path: Echo.path, interfaces: [Echo.interface()])
            let client = pair.client
            let service = pair.service.uniqueName
            let named = await dbusError {
                _ = try await client.call(destination: service, path: Echo.path, interface: Echo.interfaceName, method: "Fail")
            }
            #expect(named == DBusError(name: "test.Error.Custom", message: "custom failure"))

            let swift = await dbusError {
                _ = try await client.call(destination: service, path: Echo.path, interface: Echo.interfaceName, method: "Boom")
            }
            #expect(swift == DBusError(name: DBusError.failed, message: "boom from a Swift error"))

            let wrong = await dbusError {
                _ = try await client.call(
                    destination: service, path: Echo.path, interface: Echo.interfaceName, method: "WrongReply")
            }
            #expect(wrong?.name == DBusError.failed)
            #expect(wrong?.message.contains("returned signature 's', expected 'i'") == true)
        }
    }

    @Test("a call with the wrong signature gets InvalidArgs naming both signatures and never reaches the handler")
    func wrongSignature() async throws {
        try await withBusPair { pair in
            let calls = Counter()
            try pair.service.export(path: Echo.path, interfaces: [Echo.interface(calls: calls)])
            let error = await dbusError {
                _ = try await pair.client.call(
                    destination: pair.service.uniqueName, path: Echo.path, interface: Echo.interfaceName,
                    method: "EchoString", arguments: [.int32(5), .string("extra")])
            }
            #expect(error?.name == DBusError.invalidArgs)
            #expect(error?.message.contains("expected signature 's'") == true)
            #expect(error?.message.contains("received 'is'") == true)
            // The same connection's next call, which does reach a handler, is answered after it.
            _ = try await pair.client.call(
                destination: pair.service.uniqueName, path: Echo.path, interface: Echo.interfaceName,
                method: "EchoString", arguments: [.string("ok")])
            #expect(calls.count == 1)
        }
    }

    @Test("unknown method, interface and object get the standard errors")
    func unknownTargets() async throws {
        try await withBusPair { pair in
            try pair.service.export(path: Echo.path, interfaces: [Echo.interface()])
            let client = pair.client
            let service = pair.service.uniqueName
            let method = await dbusError {
                _ = try await client.call(destination: service, path: Echo.path, interface: Echo.interfaceName, method: "Nope")
            }
            #expect(method?.name == DBusError.unknownMethod)
            let interface = await dbusError {
                _ = try await client.call(destination: service, path: Echo.path, interface: "test.Nope", method: "Echo")
            }
            #expect(interface?.name == DBusError.unknownInterface)
            let object = await dbusError {
                _ = try await client.call(destination: service, path: "/nowhere", interface: Echo.interfaceName, method: "Echo")
            }
            #expect(object?.name == DBusError.unknownObject)
            // A call without an interface finds the method by name.
            let message = try DBusMessage.methodCall(
                destination: service, path: Echo.path, interface: nil, method: "EchoString", arguments: [.string("bare")])
            #expect(try await client.call(message).arguments == [.string("bare")])
            // Peer is answered for any path.
            _ = try await client.call(destination: service, path: "/", interface: "org.freedesktop.DBus.Peer", method: "Ping")
            // A removed object is unknown again.
            pair.service.unexport(path: Echo.path)
            let removed = await dbusError {
                _ = try await client.call(
                    destination: service, path: Echo.path, interface: Echo.interfaceName, method: "EchoString",
                    arguments: [.string("x")])
            }
            #expect(removed?.name == DBusError.unknownObject)
        }
    }

    @Test("export refuses invalid descriptions and a path in use")
    func exportChecks() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        try connection.export(path: "/a", interfaces: [Echo.interface()])
        #expect(throws: DBusError.self) { try connection.export(path: "/a", interfaces: []) }
        #expect(throws: DBusError.self) { try connection.export(path: "a", interfaces: []) }
        #expect(throws: DBusError.self) {
            try connection.export(path: "/b", interfaces: [DBusInterface(name: "org.freedesktop.DBus.Properties")])
        }
        #expect(throws: DBusError.self) {
            try connection.export(
                path: "/b",
                interfaces: [
                    DBusInterface(
                        name: "t.X",
                        methods: [DBusMethod(name: "M", inArguments: [DBusArgument(name: "x", signature: "a")]) { _ in [] }])
                ])
        }
        #expect(throws: DBusError.self) {
            try connection.export(
                path: "/b",
                interfaces: [
                    DBusInterface(
                        name: "t.X",
                        properties: [DBusProperty(name: "P", signature: "s", access: .readWrite, get: { _ in .string("") })])
                ])
        }
        #expect(connection.exportedPaths == ["/a"])
    }

    @Test("Interfaces checked once serve many paths; a bad description is refused when checked, a bad path when exported")
    func checkedOnce() async throws {
        #expect(throws: DBusError.self) { try DBusObjectInterfaces([DBusInterface(name: "org.freedesktop.DBus.Properties")]) }
        #expect(throws: DBusError.self) { try DBusObjectInterfaces([DBusInterface(name: "t.X"), DBusInterface(name: "t.X")]) }
        try await withBusPair { pair in
            let object = try DBusObjectInterfaces([Echo.interface()])
            try pair.service.export(path: "/one", object: object)
            try pair.service.export(path: "/two", object: object)
            #expect(throws: DBusError.self) { try pair.service.export(path: "/one", object: object) }
            #expect(throws: DBusError.self) { try pair.service.export(path: "two", object: object) }
            for path in ["/one", "/two"] {
                let reply = try await pair.client.call(
                    destination: pair.service.uniqueName, path: path, interface: Echo.interfaceName, method: "Echo",
                    arguments: [.variant(.string(path))])
                #expect(reply == [.variant(.string(path))])
            }
            #expect(pair.service.exportedPaths == ["/one", "/two"])
        }
    }

    @Test("Properties: Get, GetAll, Set, and their errors")
    func properties() async throws {
        try await withBusPair { pair in
            let name = Shared("initial")
            try pair.service.export(path: "/p", interfaces: [propertyInterface(name: name)])
            let client = pair.client
            let service = pair.service.uniqueName
            func properties(_ method: String, _ arguments: [DBusValue]) async throws -> [DBusValue] {
                try await client.call(
                    destination: service, path: "/p", interface: "org.freedesktop.DBus.Properties", method: method,
                    arguments: arguments)
            }
            #expect(try await properties("Get", [.string("test.Props"), .string("Name")]) == [.variant(.string("initial"))])
            #expect(try await properties("Get", [.string("test.Props"), .string("Count")]) == [.variant(.uint32(42))])
            let all = try await properties("GetAll", [.string("test.Props")])
            #expect(
                all == [.dictionary(["Name": .string("initial"), "Count": .uint32(42), "Caller": .string(client.uniqueName)])])

            #expect(try await properties("Set", [.string("test.Props"), .string("Name"), .variant(.string("renamed"))]) == [])
            #expect(name.value == "renamed")
            #expect(try await properties("Get", [.string("test.Props"), .string("Name")]) == [.variant(.string("renamed"))])

            let readOnly = await dbusError {
                _ = try await properties("Set", [.string("test.Props"), .string("Count"), .variant(.uint32(1))])
            }
            #expect(readOnly?.name == DBusError.propertyReadOnly)
            let wrongType = await dbusError {
                _ = try await properties("Set", [.string("test.Props"), .string("Name"), .variant(.int32(1))])
            }
            #expect(wrongType?.name == DBusError.invalidArgs)
            #expect(wrongType?.message.contains("'s'") == true && wrongType?.message.contains("'i'") == true)
            #expect(name.value == "renamed")
            let unknownProperty = await dbusError { _ = try await properties("Get", [.string("test.Props"), .string("Nope")]) }
            #expect(unknownProperty?.name == DBusError.unknownProperty)
            let unknownInterface = await dbusError { _ = try await properties("GetAll", [.string("test.Nope")]) }
            #expect(unknownInterface?.name == DBusError.unknownInterface)
            let badSignature = await dbusError { _ = try await properties("Get", [.string("test.Props")]) }
            #expect(badSignature?.name == DBusError.invalidArgs)
        }
    }

    @Test("Set emits PropertiesChanged, received through signals(_:)")
    func propertiesChanged() async throws {
        try await withBusPair { pair in
            let name = Shared("initial")
            try pair.service.export(path: "/p", interfaces: [propertyInterface(name: name)])
            let changes = try await pair.client.subscribe(
                MatchRule(
                    sender: pair.service.uniqueName, path: "/p", interface: "org.freedesktop.DBus.Properties",
                    member: "PropertiesChanged", arg0: "test.Props"))
            _ = try await pair.client.call(
                destination: pair.service.uniqueName, path: "/p", interface: "org.freedesktop.DBus.Properties",
                method: "Set", arguments: [.string("test.Props"), .string("Name"), .variant(.string("changed"))])
            let signal = try #require(try await next(changes, "PropertiesChanged"))
            #expect(signal.sender == pair.service.uniqueName)
            #expect(signal.path == "/p")
            #expect(signal.arguments == [.string("test.Props"), .dictionary(["Name": .string("changed")]), .strings([])])

            // emitPropertiesChanged with invalidated names, directly.
            try pair.service.emitPropertiesChanged(
                path: "/p", interface: "test.Props", changed: [:], invalidated: ["Count"])
            let second = try #require(try await next(changes, "PropertiesChanged with invalidated names"))
            #expect(second.arguments == [.string("test.Props"), .dictionary([:]), .strings(["Count"])])
        }
    }

    @Test("a property getter sees the caller")
    func callerDependentProperty() async throws {
        try await withBusPair { pair in
            try pair.service.export(path: "/p", interfaces: [propertyInterface(name: Shared(""))])
            let other = try pair.connect()
            defer { other.close() }
            for connection in [pair.client, other] {
                let reply = try await connection.call(
                    destination: pair.service.uniqueName, path: "/p", interface: "org.freedesktop.DBus.Properties",
                    method: "Get", arguments: [.string("test.Props"), .string("Caller")])
                #expect(reply == [.variant(.string(connection.uniqueName))])
            }
            #expect(pair.client.uniqueName != other.uniqueName)
        }
    }

    @Test("Introspect lists the interfaces, the standard ones and the children")
    func introspection() async throws {
        try await withBusPair { pair in
            let echo = Echo.interface()
            let props = propertyInterface(name: Shared(""))
            try pair.service.export(path: "/test/obj", interfaces: [echo, props])
            try pair.service.export(path: "/test/obj/child/grandchild", interfaces: [props])
            try pair.service.export(path: "/test/obj/second", interfaces: [props])
            func introspect(_ path: String) async throws -> String {
                let reply = try await pair.client.call(
                    destination: pair.service.uniqueName, path: path, interface: "org.freedesktop.DBus.Introspectable",
                    method: "Introspect")
                return try #require(reply.first?.stringValue)
            }
            let xml = try await introspect("/test/obj")
            #expect(xml.hasPrefix(#"<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN""#))
            for fragment in [
                #"<interface name="test.Echo">"#, #"<interface name="test.Props">"#,
                #"<interface name="org.freedesktop.DBus.Properties">"#,
                #"<interface name="org.freedesktop.DBus.Introspectable">"#,
                #"<interface name="org.freedesktop.DBus.Peer">"#,
                #"<method name="EchoString">"#, #"<arg name="value" type="s" direction="in"/>"#,
                #"<property name="Name" type="s" access="readwrite"/>"#,
                #"<property name="Count" type="u" access="read"/>"#,
                #"<signal name="Ping">"#, #"<node name="child"/>"#, #"<node name="second"/>"#,
            ] {
                #expect(xml.contains(fragment), "missing \(fragment)")
            }
            #expect(!xml.contains("org.freedesktop.DBus.ObjectManager"))
            #expect(
                xml
                    == DBusInterface.introspectionXML(interfaces: [echo, props], children: ["child", "second"]))
            // The XML is the same each time.
            #expect(try await introspect("/test/obj") == xml)
            // Intermediate nodes list their children only.
            let root = try await introspect("/")
            #expect(root.contains(#"<node name="test"/>"#))
            #expect(!root.contains("test.Echo"))
            let middle = try await introspect("/test/obj/child")
            #expect(middle.contains(#"<node name="grandchild"/>"#))
        }
    }

    @Test("ObjectManager: GetManagedObjects with the caller's properties, InterfacesAdded and InterfacesRemoved")
    func objectManager() async throws {
        try await withBusPair { pair in
            let service = pair.service
            service.exportObjectManager(at: "/m")
            try service.export(path: "/m", interfaces: [Echo.interface()])
            let added = try await pair.client.subscribe(
                MatchRule(
                    sender: service.uniqueName, path: "/m", interface: "org.freedesktop.DBus.ObjectManager",
                    member: "InterfacesAdded"))
            let removed = try await pair.client.subscribe(
                MatchRule(
                    sender: service.uniqueName, path: "/m", interface: "org.freedesktop.DBus.ObjectManager",
                    member: "InterfacesRemoved"))
            try service.export(path: "/m/a", interfaces: [propertyInterface(name: Shared("a"))])
            try service.export(path: "/elsewhere", interfaces: [propertyInterface(name: Shared("x"))])
            try service.export(path: "/m/b/deep", interfaces: [propertyInterface(name: Shared("b"))])
            func announced(_ name: String) -> DBusValue {
                .array(
                    elementSignature: "{sa{sv}}",
                    [.dictEntry(.string("test.Props"), .dictionary(["Name": .string(name), "Count": .uint32(42), "Caller": .string("")]))])
            }
            // In export order; the manager itself and /elsewhere are not announced.
            let first = try #require(try await next(added, "InterfacesAdded for /m/a"))
            #expect(first.arguments == [.objectPath("/m/a"), announced("a")])
            let second = try #require(try await next(added, "InterfacesAdded for /m/b/deep"))
            #expect(second.arguments == [.objectPath("/m/b/deep"), announced("b")])

            let managed = try await pair.client.call(
                destination: service.uniqueName, path: "/m", interface: "org.freedesktop.DBus.ObjectManager",
                method: "GetManagedObjects")
            func entry(_ path: String, _ name: String) -> DBusValue {
                .dictEntry(
                    .objectPath(path),
                    .array(
                        elementSignature: "{sa{sv}}",
                        [
                            .dictEntry(
                                .string("test.Props"),
                                .dictionary(["Name": .string(name), "Count": .uint32(42), "Caller": .string(pair.client.uniqueName)]))
                        ]))
            }
            #expect(managed == [.array(elementSignature: "{oa{sa{sv}}}", [entry("/m/a", "a"), entry("/m/b/deep", "b")])])

            let xml = try await pair.client.call(
                destination: service.uniqueName, path: "/m", interface: "org.freedesktop.DBus.Introspectable",
                method: "Introspect")
            #expect(xml.first?.stringValue?.contains(#"<interface name="org.freedesktop.DBus.ObjectManager">"#) == true)

            service.unexport(path: "/m/b/deep")
            let removedSignal = try #require(try await next(removed, "InterfacesRemoved"))
            #expect(removedSignal.arguments == [.objectPath("/m/b/deep"), .strings(["test.Props"])])

            // Objects outside the manager are neither listed nor announced.
            service.unexport(path: "/elsewhere")
            try service.export(path: "/m/c", interfaces: [Echo.interface()])
            let third = try #require(try await next(added, "InterfacesAdded for /m/c"))
            #expect(third.arguments.first == .objectPath("/m/c"))

            // GetManagedObjects on a path that is not a manager is refused.
            let notManager = await dbusError {
                _ = try await pair.client.call(
                    destination: service.uniqueName, path: "/m/a", interface: "org.freedesktop.DBus.ObjectManager",
                    method: "GetManagedObjects")
            }
            #expect(notManager?.name == DBusError.unknownInterface)
        }
    }
}
