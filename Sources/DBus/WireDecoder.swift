import CDBus

/// Reads a message's arguments from its wire bytes, guided by its signature, into `DBusValue`s:
/// what `MessageReader` does through libdbus's iterators (a call into libdbus, a type-reader
/// step and a signature walk for each value), in one pass over the bytes.
///
/// Only messages libdbus has checked are read here: received ones (libdbus validates each
/// message it reads from the socket, header and body against the signature) and ones it built.
/// The reading still stops at the end of the bytes, and keeps `MessageReader`'s limits
/// (`MessageReader.Budget`) and its results value for value. Messages it does not take
/// (`canRead(signature:bodyLength:byteOrder:)`) are read by `MessageReader`: those that carry Unix
/// file descriptors (they travel beside the bytes), bodies over a mebibyte (read in place rather
/// than copied out first) and the other byte order.
struct WireDecoder {
    private let bytes: UnsafeRawBufferPointer
    /// Where the body starts in `bytes`: alignment counts from there (it is 8-aligned).
    private let bodyStart: Int
    private var offset: Int
    private var budget = MessageReader.Budget()

    /// The largest body read from a copy of the message; larger ones are read in place by libdbus.
    static let largestBody = 1 << 20

    /// Whether this decoder reads a message of this signature, body length and byte order (the
    /// header's first byte).
    static func canRead(signature: String, bodyLength: Int, byteOrder: UInt8) -> Bool {
        byteOrder == WireEncoder.byteOrderMark && bodyLength <= largestBody && !signature.utf8.contains(UInt8(ascii: "h"))
    }

    /// The arguments of a message, read from a copy of its bytes (`dbus_message_marshal`), or
    /// through `MessageReader` when this decoder does not take it.
    static func arguments(of message: OpaquePointer) throws(DBusError) -> [DBusValue] {
        let signature = dbus_message_get_signature(message).map { String(cString: $0) } ?? ""
        if signature.isEmpty { return [] }
        // Descriptors (perhaps inside a variant, where the signature does not show them) are
        // handed out by libdbus.
        if dbus_message_contains_unix_fds(message) != 0 { return try MessageReader.arguments(of: message) }
        var buffer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(message, &buffer, &length) != 0, let buffer else {
            return try MessageReader.arguments(of: message)
        }
        defer { dbus_free(buffer) }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: Int(length))
        guard bytes.count >= 16 else { return try MessageReader.arguments(of: message) }
        let bodyLength = Int(bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        let fieldsLength = Int(bytes.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        let bodyStart = (16 + fieldsLength + 7) / 8 * 8
        guard canRead(signature: signature, bodyLength: bodyLength, byteOrder: bytes[0]),
            bodyStart + bodyLength == bytes.count
        else {
            return try MessageReader.arguments(of: message)
        }
        var decoder = WireDecoder(bytes: bytes, bodyStart: bodyStart)
        return try decoder.readAll(signature: Array(signature.utf8))
    }

    private init(bytes: UnsafeRawBufferPointer, bodyStart: Int) {
        self.bytes = bytes
        self.bodyStart = bodyStart
        offset = bodyStart
    }

    private static func inconsistent() -> DBusError {
        DBusError(name: DBusError.inconsistentMessage, message: "The message's body does not match its signature")
    }

    /// Reads values of each complete type in `signature`, one after another.
    mutating func readAll(signature: [UInt8]) throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        var index = 0
        while index < signature.count {
            let end = try Self.endOfType(in: signature, at: index)
            values.append(try read(signature[index..<end]))
            index = end
        }
        return values
    }

    /// The index just past the single complete type that starts at `index`.
    static func endOfType<Signature: RandomAccessCollection<UInt8>>(in signature: Signature, at index: Int) throws(DBusError) -> Int where Signature.Index == Int {
        guard index < signature.endIndex else { throw inconsistent() }
        switch signature[index] {
        case UInt8(ascii: "a"):
            return try endOfType(in: signature, at: index + 1)
        case UInt8(ascii: "("), UInt8(ascii: "{"):
            var depth = 0
            var position = index
            while position < signature.endIndex {
                switch signature[position] {
                case UInt8(ascii: "("), UInt8(ascii: "{"): depth += 1
                case UInt8(ascii: ")"), UInt8(ascii: "}"):
                    depth -= 1
                    if depth == 0 { return position + 1 }
                default: break
                }
                position += 1
            }
            throw inconsistent()
        default:
            return index + 1
        }
    }

    private mutating func align(_ alignment: Int) throws(DBusError) {
        let remainder = (offset - bodyStart) % alignment
        if remainder != 0 { offset += alignment - remainder }
        guard offset <= bytes.count else { throw Self.inconsistent() }
    }

    private mutating func integer<T: FixedWidthInteger>(_: T.Type) throws(DBusError) -> T {
        try align(MemoryLayout<T>.size)
        guard offset + MemoryLayout<T>.size <= bytes.count else { throw Self.inconsistent() }
        defer { offset += MemoryLayout<T>.size }
        return bytes.loadUnaligned(fromByteOffset: offset, as: T.self)
    }

    /// Text of `count` bytes at the offset, then its NUL.
    private mutating func text(count: Int) throws(DBusError) -> String {
        guard count >= 0, offset + count < bytes.count else { throw Self.inconsistent() }
        try budget.take(0, textBytes: count)
        defer { offset += count + 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]), as: UTF8.self)
    }

    private mutating func signatureText() throws(DBusError) -> String {
        guard offset < bytes.count else { throw Self.inconsistent() }
        let count = Int(bytes[offset])
        offset += 1
        return try text(count: count)
    }

    /// Reads one value of the single complete type `type`.
    private mutating func read(_ type: ArraySlice<UInt8>) throws(DBusError) -> DBusValue {
        try budget.take(1)
        switch type.first {
        case UInt8(ascii: "y"):
            guard offset < bytes.count else { throw Self.inconsistent() }
            defer { offset += 1 }
            return .byte(bytes[offset])
        case UInt8(ascii: "b"): return .boolean(try integer(UInt32.self) != 0)
        case UInt8(ascii: "n"): return .int16(try integer(Int16.self))
        case UInt8(ascii: "q"): return .uint16(try integer(UInt16.self))
        case UInt8(ascii: "i"): return .int32(try integer(Int32.self))
        case UInt8(ascii: "u"): return .uint32(try integer(UInt32.self))
        case UInt8(ascii: "x"): return .int64(try integer(Int64.self))
        case UInt8(ascii: "t"): return .uint64(try integer(UInt64.self))
        case UInt8(ascii: "d"): return .double(Double(bitPattern: try integer(UInt64.self)))
        case UInt8(ascii: "s"): return .string(try text(count: Int(try integer(UInt32.self))))
        case UInt8(ascii: "o"): return .objectPath(try text(count: Int(try integer(UInt32.self))))
        case UInt8(ascii: "g"): return .signature(try signatureText())
        case UInt8(ascii: "v"):
            // The variant's own signature is text too, as `MessageReader` does not count it.
            guard offset < bytes.count else { throw Self.inconsistent() }
            let count = Int(bytes[offset])
            guard offset + 1 + count < bytes.count else { throw Self.inconsistent() }
            let inner = Array(UnsafeRawBufferPointer(rebasing: bytes[(offset + 1)..<(offset + 1 + count)]))
            offset += count + 2
            guard try Self.endOfType(in: inner, at: 0) == inner.count else { throw Self.inconsistent() }
            return .variant(try read(inner[...]))
        case UInt8(ascii: "a"):
            let length = Int(try integer(UInt32.self))
            let element = type.dropFirst()
            try align(WireEncoder.alignment(ofTypeCode: element.first))
            let end = offset + length
            guard end <= bytes.count else { throw Self.inconsistent() }
            let elementSignature = String(decoding: element, as: UTF8.self)
            if element.first == UInt8(ascii: "y") {
                try budget.take(length)
                defer { offset = end }
                return .array(elementSignature: elementSignature, UnsafeRawBufferPointer(rebasing: bytes[offset..<end]).map(DBusValue.byte))
            }
            var elements: [DBusValue] = []
            while offset < end { elements.append(try read(element)) }
            guard offset == end else { throw Self.inconsistent() }
            return .array(elementSignature: elementSignature, elements)
        case UInt8(ascii: "{"):
            try align(8)
            let inner = type.dropFirst().dropLast()
            let keyEnd = try Self.endOfType(in: inner, at: inner.startIndex)
            let key = try read(inner[inner.startIndex..<keyEnd])
            return .dictEntry(key, try read(inner[keyEnd...]))
        case UInt8(ascii: "("):
            try align(8)
            let inner = type.dropFirst().dropLast()
            var fields: [DBusValue] = []
            var index = inner.startIndex
            while index < inner.endIndex {
                let end = try Self.endOfType(in: inner, at: index)
                fields.append(try read(inner[index..<end]))
                index = end
            }
            return .structure(fields)
        default:
            throw DBusError(name: DBusError.notSupported, message: "Unknown D-Bus type code \(type.first.map(String.init) ?? "none")")
        }
    }
}
