import CDBus
import Synchronization

/// A D-Bus message (a libdbus `DBusMessage*`): a method call, method return, error or signal,
/// with its header fields and its arguments read into `DBusValue`s.
///
/// A message is immutable once built: the builders (`methodCall`, `signal`, `methodReturn`,
/// `error`) validate and append every argument before returning, and a received message's header
/// is read on the connection's loop thread before anyone else sees it. After that, the C message
/// is only touched by `dbus_message_unref` (atomic reference count), by
/// `dbus_message_new_method_return`/`new_error` (header reads of a received message), by reading
/// its arguments once (an iterator over the body, which changes nothing in the message, under
/// `reading`) and by sending, which stamps the serial; sending and `serial` hold `lock`.
package final class DBusMessage: @unchecked Sendable {  // safe: immutable but the serial, kept under `lock`
    // In full: immutable after init; the only C mutation (the serial, on send) and its read are serialized by `lock`,
    // the one body read by `reading`
    /// The kind of message (`dbus_message_get_type`).
    package enum MessageType: Sendable, Hashable {
        /// `DBUS_MESSAGE_TYPE_METHOD_CALL`
        case methodCall
        /// `DBUS_MESSAGE_TYPE_METHOD_RETURN`
        case methodReturn
        /// `DBUS_MESSAGE_TYPE_ERROR`
        case error
        /// `DBUS_MESSAGE_TYPE_SIGNAL`
        case signal
        /// A type this module does not know.
        case unknown

        /// The type of a `dbus_message_get_type` code.
        init(code: Int32) {
            switch code {
            case 1: self = .methodCall  // DBUS_MESSAGE_TYPE_METHOD_CALL
            case 2: self = .methodReturn  // DBUS_MESSAGE_TYPE_METHOD_RETURN
            case 3: self = .error  // DBUS_MESSAGE_TYPE_ERROR
            case 4: self = .signal  // DBUS_MESSAGE_TYPE_SIGNAL
            default: self = .unknown
            }
        }
    }

    /// The `DBusMessage*`, owning one reference.
    let pointer: OpaquePointer
    /// Serializes sending (which assigns the serial) with reading the serial.
    let lock = Mutex<Void>(())

    /// The message type (`dbus_message_get_type`).
    package let type: MessageType
    /// The sender's unique name (`dbus_message_get_sender`); set by the bus on received messages.
    package let sender: String?
    /// The destination bus name (`dbus_message_get_destination`); nil for broadcast signals.
    package let destination: String?
    /// The object path (`dbus_message_get_path`) of a method call or signal.
    package let path: String?
    /// The interface (`dbus_message_get_interface`) of a method call or signal.
    package let interface: String?
    /// The method or signal name (`dbus_message_get_member`).
    package let member: String?
    /// The error name of an error reply (`dbus_message_get_error_name`).
    package let errorName: String?
    /// The signature of the arguments (`dbus_message_get_signature`).
    package let signature: String
    /// The serial this message answers (`dbus_message_get_reply_serial`); 0 when it answers none.
    package let replySerial: UInt32
    /// Whether the caller wants no reply (`dbus_message_get_no_reply`).
    package let noReplyExpected: Bool
    /// Whether the message carries Unix file descriptors (`dbus_message_contains_unix_fds`).
    package let containsFileDescriptors: Bool
    /// The arguments, read when first asked for (a message no one looks into, such as a signal no
    /// one subscribed to, is never read). Empty when they could not be read; then
    /// `argumentError` says why.
    package var arguments: [DBusValue] { (try? decoded.get()) ?? [] }
    /// Why the arguments could not be read (for example a file descriptor, type `h`, that the
    /// body names but that did not come with the message, or more than `MessageReader`'s limits);
    /// nil when they were read.
    package var argumentError: DBusError? {
        if case .failure(let error) = decoded { return error }
        return nil
    }
    /// The arguments as read, once: the first reader reads them (`MessageReader`), under `reading`.
    private var decoded: Result<[DBusValue], DBusError> {
        reading.withLock { known in
            if let known { return known }
            let result = Result { () throws(DBusError) in try MessageReader.arguments(of: pointer) }
            known = result
            return result
        }
    }
    private let reading: Mutex<Result<[DBusValue], DBusError>?>

    /// The serial number (`dbus_message_get_serial`); 0 until the message is sent.
    package var serial: UInt32 {
        lock.withLock { _ in dbus_message_get_serial(pointer) }
    }

    /// The message of an error reply: its first argument when that is a string.
    package var errorMessage: String? {
        guard type == .error, case .string(let text)? = arguments.first else { return nil }
        return text
    }

    /// Wraps a C message, taking over one reference, and reads its header (its arguments are read
    /// when first asked for). Call on the thread that owns the message (the loop thread for
    /// received messages).
    init(taking pointer: OpaquePointer, arguments known: [DBusValue]? = nil) {
        self.pointer = pointer
        type = MessageType(code: dbus_message_get_type(pointer))
        func text(_ value: UnsafePointer<CChar>?) -> String? { value.map { String(cString: $0) } }
        sender = text(dbus_message_get_sender(pointer))
        destination = text(dbus_message_get_destination(pointer))
        path = text(dbus_message_get_path(pointer))
        interface = text(dbus_message_get_interface(pointer))
        member = text(dbus_message_get_member(pointer))
        errorName = text(dbus_message_get_error_name(pointer))
        signature = text(dbus_message_get_signature(pointer)) ?? ""
        replySerial = dbus_message_get_reply_serial(pointer)
        noReplyExpected = dbus_message_get_no_reply(pointer) != 0
        containsFileDescriptors = dbus_message_contains_unix_fds(pointer) != 0
        reading = Mutex(known.map { .success($0) })
    }

    /// Wraps a C message that is referenced elsewhere (`dbus_message_ref`).
    convenience init(referencing pointer: OpaquePointer) {
        self.init(taking: dbus_message_ref(pointer))
    }

    deinit { dbus_message_unref(pointer) }

    /// The arguments, throwing `argumentError` when they could not be read.
    package func decodedArguments() throws(DBusError) -> [DBusValue] {
        if let argumentError { throw argumentError }
        return arguments
    }

    /// Builds a finished message from a fresh C message: validates and appends the arguments.
    private static func build(
        _ make: () -> OpaquePointer?, arguments: [DBusValue], configure: (OpaquePointer) -> Bool = { _ in true }
    ) throws(DBusError) -> DBusMessage {
        try Validation.checkArguments(arguments)
        guard let pointer = make() else {
            throw DBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: "Could not create a message")
        }
        guard configure(pointer) else {
            dbus_message_unref(pointer)
            throw DBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: "Could not set a header field")
        }
        do {
            try MessageWriter.append(arguments, to: pointer)
        } catch {
            dbus_message_unref(pointer)
            throw error
        }
        return DBusMessage(taking: pointer, arguments: arguments)
    }

    /// The same message addressed to `destination` (`dbus_message_copy`,
    /// `dbus_message_set_destination`): the header and the marshalled arguments are copied as
    /// bytes, not built again. The copy is unsent, with no serial.
    package func copy(to destination: String) throws(DBusError) -> DBusMessage {
        try Validation.require(Validation.isValidBusName(destination), "Invalid bus name \(destination.debugDescription)")
        // The serial a send stamps is read under `lock`; the copy starts without one.
        guard let copy = lock.withLock({ _ in dbus_message_copy(pointer) }) else {
            throw DBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: "Could not copy a message")
        }
        guard dbus_message_set_destination(copy, destination) != 0 else {
            dbus_message_unref(copy)
            throw DBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: "Could not set a header field")
        }
        return DBusMessage(taking: copy, arguments: arguments)
    }

    /// A method call (`dbus_message_new_method_call`); throws `InvalidArgs` for an invalid name,
    /// path or argument.
    package static func methodCall(
        destination: String?, path: String, interface: String?, method: String, arguments: [DBusValue] = []
    ) throws(DBusError) -> DBusMessage {
        if let destination {
            try Validation.require(Validation.isValidBusName(destination), "Invalid bus name \(destination.debugDescription)")
        }
        try Validation.require(Validation.isValidPath(path), "Invalid object path \(path.debugDescription)")
        if let interface {
            try Validation.require(Validation.isValidInterface(interface), "Invalid interface \(interface.debugDescription)")
        }
        try Validation.require(Validation.isValidMember(method), "Invalid method name \(method.debugDescription)")
        return try build({ dbus_message_new_method_call(destination, path, interface, method) }, arguments: arguments)
    }

    /// A signal (`dbus_message_new_signal`), broadcast unless `destination` names one connection
    /// (`dbus_message_set_destination`); throws `InvalidArgs` for an invalid name, path or argument.
    package static func signal(
        path: String, interface: String, name: String, arguments: [DBusValue] = [], destination: String? = nil
    ) throws(DBusError) -> DBusMessage {
        try Validation.require(Validation.isValidPath(path), "Invalid object path \(path.debugDescription)")
        try Validation.require(Validation.isValidInterface(interface), "Invalid interface \(interface.debugDescription)")
        try Validation.require(Validation.isValidMember(name), "Invalid signal name \(name.debugDescription)")
        if let destination {
            try Validation.require(Validation.isValidBusName(destination), "Invalid bus name \(destination.debugDescription)")
        }
        return try build(
            { dbus_message_new_signal(path, interface, name) }, arguments: arguments,
            configure: { destination == nil || dbus_message_set_destination($0, destination) != 0 })
    }

    /// The successful reply to a method call (`dbus_message_new_method_return`).
    package static func methodReturn(replyingTo call: DBusMessage, arguments: [DBusValue] = []) throws(DBusError) -> DBusMessage {
        try build({ dbus_message_new_method_return(call.pointer) }, arguments: arguments)
    }

    /// An error reply to a method call (`dbus_message_new_error`); an invalid error name is
    /// replaced by `org.freedesktop.DBus.Error.Failed`.
    package static func error(replyingTo call: DBusMessage, name: String, message: String) -> DBusMessage {
        let validName = Validation.isValidErrorName(name) ? name : DBusError.failed
        let text = Validation.containsNUL(message) ? String(message.split(separator: "\0").joined()) : message
        // `dbus_message_new_error` appends the message as one string argument.
        let pointer = dbus_message_new_error(call.pointer, validName, text)!
        return DBusMessage(taking: pointer, arguments: [.string(text)])
    }

    /// Makes this message want no reply (`dbus_message_set_no_reply`); only before it is shared.
    func setNoReply() {
        lock.withLock { _ in dbus_message_set_no_reply(pointer, 1) }
    }
}

extension DBusMessage: CustomStringConvertible {
    /// The message type and header fields, for logs.
    package var description: String {
        var parts = ["\(type)"]
        if let sender { parts.append("sender=\(sender)") }
        if let destination { parts.append("destination=\(destination)") }
        if let path { parts.append("path=\(path)") }
        if let interface { parts.append("interface=\(interface)") }
        if let member { parts.append("member=\(member)") }
        if let errorName { parts.append("error=\(errorName)") }
        parts.append("signature=\(signature)")
        return "DBusMessage(" + parts.joined(separator: " ") + ")"
    }
}
