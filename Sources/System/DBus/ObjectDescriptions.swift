import Synchronization

/// An interface of an exported object, described rather than subclassed: its methods,
/// properties and signals. `DBusConnection.export(path:interfaces:)` serves it.
package struct DBusInterface: Sendable {
    /// The interface name, such as `io.github.reveille.Alarms1.Manager`.
    package var name: String
    /// The methods, dispatched by name with their in-signature checked.
    package var methods: [DBusMethod]
    /// The properties, served through `org.freedesktop.DBus.Properties`.
    package var properties: [DBusProperty]
    /// The signals, for introspection (emit them with `DBusConnection.emitSignal`).
    package var signals: [DBusSignal]

    /// Describes an interface.
    package init(
        name: String, methods: [DBusMethod] = [], properties: [DBusProperty] = [], signals: [DBusSignal] = []
    ) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }
}

/// A named, typed argument of a method or signal.
package struct DBusArgument: Sendable, Hashable {
    /// The argument name, for introspection; may be empty.
    package var name: String
    /// The argument's single complete type, such as `s` or `a{sv}`.
    package var signature: String

    /// Describes an argument.
    package init(name: String, signature: String) {
        self.name = name
        self.signature = signature
    }
}

/// A method of an exported interface and the handler that answers it.
package struct DBusMethod: Sendable {
    /// The method name.
    package var name: String
    /// The arguments it takes; a call with another signature gets `InvalidArgs` and never
    /// reaches the handler.
    package var inArguments: [DBusArgument]
    /// The arguments it returns; the handler's values must have this signature.
    package var outArguments: [DBusArgument]
    /// Answers a call, in its own task: the returned values are the reply; a thrown `DBusError`
    /// is sent as that error, any other error as `org.freedesktop.DBus.Error.Failed`.
    package var handler: @Sendable (DBusMethodCall) async throws -> [DBusValue]

    /// Describes a method.
    package init(
        name: String, inArguments: [DBusArgument] = [], outArguments: [DBusArgument] = [],
        handler: @escaping @Sendable (DBusMethodCall) async throws -> [DBusValue]
    ) {
        self.name = name
        self.inArguments = inArguments
        self.outArguments = outArguments
        self.handler = handler
    }

    /// The signature a call must have.
    package var inSignature: String { inArguments.map(\.signature).joined() }
    /// The signature of the reply.
    package var outSignature: String { outArguments.map(\.signature).joined() }
}

/// A property of an exported interface, with its getter and optional setter.
package struct DBusProperty: Sendable {
    /// Whether a property can be set.
    package enum Access: Sendable, Hashable {
        /// Read only: `Set` gets `PropertyReadOnly`.
        case read
        /// Readable and writable (needs a setter).
        case readWrite
    }

    /// The property name.
    package var name: String
    /// The property's single complete type.
    package var signature: String
    /// Whether it can be set.
    package var access: Access
    /// Reads the value for a call (`Get`, `GetAll`, `GetManagedObjects`), so it can depend on the
    /// caller (`DBusMethodCall.sender`). The call is the incoming one as it is (for
    /// `GetManagedObjects` its path is the manager's); for `InterfacesAdded` it has an empty
    /// sender. A value of another type than `signature` is not sent; an error from the getter is
    /// the reply to `Get`, and leaves the property out of `GetAll` and `GetManagedObjects`.
    package var get: @Sendable (DBusMethodCall) async throws -> DBusValue
    /// Sets the value from a `Set` call; the value already has the property's type.
    package var set: (@Sendable (DBusMethodCall, DBusValue) async throws -> Void)?

    /// Describes a property.
    package init(
        name: String, signature: String, access: Access = .read,
        get: @escaping @Sendable (DBusMethodCall) async throws -> DBusValue,
        set: (@Sendable (DBusMethodCall, DBusValue) async throws -> Void)? = nil
    ) {
        self.name = name
        self.signature = signature
        self.access = access
        self.get = get
        self.set = set
    }
}

/// A signal of an exported interface, for introspection.
package struct DBusSignal: Sendable {
    /// The signal name.
    package var name: String
    /// Its arguments.
    package var arguments: [DBusArgument]

    /// Describes a signal.
    package init(name: String, arguments: [DBusArgument] = []) {
        self.name = name
        self.arguments = arguments
    }
}

/// A call a handler may answer before it returns (`DBusMethodCall.reply(_:)`).
final class EarlyAnswer: Sendable {
    let call: DBusMessage
    let outSignature: String
    let sent = Mutex(false)

    init(call: DBusMessage, outSignature: String) {
        self.call = call
        self.outSignature = outSignature
    }
}

/// An incoming method call as a handler sees it.
package struct DBusMethodCall: Sendable {
    /// The caller's unique name. Empty for the property reads behind an `InterfacesAdded` signal,
    /// which has no caller.
    package var sender: String
    /// The object path called.
    package var path: String
    /// The interface called (`org.freedesktop.DBus.Properties` for property access).
    package var interface: String
    /// The method called (`Get`, `GetAll`, `Set`, `GetManagedObjects` for property access).
    package var member: String
    /// The call's arguments, already checked against the method's in-signature.
    package var arguments: [DBusValue]
    /// The connection the call came in on, for emitting signals or calling back.
    package var connection: DBusConnection
    /// The call as received, and whether it was answered already (`reply(_:)`); `nil` in tests.
    var answer: EarlyAnswer?

    /// Sends the method's return now, before the handler returns; what the handler returns then is
    /// not sent. For a handler that must order its reply with signals it emits: a reply sent here
    /// goes out before anything the connection sends afterwards (`dbus_connection_send`).
    package func reply(_ values: [DBusValue]) throws(DBusError) {
        guard let answer else { return }
        guard values.signature == answer.outSignature else {
            throw DBusError(
                name: DBusError.failed,
                message: "\(interface).\(member) replied with signature '\(values.signature)', expected '\(answer.outSignature)'")
        }
        let message = try DBusMessage.methodReturn(replyingTo: answer.call, arguments: values)
        let first = answer.sent.withLock { sent in
            defer { sent = true }
            return !sent
        }
        guard first, !answer.call.noReplyExpected else { return }
        try connection.send(message)
    }

    /// Whether `reply(_:)` sent the method's return already; what the handler returns is then not
    /// sent, and need not be built.
    package var isAnswered: Bool { answer?.sent.withLock { $0 } ?? false }

    /// Describes a call (for tests of handlers).
    package init(
        sender: String, path: String, interface: String, member: String, arguments: [DBusValue],
        connection: DBusConnection
    ) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
        self.connection = connection
    }
}
