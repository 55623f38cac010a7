/// The D-Bus wire format (marshalling), read and written in pure Swift for the sandbox's bus tools.
///
/// It stays on purpose beside the `DBus` module, as an independent oracle: the tests' monitors
/// (`NotifyMonitor`, the benchmarks' stamps) and bus tools read what went over the bus without
/// libdbus or the `DBus` module's coding, so a fault in the agent's own marshalling (a type, a
/// padding, a variant) cannot hide by being read back by the same code that wrote it.
///
/// See the D-Bus specification, "Message Protocol": every value is aligned to its type's natural
/// boundary counted from the start of the message; arrays carry their byte length; variants carry
/// their signature.
enum BusWire {
    /// Why bytes could not be read as D-Bus data.
    struct Malformed: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// One complete type of a signature.
    indirect enum TypeCode: Equatable {
        case basic(Character)
        case array(TypeCode)
        case structure([TypeCode])
        case dictEntry(TypeCode, TypeCode)
        case variant

        /// The natural alignment of the type on the wire.
        var alignment: Int {
            switch self {
            case .basic(let code):
                switch code {
                case "y", "g": 1
                case "n", "q": 2
                case "x", "t", "d": 8
                default: 4
                }
            case .array: 4
            case .structure, .dictEntry: 8
            case .variant: 1
            }
        }

        /// The type written as a signature.
        var text: String {
            switch self {
            case .basic(let code): String(code)
            case .array(let element): "a" + element.text
            case .structure(let fields): "(" + fields.map(\.text).joined() + ")"
            case .dictEntry(let key, let value): "{" + key.text + value.text + "}"
            case .variant: "v"
            }
        }

        /// Splits a signature into its complete types.
        static func parse(_ signature: String) throws -> [TypeCode] {
            var characters = Substring(signature)
            var types: [TypeCode] = []
            while !characters.isEmpty { types.append(try parseOne(&characters)) }
            return types
        }

        private static func parseOne(_ characters: inout Substring) throws -> TypeCode {
            guard let first = characters.popFirst() else { throw Malformed("signature ends early") }
            switch first {
            case "y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g", "h": return .basic(first)
            case "v": return .variant
            case "a": return .array(try parseOne(&characters))
            case "(":
                var fields: [TypeCode] = []
                while characters.first != ")" {
                    guard !characters.isEmpty else { throw Malformed("unclosed ( in signature") }
                    fields.append(try parseOne(&characters))
                }
                characters.removeFirst()
                return .structure(fields)
            case "{":
                let key = try parseOne(&characters)
                let value = try parseOne(&characters)
                guard characters.popFirst() == "}" else { throw Malformed("dict entry with other than two types") }
                return .dictEntry(key, value)
            default: throw Malformed("unknown type code \(first)")
            }
        }
    }

    /// Reads values from a whole message's bytes (alignment counts from the message's start).
    struct Reader {
        let bytes: [UInt8]
        var offset: Int
        let littleEndian: Bool

        init(_ bytes: [UInt8], offset: Int = 0, littleEndian: Bool) {
            self.bytes = bytes
            self.offset = offset
            self.littleEndian = littleEndian
        }

        mutating func align(_ boundary: Int) throws {
            let padded = (offset + boundary - 1) / boundary * boundary
            guard padded <= bytes.count else { throw Malformed("padding runs past the end") }
            offset = padded
        }

        mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
            guard count >= 0, offset + count <= bytes.count else { throw Malformed("value runs past the end") }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }

        mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
            try align(MemoryLayout<T>.size)
            var value: T = 0
            for (index, byte) in try take(MemoryLayout<T>.size).enumerated() {
                let shift = littleEndian ? index * 8 : (MemoryLayout<T>.size - 1 - index) * 8
                value |= T(truncatingIfNeeded: byte) << shift
            }
            return value
        }

        mutating func text(lengthBytes: Int) throws -> String {
            let length = lengthBytes == 1 ? Int(try integer(UInt8.self)) : Int(try integer(UInt32.self))
            let content = try take(length)
            guard try take(1).first == 0 else { throw Malformed("string without its terminating nul") }
            return String(decoding: content, as: UTF8.self)
        }

        mutating func value(_ type: TypeCode, depth: Int = 0) throws -> BusValue {
            guard depth < 64 else { throw Malformed("values nested too deeply") }
            switch type {
            case .basic(let code):
                switch code {
                case "y": return .byte(try integer(UInt8.self))
                case "b":
                    let raw = try integer(UInt32.self)
                    guard raw <= 1 else { throw Malformed("boolean \(raw)") }
                    return .boolean(raw == 1)
                case "n": return .int16(try integer(Int16.self))
                case "q": return .uint16(try integer(UInt16.self))
                case "i": return .int32(try integer(Int32.self))
                case "u": return .uint32(try integer(UInt32.self))
                case "x": return .int64(try integer(Int64.self))
                case "t": return .uint64(try integer(UInt64.self))
                case "d": return .double(Double(bitPattern: try integer(UInt64.self)))
                case "h": return .unixFD(try integer(UInt32.self))
                case "s": return .string(try text(lengthBytes: 4))
                case "o": return .objectPath(try text(lengthBytes: 4))
                case "g": return .signature(try text(lengthBytes: 1))
                default: throw Malformed("unknown type code \(code)")
                }
            case .array(let element):
                let length = Int(try integer(UInt32.self))
                try align(element.alignment)
                let end = offset + length
                guard end <= bytes.count else { throw Malformed("array runs past the end") }
                var elements: [BusValue] = []
                while offset < end { elements.append(try value(element, depth: depth + 1)) }
                guard offset == end else { throw Malformed("array elements overrun its length") }
                return .array(elementSignature: element.text, elements)
            case .structure(let fields):
                try align(8)
                return .structure(try fields.map { try value($0, depth: depth + 1) })
            case .dictEntry(let keyType, let valueType):
                try align(8)
                let key = try value(keyType, depth: depth + 1)
                return .dictEntry(key: key, value: try value(valueType, depth: depth + 1))
            case .variant:
                let inner = try TypeCode.parse(try text(lengthBytes: 1))
                guard inner.count == 1 else { throw Malformed("variant signature with \(inner.count) types") }
                return .variant(try value(inner[0], depth: depth + 1))
            }
        }
    }

    /// Writes values in little-endian order.
    struct Writer {
        var bytes: [UInt8] = []

        mutating func align(_ boundary: Int) {
            while bytes.count % boundary != 0 { bytes.append(0) }
        }

        mutating func integer<T: FixedWidthInteger>(_ value: T) {
            align(MemoryLayout<T>.size)
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }

        mutating func text(_ text: String, lengthBytes: Int) {
            let utf8 = Array(text.utf8)
            if lengthBytes == 1 { integer(UInt8(truncatingIfNeeded: utf8.count)) } else { integer(UInt32(utf8.count)) }
            bytes.append(contentsOf: utf8)
            bytes.append(0)
        }

        mutating func write(_ value: BusValue) throws {
            switch value {
            case .byte(let v): integer(v)
            case .boolean(let v): integer(UInt32(v ? 1 : 0))
            case .int16(let v): integer(v)
            case .uint16(let v): integer(v)
            case .int32(let v): integer(v)
            case .uint32(let v): integer(v)
            case .int64(let v): integer(v)
            case .uint64(let v): integer(v)
            case .double(let v): integer(v.bitPattern)
            case .unixFD(let v): integer(v)
            case .string(let v), .objectPath(let v): text(v, lengthBytes: 4)
            case .signature(let v): text(v, lengthBytes: 1)
            case .array(let elementSignature, let elements):
                let elementTypes = try TypeCode.parse(elementSignature)
                guard elementTypes.count == 1 else { throw Malformed("array element signature \(elementSignature)") }
                integer(UInt32(0))
                let lengthAt = bytes.count - 4
                align(elementTypes[0].alignment)
                let start = bytes.count
                for element in elements {
                    guard element.signature == elementSignature else {
                        throw Malformed("array of \(elementSignature) holds \(element.signature)")
                    }
                    try write(element)
                }
                let length = UInt32(bytes.count - start).littleEndian
                withUnsafeBytes(of: length) { bytes.replaceSubrange(lengthAt..<lengthAt + 4, with: $0) }
            case .structure(let fields):
                align(8)
                for field in fields { try write(field) }
            case .dictEntry(let key, let value):
                align(8)
                try write(key)
                try write(value)
            case .variant(let inner):
                text(inner.signature, lengthBytes: 1)
                try write(inner)
            }
        }
    }
}
