/// Writes `DBusValue`s in the D-Bus wire format (the specification's "Marshaling"), in the
/// machine's byte order, into one growing byte array: a message's body, and a header around it.
///
/// This is what `dbus_message_iter_append_basic` and `_open_container` do, without their cost per
/// value (a type-writer step, a signature copy and check, a realloc for each value and container):
/// a message of one alarm took the agent's engine tens of microseconds through libdbus, a sixth of
/// its time under load. libdbus still checks every message it is handed (`dbus_message_demarshal`
/// validates the header and walks the body against its signature), so a mistake here is a refused
/// message, never a malformed one on the bus.
///
/// The values must have passed `Validation.checkArguments`: element types match their arrays, and
/// no string holds a NUL byte. Unix file descriptors (`h`) are not written here: they travel beside
/// the bytes, which only libdbus can arrange (`MessageWriter`).
struct WireEncoder {
    /// The bytes written so far; offsets (and so alignment) count from the first.
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Whether any value holds a Unix file descriptor, which this encoder cannot write.
    static func containsFileDescriptor(_ values: [DBusValue]) -> Bool {
        values.contains { value in
            switch value {
            case .unixFD: true
            case .variant(let inner): containsFileDescriptor([inner])
            case .array(let element, let elements): element.utf8.contains(UInt8(ascii: "h")) || containsFileDescriptor(elements)
            case .dictEntry(let key, let inner): containsFileDescriptor([key, inner])
            case .structure(let fields): containsFileDescriptor(fields)
            default: false
            }
        }
    }

    // MARK: - Values

    /// Appends values one after another, each at its alignment.
    mutating func write(_ values: [DBusValue]) {
        for value in values { write(value) }
    }

    /// Appends one value at its alignment.
    mutating func write(_ value: DBusValue) {
        switch value {
        case .byte(let v): bytes.append(v)
        case .boolean(let v): writeInteger(UInt32(v ? 1 : 0))
        case .int16(let v): writeInteger(v)
        case .uint16(let v): writeInteger(v)
        case .int32(let v): writeInteger(v)
        case .uint32(let v): writeInteger(v)
        case .int64(let v): writeInteger(v)
        case .uint64(let v): writeInteger(v)
        case .double(let v): writeInteger(v.bitPattern)
        case .string(let text), .objectPath(let text): writeString(text)
        case .signature(let text): writeSignature(text)
        case .unixFD:
            // Never reached: messages with descriptors are built by libdbus (`containsFileDescriptor`).
            preconditionFailure("WireEncoder cannot write a Unix file descriptor")
        case .variant(let inner):
            writeSignature(inner.signature)
            write(inner)
        case .array(let element, let elements):
            pad(to: 4)
            let lengthAt = bytes.count
            writeInteger(UInt32(0))
            // The elements start at their own alignment, even when there are none; the length
            // counts from there.
            pad(to: Self.alignment(ofSignature: element))
            let start = bytes.count
            for item in elements { write(item) }
            setInteger(UInt32(bytes.count - start), at: lengthAt)
        case .dictEntry(let key, let inner):
            pad(to: 8)
            write(key)
            write(inner)
        case .structure(let fields):
            pad(to: 8)
            for field in fields { write(field) }
        }
    }

    /// A string or object path: its length in bytes, the bytes, and a NUL.
    mutating func writeString(_ text: String) {
        pad(to: 4)
        let lengthAt = bytes.count
        writeInteger(UInt32(0))
        let start = bytes.count
        appendUTF8(text)
        setInteger(UInt32(bytes.count - start), at: lengthAt)
        bytes.append(0)
    }

    /// A signature: its length in one byte, the bytes, and a NUL (signatures are at most 255 bytes).
    mutating func writeSignature(_ text: String) {
        let lengthAt = bytes.count
        bytes.append(0)
        appendUTF8(text)
        bytes[lengthAt] = UInt8(truncatingIfNeeded: bytes.count - lengthAt - 1)
        bytes.append(0)
    }

    private mutating func appendUTF8(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// An integer at its natural alignment, in the machine's byte order (the message says which).
    mutating func writeInteger<T: FixedWidthInteger>(_ value: T) {
        pad(to: MemoryLayout<T>.size)
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    private mutating func setInteger(_ value: UInt32, at offset: Int) {
        withUnsafeBytes(of: value) { raw in
            for index in 0..<4 { bytes[offset + index] = raw[index] }
        }
    }

    /// Zero bytes up to the next multiple of `alignment`.
    mutating func pad(to alignment: Int) {
        let remainder = bytes.count % alignment
        if remainder != 0 { bytes.append(contentsOf: repeatElement(0, count: alignment - remainder)) }
    }

    /// The alignment of a value of a (valid, single complete) type.
    static func alignment(ofSignature signature: String) -> Int {
        switch signature.utf8.first {
        case UInt8(ascii: "n"), UInt8(ascii: "q"): 2
        case UInt8(ascii: "b"), UInt8(ascii: "i"), UInt8(ascii: "u"), UInt8(ascii: "s"), UInt8(ascii: "o"),
            UInt8(ascii: "a"), UInt8(ascii: "h"):
            4
        case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "("), UInt8(ascii: "{"): 8
        default: 1  // y, g, v
        }
    }

    // MARK: - A whole message

    /// The header fields a message may carry (the specification's `HEADER_FIELD_*` codes).
    struct Header {
        /// `DBUS_MESSAGE_TYPE_*`: 1 method call, 2 method return, 3 error, 4 signal.
        var type: UInt8
        /// `NO_REPLY_EXPECTED` (1), `NO_AUTO_START` (2), `ALLOW_INTERACTIVE_AUTHORIZATION` (4).
        var flags: UInt8 = 0
        var path: String?
        var interface: String?
        var member: String?
        var errorName: String?
        var replySerial: UInt32?
        var destination: String?
    }

    /// A whole message, header and body, as `dbus_message_demarshal` reads it. Its serial is 1, a
    /// placeholder (a serial of 0 is invalid on the wire); `dbus_message_copy` clears it, and
    /// sending stamps the connection's next.
    static func message(_ header: Header, body values: [DBusValue], signature: String) -> [UInt8] {
        var body = WireEncoder()
        body.write(values)
        var message = WireEncoder(capacity: 128 + body.bytes.count)
        message.bytes.append(Self.byteOrderMark)
        message.bytes.append(header.type)
        message.bytes.append(header.flags)
        message.bytes.append(1)  // the protocol version
        message.writeInteger(UInt32(body.bytes.count))
        message.writeInteger(UInt32(1))
        // The header fields: an array of (code, variant) structures.
        message.writeInteger(UInt32(0))
        let start = message.bytes.count  // 16: already 8-aligned
        func field(_ code: UInt8, _ type: String, _ write: (inout WireEncoder) -> Void) {
            message.pad(to: 8)
            message.bytes.append(code)
            message.writeSignature(type)
            write(&message)
        }
        if let path = header.path { field(1, "o") { $0.writeString(path) } }
        if let interface = header.interface { field(2, "s") { $0.writeString(interface) } }
        if let member = header.member { field(3, "s") { $0.writeString(member) } }
        if let errorName = header.errorName { field(4, "s") { $0.writeString(errorName) } }
        if let replySerial = header.replySerial { field(5, "u") { $0.writeInteger(replySerial) } }
        if let destination = header.destination { field(6, "s") { $0.writeString(destination) } }
        if !signature.isEmpty { field(8, "g") { $0.writeSignature(signature) } }
        message.setInteger(UInt32(message.bytes.count - start), at: 12)
        message.pad(to: 8)
        message.bytes.append(contentsOf: body.bytes)
        return message.bytes
    }

    /// `l` on a little-endian machine, `B` on a big-endian one: the order `writeInteger` uses.
    static let byteOrderMark: UInt8 = UInt32(1).littleEndian == 1 ? UInt8(ascii: "l") : UInt8(ascii: "B")
}
