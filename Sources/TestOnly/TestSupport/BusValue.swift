/// A D-Bus value with its exact wire type, as the sandbox's own small D-Bus reader decodes it.
///
/// Tests use it to check what a program really put on the bus: a notification's `urgency` hint
/// sent as a byte is `.byte(2)`, never `.int32(2)`. It is independent of the project's `DBus`
/// library on purpose, so that library is checked by code it does not share.
package indirect enum BusValue: Sendable, Hashable, CustomStringConvertible {
    /// `y`
    case byte(UInt8)
    /// `b`
    case boolean(Bool)
    /// `n`
    case int16(Int16)
    /// `q`
    case uint16(UInt16)
    /// `i`
    case int32(Int32)
    /// `u`
    case uint32(UInt32)
    /// `x`
    case int64(Int64)
    /// `t`
    case uint64(UInt64)
    /// `d`
    case double(Double)
    /// `s`
    case string(String)
    /// `o`
    case objectPath(String)
    /// `g`
    case signature(String)
    /// `h`: the index into the message's file descriptors.
    case unixFD(UInt32)
    /// `a…`: the element signature is kept so that empty arrays keep their type.
    case array(elementSignature: String, [BusValue])
    /// `(…)`
    case structure([BusValue])
    /// `{…}`, only inside an array.
    case dictEntry(key: BusValue, value: BusValue)
    /// `v`
    case variant(BusValue)

    /// The value's D-Bus type signature, such as `y`, `as` or `a{sv}`.
    package var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .array(let element, _): "a" + element
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .variant: "v"
        }
    }

    /// A string, object path or signature; `nil` for other types.
    package var string: String? {
        switch self {
        case .string(let text), .objectPath(let text), .signature(let text): text
        default: nil
        }
    }

    /// Any integer type widened to `Int64`; `nil` for other types.
    package var integer: Int64? {
        switch self {
        case .byte(let value): Int64(value)
        case .int16(let value): Int64(value)
        case .uint16(let value): Int64(value)
        case .int32(let value): Int64(value)
        case .uint32(let value): Int64(value)
        case .int64(let value): value
        case .uint64(let value): Int64(exactly: value)
        default: nil
        }
    }

    /// A boolean; `nil` for other types.
    package var boolean: Bool? {
        if case .boolean(let value) = self { value } else { nil }
    }

    /// The elements of an array; `nil` for other types.
    package var elements: [BusValue]? {
        if case .array(_, let elements) = self { elements } else { nil }
    }

    /// The contents of a variant, or the value itself when it is not a variant.
    package var unwrapped: BusValue {
        if case .variant(let inner) = self { inner.unwrapped } else { self }
    }

    /// An `a{s…}` array as a dictionary keyed by string, with variants unwrapped; `nil` for other types.
    package var stringDictionary: [String: BusValue]? {
        guard let elements else { return nil }
        var result: [String: BusValue] = [:]
        for element in elements {
            guard case .dictEntry(let key, let value) = element, let name = key.string else { return nil }
            result[name] = value.unwrapped
        }
        return result
    }

    /// An `as` array as strings; `nil` for other types.
    package var stringArray: [String]? {
        guard let elements else { return nil }
        let strings = elements.compactMap(\.string)
        return strings.count == elements.count ? strings : nil
    }

    /// The value written the way `gdbus` prints GVariants, with its type where it is not obvious.
    package var description: String {
        switch self {
        case .byte(let value): "byte \(value)"
        case .boolean(let value): "\(value)"
        case .int16(let value): "int16 \(value)"
        case .uint16(let value): "uint16 \(value)"
        case .int32(let value): "\(value)"
        case .uint32(let value): "uint32 \(value)"
        case .int64(let value): "int64 \(value)"
        case .uint64(let value): "uint64 \(value)"
        case .double(let value): "\(value)"
        case .string(let text): text.debugDescription
        case .objectPath(let text): "objectpath \(text.debugDescription)"
        case .signature(let text): "signature \(text.debugDescription)"
        case .unixFD(let index): "handle \(index)"
        case .array(let element, let values):
            values.isEmpty ? "@a\(element) []" : "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .structure(let fields): "(" + fields.map(\.description).joined(separator: ", ") + ")"
        case .dictEntry(let key, let value): "\(key): \(value)"
        case .variant(let inner): "<\(inner)>"
        }
    }
}
