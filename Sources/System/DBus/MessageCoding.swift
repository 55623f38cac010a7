import CDBus

#if canImport(Glibc)
import Glibc
#endif

/// The D-Bus type codes (`DBUS_TYPE_*`, macros that do not import), as the `int` libdbus uses.
enum TypeCode {
    static let invalid: Int32 = 0
    static let byte = Int32(UInt8(ascii: "y"))
    static let boolean = Int32(UInt8(ascii: "b"))
    static let int16 = Int32(UInt8(ascii: "n"))
    static let uint16 = Int32(UInt8(ascii: "q"))
    static let int32 = Int32(UInt8(ascii: "i"))
    static let uint32 = Int32(UInt8(ascii: "u"))
    static let int64 = Int32(UInt8(ascii: "x"))
    static let uint64 = Int32(UInt8(ascii: "t"))
    static let double = Int32(UInt8(ascii: "d"))
    static let string = Int32(UInt8(ascii: "s"))
    static let objectPath = Int32(UInt8(ascii: "o"))
    static let signature = Int32(UInt8(ascii: "g"))
    static let unixFD = Int32(UInt8(ascii: "h"))
    static let array = Int32(UInt8(ascii: "a"))
    static let variant = Int32(UInt8(ascii: "v"))
    static let structure = Int32(UInt8(ascii: "r"))
    static let dictEntry = Int32(UInt8(ascii: "e"))
}

/// Checks of names and values against the D-Bus rules, with libdbus's own validators
/// (`dbus_validate_*`, `dbus_signature_validate*`), so that nothing invalid reaches the
/// `dbus_message_*` calls (which would print a warning and fail).
enum Validation {
    static func isValidPath(_ path: String) -> Bool {
        !path.utf8.contains(0) && dbus_validate_path(path, nil) != 0
    }

    static func isValidInterface(_ name: String) -> Bool {
        !name.utf8.contains(0) && dbus_validate_interface(name, nil) != 0
    }

    static func isValidMember(_ name: String) -> Bool {
        !name.utf8.contains(0) && dbus_validate_member(name, nil) != 0
    }

    static func isValidErrorName(_ name: String) -> Bool {
        !name.utf8.contains(0) && dbus_validate_error_name(name, nil) != 0
    }

    static func isValidBusName(_ name: String) -> Bool {
        !name.utf8.contains(0) && dbus_validate_bus_name(name, nil) != 0
    }

    /// A signature of zero or more complete types.
    static func isValidSignature(_ signature: String) -> Bool {
        signature.isEmpty || isCommonSingleType(signature)
            || (!signature.utf8.contains(0) && dbus_signature_validate(signature, nil) != 0)
    }

    /// A signature of exactly one complete type.
    static func isValidSingleType(_ signature: String) -> Bool {
        isCommonSingleType(signature)
            || (!signature.utf8.contains(0) && dbus_signature_validate_single(signature, nil) != 0)
    }

    /// Whether the signature is a basic type, a variant or one of the few containers sent all the
    /// time: valid without asking libdbus, which would copy and walk it again for every variant
    /// and array of every message.
    private static func isCommonSingleType(_ signature: String) -> Bool {
        switch signature {
        case "y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g", "h", "v",
            "as", "ay", "ao", "a{sv}", "a{ss}", "aa{sv}", "a{sa{sv}}", "a{oa{sa{sv}}}":
            true
        default:
            false
        }
    }

    /// Whether the text holds a NUL byte, which a D-Bus string cannot: `memchr` over the UTF-8
    /// bytes, so a mebibyte string costs microseconds, not a byte-by-byte walk.
    static func containsNUL(_ text: String) -> Bool {
        if let found = text.utf8.withContiguousStorageIfAvailable({ bytes in
            bytes.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false
        }) {
            return found
        }
        return text.utf8.contains(0)
    }

    static func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(DBusError) {
        if !condition { throw DBusError.invalidArguments(message()) }
    }

    /// Throws `InvalidArgs` naming the first of a message's arguments that cannot be sent.
    static func checkArguments(_ values: [DBusValue]) throws(DBusError) {
        var signature = ""
        for value in values {
            if case .dictEntry = value {
                throw DBusError.invalidArguments("A dictionary entry can only be an array element")
            }
            signature += try checkedSignature(value)
        }
        try require(isValidSignature(signature), "Invalid message signature \(signature)")
    }

    /// Throws `InvalidArgs` naming the first part of `value` that cannot be sent.
    static func check(_ value: DBusValue) throws(DBusError) {
        let signature = try checkedSignature(value)
        if case .dictEntry = value {
            try require(isValidSingleType("a" + signature), "Invalid dictionary entry type \(signature)")
        } else {
            try require(isValidSingleType(signature), "Invalid type \(signature)")
        }
    }

    /// Checks the parts of `value` that its signature cannot show (text without NUL, valid paths
    /// and signatures, array elements of the declared type, each variant's own type) and returns
    /// the signature, built once from the leaves up; the caller validates the whole signature once.
    private static func checkedSignature(_ value: DBusValue) throws(DBusError) -> String {
        switch value {
        case .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .unixFD:
            return value.signature
        case .string(let text):
            try require(!containsNUL(text), "A D-Bus string cannot contain NUL")
            return "s"
        case .objectPath(let path):
            try require(isValidPath(path), "Invalid object path \(path.debugDescription)")
            return "o"
        case .signature(let signature):
            try require(isValidSignature(signature), "Invalid signature \(signature.debugDescription)")
            return "g"
        case .variant(let inner):
            let innerSignature = try checkedSignature(inner)
            try require(isValidSingleType(innerSignature), "Invalid variant type \(innerSignature)")
            return "v"
        case .array(let element, let elements):
            try require(isValidSingleType("a" + element), "Invalid array element type \(element.debugDescription)")
            for item in elements {
                let itemSignature = try checkedSignature(item)
                try require(itemSignature == element, "Array of \(element) holds an element of type \(itemSignature)")
            }
            return "a" + element
        case .dictEntry(let key, let inner):
            return "{" + (try checkedSignature(key)) + (try checkedSignature(inner)) + "}"
        case .structure(let fields):
            try require(!fields.isEmpty, "A D-Bus structure needs at least one field")
            var signature = "("
            for field in fields { signature += try checkedSignature(field) }
            return signature + ")"
        }
    }
}

/// Writing `DBusValue`s into a message with `DBusMessageIter` (`dbus_message_iter_append_basic`,
/// `dbus_message_iter_open_container`, `dbus_message_iter_close_container`).
enum MessageWriter {
    /// Appends the values as the message's arguments. The values must have passed
    /// `Validation.check`; a libdbus failure here is out of memory.
    static func append(_ values: [DBusValue], to message: OpaquePointer) throws(DBusError) {
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message, &iterator)
        for value in values {
            try append(value, to: &iterator)
        }
    }

    private static func outOfMemory() -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: "libdbus ran out of memory")
    }

    private static func appendBasic<T>(_ value: T, type: Int32, to iterator: inout DBusMessageIter) throws(DBusError) {
        var copy = value
        let ok = withUnsafeMutablePointer(to: &copy) { dbus_message_iter_append_basic(&iterator, type, $0) }
        if ok == 0 { throw outOfMemory() }
    }

    private static func appendString(_ text: String, type: Int32, to iterator: inout DBusMessageIter) throws(DBusError) {
        let ok = text.withCString { pointer in
            var stringPointer: UnsafePointer<CChar>? = pointer
            return dbus_message_iter_append_basic(&iterator, type, &stringPointer)
        }
        if ok == 0 { throw outOfMemory() }
    }

    private static func appendContainer(
        _ type: Int32, signature: String?, to iterator: inout DBusMessageIter,
        _ body: (inout DBusMessageIter) throws(DBusError) -> Void
    ) throws(DBusError) {
        var sub = DBusMessageIter()
        let opened: dbus_bool_t
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iterator, type, $0, &sub) }
        } else {
            opened = dbus_message_iter_open_container(&iterator, type, nil, &sub)
        }
        if opened == 0 { throw outOfMemory() }
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iterator, &sub)
            throw error
        }
        if dbus_message_iter_close_container(&iterator, &sub) == 0 { throw outOfMemory() }
    }

    static func append(_ value: DBusValue, to iterator: inout DBusMessageIter) throws(DBusError) {
        switch value {
        case .byte(let v): try appendBasic(v, type: TypeCode.byte, to: &iterator)
        case .boolean(let v): try appendBasic(dbus_bool_t(v ? 1 : 0), type: TypeCode.boolean, to: &iterator)
        case .int16(let v): try appendBasic(v, type: TypeCode.int16, to: &iterator)
        case .uint16(let v): try appendBasic(v, type: TypeCode.uint16, to: &iterator)
        case .int32(let v): try appendBasic(v, type: TypeCode.int32, to: &iterator)
        case .uint32(let v): try appendBasic(v, type: TypeCode.uint32, to: &iterator)
        case .int64(let v): try appendBasic(v, type: TypeCode.int64, to: &iterator)
        case .uint64(let v): try appendBasic(v, type: TypeCode.uint64, to: &iterator)
        case .double(let v): try appendBasic(v, type: TypeCode.double, to: &iterator)
        case .string(let v): try appendString(v, type: TypeCode.string, to: &iterator)
        case .objectPath(let v): try appendString(v, type: TypeCode.objectPath, to: &iterator)
        case .signature(let v): try appendString(v, type: TypeCode.signature, to: &iterator)
        case .unixFD(let descriptor):
            // libdbus keeps a duplicate (`dbus_message_iter_append_basic`), closed with the message.
            try appendBasic(descriptor.rawValue, type: TypeCode.unixFD, to: &iterator)
        case .variant(let inner):
            try appendContainer(TypeCode.variant, signature: inner.signature, to: &iterator) { (sub) throws(DBusError) in
                try append(inner, to: &sub)
            }
        case .array(let element, let elements):
            try appendContainer(TypeCode.array, signature: element, to: &iterator) { (sub) throws(DBusError) in
                for item in elements { try append(item, to: &sub) }
            }
        case .dictEntry(let key, let inner):
            try appendContainer(TypeCode.dictEntry, signature: nil, to: &iterator) { (sub) throws(DBusError) in
                try append(key, to: &sub)
                try append(inner, to: &sub)
            }
        case .structure(let fields):
            try appendContainer(TypeCode.structure, signature: nil, to: &iterator) { (sub) throws(DBusError) in
                for field in fields { try append(field, to: &sub) }
            }
        }
    }
}

/// Reading a message's arguments into `DBusValue`s with `DBusMessageIter`
/// (`dbus_message_iter_init`, `_get_arg_type`, `_get_basic`, `_recurse`, `_next`).
///
/// Each Unix file descriptor (`h`) is read as a duplicate that the value owns; one the message
/// names but did not bring (its index past the descriptors received) makes the arguments
/// unreadable (`org.freedesktop.DBus.Error.InconsistentMessage`).
///
/// What one message may hold is bounded, so that no message can make its reader take more than
/// about 100 MB: at most `maximumValues` values (each byte of an `ay` is one) and
/// `maximumTextBytes` bytes of strings, object paths and signatures. A message past either limit is
/// not read: `org.freedesktop.DBus.Error.LimitsExceeded`, named, as for any unreadable message.
enum MessageReader {
    /// The most values one message's arguments may hold.
    static let maximumValues = 1_000_000
    /// The most bytes of text one message's arguments may hold.
    static let maximumTextBytes = 32 << 20

    /// What is left of a message's limits while it is read.
    struct Budget {
        var values = MessageReader.maximumValues
        var textBytes = MessageReader.maximumTextBytes

        /// Takes `count` values (and `bytes` of text) from the budget; throws past either limit.
        mutating func take(_ count: Int, textBytes bytes: Int = 0) throws(DBusError) {
            values -= count
            textBytes -= bytes
            guard values >= 0, textBytes >= 0 else {
                throw DBusError(
                    name: DBusError.limitsExceeded,
                    message: "The message's arguments hold more than \(MessageReader.maximumValues) values or "
                        + "\(MessageReader.maximumTextBytes >> 20) MiB of text; not read")
            }
        }
    }

    static func arguments(of message: OpaquePointer) throws(DBusError) -> [DBusValue] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(message, &iterator) != 0 else { return [] }
        var budget = Budget()
        return try readAll(&iterator, &budget)
    }

    private static func readAll(_ iterator: inout DBusMessageIter, _ budget: inout Budget) throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iterator) != TypeCode.invalid {
            values.append(try read(&iterator, &budget))
            dbus_message_iter_next(&iterator)
        }
        return values
    }

    private static func basic<T>(_ iterator: inout DBusMessageIter, _ zero: T) -> T {
        var value = zero
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iterator, $0) }
        return value
    }

    private static func string(_ iterator: inout DBusMessageIter, _ budget: inout Budget) throws(DBusError) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&iterator, &pointer)
        guard let pointer else { return "" }
        try budget.take(0, textBytes: strlen(pointer))
        return String(cString: pointer)
    }

    /// The signature of the single complete type at the iterator (`dbus_message_iter_get_signature`).
    private static func currentSignature(_ iterator: inout DBusMessageIter) -> String {
        guard let pointer = dbus_message_iter_get_signature(&iterator) else { return "" }
        defer { dbus_free(pointer) }
        return String(cString: pointer)
    }

    /// The signature of a basic type or a variant, from its type code; nil for other containers.
    private static func singleCodeSignature(_ type: Int32) -> String? {
        switch type {
        case TypeCode.byte, TypeCode.boolean, TypeCode.int16, TypeCode.uint16, TypeCode.int32, TypeCode.uint32,
            TypeCode.int64, TypeCode.uint64, TypeCode.double, TypeCode.string, TypeCode.objectPath,
            TypeCode.signature, TypeCode.unixFD, TypeCode.variant:
            String(UnicodeScalar(UInt8(type)))
        default:
            nil
        }
    }

    /// The element signature of the array at `iterator`, whose elements `elements` iterates.
    ///
    /// Arrays of basic types, variants and `{basic v}` dictionary entries (`a{sv}`, the common
    /// case) are told from their type codes; others ask libdbus for the signature, which allocates.
    private static func elementSignature(_ iterator: inout DBusMessageIter, elements: DBusMessageIter) -> String {
        let type = dbus_message_iter_get_element_type(&iterator)
        if let signature = singleCodeSignature(type) { return signature }
        var first = elements
        if type == TypeCode.dictEntry, dbus_message_iter_get_arg_type(&first) == TypeCode.dictEntry {
            var entry = DBusMessageIter()
            dbus_message_iter_recurse(&first, &entry)
            let keyType = dbus_message_iter_get_arg_type(&entry)
            dbus_message_iter_next(&entry)
            if keyType != TypeCode.variant, let key = singleCodeSignature(keyType),
                dbus_message_iter_get_arg_type(&entry) == TypeCode.variant
            {
                return "{" + key + "v}"
            }
        }
        return String(currentSignature(&iterator).dropFirst())
    }

    /// Reads the value at the iterator, without advancing it, within `budget`.
    static func read(_ iterator: inout DBusMessageIter, _ budget: inout Budget) throws(DBusError) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(&iterator)
        try budget.take(1)
        switch type {
        case TypeCode.byte: return .byte(basic(&iterator, UInt8(0)))
        case TypeCode.boolean: return .boolean(basic(&iterator, dbus_bool_t(0)) != 0)
        case TypeCode.int16: return .int16(basic(&iterator, Int16(0)))
        case TypeCode.uint16: return .uint16(basic(&iterator, UInt16(0)))
        case TypeCode.int32: return .int32(basic(&iterator, Int32(0)))
        case TypeCode.uint32: return .uint32(basic(&iterator, UInt32(0)))
        case TypeCode.int64: return .int64(basic(&iterator, Int64(0)))
        case TypeCode.uint64: return .uint64(basic(&iterator, UInt64(0)))
        case TypeCode.double: return .double(basic(&iterator, Double(0)))
        case TypeCode.string: return .string(try string(&iterator, &budget))
        case TypeCode.objectPath: return .objectPath(try string(&iterator, &budget))
        case TypeCode.signature: return .signature(try string(&iterator, &budget))
        case TypeCode.unixFD:
            // libdbus hands out a duplicate (close-on-exec) that the caller owns; -1 when the
            // index in the body names no descriptor the message brought.
            let descriptor = basic(&iterator, Int32(-1))
            guard descriptor >= 0 else {
                throw DBusError(
                    name: DBusError.inconsistentMessage,
                    message: "The message names a Unix file descriptor it did not carry")
            }
            return .unixFD(UnixFileDescriptor(taking: descriptor))
        case TypeCode.variant:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            return .variant(try read(&sub, &budget))
        case TypeCode.array:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            let element = elementSignature(&iterator, elements: sub)
            if dbus_message_iter_get_element_type(&iterator) == TypeCode.byte {
                return .array(elementSignature: element, try readBytes(&sub, &budget).map(DBusValue.byte))
            }
            return .array(elementSignature: element, try readAll(&sub, &budget))
        case TypeCode.dictEntry:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            let key = try read(&sub, &budget)
            dbus_message_iter_next(&sub)
            return .dictEntry(key, try read(&sub, &budget))
        case TypeCode.structure:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            return .structure(try readAll(&sub, &budget))
        default:
            throw DBusError(name: DBusError.notSupported, message: "Unknown D-Bus type code \(type)")
        }
    }

    /// The bytes of an `ay`, in one go (`dbus_message_iter_get_fixed_array`), counted against
    /// `budget` before anything is copied.
    private static func readBytes(_ sub: inout DBusMessageIter, _ budget: inout Budget) throws(DBusError) -> [UInt8] {
        var pointer: UnsafePointer<UInt8>? = nil
        var count: Int32 = 0
        withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_get_fixed_array(&sub, $0, &count) }
        guard let pointer, count > 0 else { return [] }
        try budget.take(Int(count))
        return Array(UnsafeBufferPointer(start: pointer, count: Int(count)))
    }
}

extension Array where Element == DBusValue {
    /// The signature of the values in order: a message body's signature.
    var signature: String { map(\.signature).joined() }
}
