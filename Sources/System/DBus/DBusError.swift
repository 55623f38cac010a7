import CDBus

/// A D-Bus error: a dotted error name and a human-readable message, as carried by an error reply
/// (`dbus_message_new_error`) or reported by libdbus through its `DBusError` struct.
///
/// Method handlers throw it to send a named error; `DBusConnection.call` throws it when the reply
/// is an error. The static constants are the standard `org.freedesktop.DBus.Error.*` names.
package struct DBusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The error name, such as `org.freedesktop.DBus.Error.InvalidArgs`.
    package var name: String
    /// The human-readable message; may be empty.
    package var message: String

    /// Makes an error from its name and message.
    package init(name: String, message: String = "") {
        self.name = name
        self.message = message
    }

    /// The name and the message, for logs.
    package var description: String { message.isEmpty ? name : "\(name): \(message)" }

    /// `org.freedesktop.DBus.Error.Failed`: a generic failure.
    package static let failed = "org.freedesktop.DBus.Error.Failed"
    /// `org.freedesktop.DBus.Error.InvalidArgs`: wrong argument types or values.
    package static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    /// `org.freedesktop.DBus.Error.UnknownMethod`: no such method on the interface.
    package static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    /// `org.freedesktop.DBus.Error.UnknownObject`: no object at the path.
    package static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
    /// `org.freedesktop.DBus.Error.UnknownInterface`: the object has no such interface.
    package static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
    /// `org.freedesktop.DBus.Error.UnknownProperty`: the interface has no such property.
    package static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
    /// `org.freedesktop.DBus.Error.PropertyReadOnly`: `Set` on a read-only property.
    package static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
    /// `org.freedesktop.DBus.Error.AccessDenied`: the caller may not do this.
    package static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    /// `org.freedesktop.DBus.Error.ServiceUnknown`: no owner for the destination and no activation.
    package static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    /// `org.freedesktop.DBus.Error.NoReply`: the call timed out or the peer went away.
    package static let noReply = "org.freedesktop.DBus.Error.NoReply"
    /// `org.freedesktop.DBus.Error.NameHasNoOwner`: the name is not owned.
    package static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
    /// `org.freedesktop.DBus.Error.Disconnected`: the connection is closed.
    package static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
    /// `org.freedesktop.DBus.Error.NoServer`: no bus to connect to.
    package static let noServer = "org.freedesktop.DBus.Error.NoServer"
    /// `org.freedesktop.DBus.Error.NotSupported`: something this module or the peer cannot do.
    package static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
    /// `org.freedesktop.DBus.Error.InconsistentMessage`: a message whose parts do not agree (such
    /// as a file descriptor its body names but that did not come with it).
    package static let inconsistentMessage = "org.freedesktop.DBus.Error.InconsistentMessage"
    /// `org.freedesktop.DBus.Error.ObjectPathInUse`: an object is already exported at the path.
    package static let objectPathInUse = "org.freedesktop.DBus.Error.ObjectPathInUse"
    /// `org.freedesktop.DBus.Error.MatchRuleInvalid`: `AddMatch` refused the rule.
    package static let matchRuleInvalid = "org.freedesktop.DBus.Error.MatchRuleInvalid"
    /// A message's arguments hold more than this module reads (`MessageReader`'s limits).
    package static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"

    /// The error thrown for any use of a closed or lost connection.
    static func connectionClosed() -> DBusError {
        DBusError(name: disconnected, message: "The D-Bus connection is closed")
    }

    /// An `InvalidArgs` error with the message.
    static func invalidArguments(_ message: String) -> DBusError {
        DBusError(name: invalidArgs, message: message)
    }
}

extension DBusError {
    /// Takes the error out of a set libdbus `DBusError` struct and frees it (`dbus_error_free`);
    /// nil when the struct is not set (`dbus_error_is_set`).
    static func take(_ error: inout CDBus.DBusError) -> DBusError? {
        guard dbus_error_is_set(&error) != 0 else { return nil }
        defer { dbus_error_free(&error) }
        return DBusError(
            name: error.name.map { String(cString: $0) } ?? failed,
            message: error.message.map { String(cString: $0) } ?? "")
    }
}
