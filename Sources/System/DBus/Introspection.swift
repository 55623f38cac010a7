extension DBusInterface {
    /// The `org.freedesktop.DBus.Introspectable.Introspect` XML of an object with these
    /// interfaces and child nodes: the standard DOCTYPE header, `org.freedesktop.DBus.Peer`,
    /// `Introspectable` and `Properties` (and `ObjectManager` when `includesObjectManager`), the
    /// interfaces in the order given, then one `<node name="child"/>` per child. The same input
    /// always gives the same text, so it can be written to an interface file.
    package static func introspectionXML(
        interfaces: [DBusInterface], children: [String], includesObjectManager: Bool = false
    ) -> String {
        var lines = [
            #"<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN""#,
            #" "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">"#,
            "<node>",
        ]
        var standard = [peer, introspectable, properties]
        if includesObjectManager { standard.append(objectManager) }
        for interface in standard + interfaces {
            lines.append(contentsOf: xml(interface))
        }
        for child in children {
            lines.append(#"  <node name="\#(escape(child))"/>"#)
        }
        lines.append("</node>")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func xml(_ interface: DBusInterface) -> [String] {
        var lines = [#"  <interface name="\#(escape(interface.name))">"#]
        func argument(_ argument: DBusArgument, direction: String?) -> String {
            var attributes = ""
            if !argument.name.isEmpty { attributes += #" name="\#(escape(argument.name))""# }
            attributes += #" type="\#(escape(argument.signature))""#
            if let direction { attributes += #" direction="\#(direction)""# }
            return "      <arg\(attributes)/>"
        }
        for method in interface.methods {
            let arguments =
                method.inArguments.map { argument($0, direction: "in") }
                + method.outArguments.map { argument($0, direction: "out") }
            if arguments.isEmpty {
                lines.append(#"    <method name="\#(escape(method.name))"/>"#)
            } else {
                lines.append(#"    <method name="\#(escape(method.name))">"#)
                lines.append(contentsOf: arguments)
                lines.append("    </method>")
            }
        }
        for signal in interface.signals {
            if signal.arguments.isEmpty {
                lines.append(#"    <signal name="\#(escape(signal.name))"/>"#)
            } else {
                lines.append(#"    <signal name="\#(escape(signal.name))">"#)
                lines.append(contentsOf: signal.arguments.map { argument($0, direction: nil) })
                lines.append("    </signal>")
            }
        }
        for property in interface.properties {
            let access = property.access == .readWrite ? "readwrite" : "read"
            lines.append(
                #"    <property name="\#(escape(property.name))" type="\#(escape(property.signature))" access="\#(access)"/>"#
            )
        }
        lines.append("  </interface>")
        return lines
    }

    /// Escapes text for an XML attribute value.
    private static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }

    private static let unused: @Sendable (DBusMethodCall) async throws -> [DBusValue] = { _ in [] }

    /// `org.freedesktop.DBus.Peer`, answered by libdbus itself.
    static let peer = DBusInterface(
        name: BusNames.peer,
        methods: [
            DBusMethod(name: "Ping", handler: unused),
            DBusMethod(
                name: "GetMachineId", outArguments: [DBusArgument(name: "machine_uuid", signature: "s")],
                handler: unused),
        ])

    /// `org.freedesktop.DBus.Introspectable`.
    static let introspectable = DBusInterface(
        name: BusNames.introspectable,
        methods: [
            DBusMethod(name: "Introspect", outArguments: [DBusArgument(name: "xml_data", signature: "s")], handler: unused)
        ])

    /// `org.freedesktop.DBus.Properties`.
    static let properties = DBusInterface(
        name: BusNames.properties,
        methods: [
            DBusMethod(
                name: "Get",
                inArguments: [
                    DBusArgument(name: "interface_name", signature: "s"),
                    DBusArgument(name: "property_name", signature: "s"),
                ],
                outArguments: [DBusArgument(name: "value", signature: "v")], handler: unused),
            DBusMethod(
                name: "GetAll", inArguments: [DBusArgument(name: "interface_name", signature: "s")],
                outArguments: [DBusArgument(name: "properties", signature: "a{sv}")], handler: unused),
            DBusMethod(
                name: "Set",
                inArguments: [
                    DBusArgument(name: "interface_name", signature: "s"),
                    DBusArgument(name: "property_name", signature: "s"),
                    DBusArgument(name: "value", signature: "v"),
                ], handler: unused),
        ],
        signals: [
            DBusSignal(
                name: "PropertiesChanged",
                arguments: [
                    DBusArgument(name: "interface_name", signature: "s"),
                    DBusArgument(name: "changed_properties", signature: "a{sv}"),
                    DBusArgument(name: "invalidated_properties", signature: "as"),
                ])
        ])

    /// `org.freedesktop.DBus.ObjectManager`.
    static let objectManager = DBusInterface(
        name: BusNames.objectManager,
        methods: [
            DBusMethod(
                name: "GetManagedObjects",
                outArguments: [DBusArgument(name: "object_paths_interfaces_and_properties", signature: "a{oa{sa{sv}}}")],
                handler: unused)
        ],
        signals: [
            DBusSignal(
                name: "InterfacesAdded",
                arguments: [
                    DBusArgument(name: "object_path", signature: "o"),
                    DBusArgument(name: "interfaces_and_properties", signature: "a{sa{sv}}"),
                ]),
            DBusSignal(
                name: "InterfacesRemoved",
                arguments: [
                    DBusArgument(name: "object_path", signature: "o"),
                    DBusArgument(name: "interfaces", signature: "as"),
                ]),
        ])
}

extension DBusConnection {
    /// The introspection XML for these interfaces and children; the same as
    /// `DBusInterface.introspectionXML(interfaces:children:includesObjectManager:)`.
    package static func introspectionXML(
        interfaces: [DBusInterface], children: [String], includesObjectManager: Bool = false
    ) -> String {
        DBusInterface.introspectionXML(
            interfaces: interfaces, children: children, includesObjectManager: includesObjectManager)
    }
}
