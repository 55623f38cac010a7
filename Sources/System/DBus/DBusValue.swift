/// A D-Bus value of any type, with its type signature: the typed form messages are built from and
/// read into.
///
/// Containers carry the signature of their elements so that empty arrays and dictionaries keep
/// their type. `DBusValue.dictionary(_:)` builds the common `a{sv}`.
///
/// Only the cases that hold a single nested value are `indirect` (boxed): a string or a number
/// sits in its array or entry without an allocation of its own, and arrays and structures already
/// keep their elements in an array's buffer.
package enum DBusValue: Hashable, Sendable {
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
    /// `h`: a Unix file descriptor, owned (see `UnixFileDescriptor`). It can be sent only on a
    /// connection that passes descriptors (`DBusConnection.canPassFileDescriptors`).
    case unixFD(UnixFileDescriptor)
    /// `v`: a value that carries its own type.
    indirect case variant(DBusValue)
    /// `a…`: the element signature, and the elements (all of that type).
    case array(elementSignature: String, [DBusValue])
    /// `{kv}`: a dictionary entry; appears only as an element of an array.
    indirect case dictEntry(DBusValue, DBusValue)
    /// `(…)`: a structure of its fields.
    case structure([DBusValue])

    /// The value's D-Bus type signature.
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
        case .variant: "v"
        case .array(let element, _): "a" + element
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }

    /// An `a{sv}` dictionary, keys sorted so the same dictionary always encodes the same way.
    package static func dictionary(_ entries: [String: DBusValue]) -> DBusValue {
        .array(
            elementSignature: "{sv}",
            entries.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .variant($0.value)) })
    }

    /// An `as` array of strings.
    package static func strings(_ values: [String]) -> DBusValue {
        .array(elementSignature: "s", values.map(DBusValue.string))
    }
}

extension DBusValue {
    /// The value inside a variant, or the value itself.
    package var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// The string of an `s`, `o` or `g` value.
    package var stringValue: String? {
        switch unwrapped {
        case .string(let value), .objectPath(let value), .signature(let value): value
        default: nil
        }
    }

    /// The value of a `b`.
    package var boolValue: Bool? {
        if case .boolean(let value) = unwrapped { return value }
        return nil
    }

    /// The value of a `d`.
    package var doubleValue: Double? {
        if case .double(let value) = unwrapped { return value }
        return nil
    }

    /// The value of any integer type, when it fits in an `Int64`.
    package var integerValue: Int64? {
        switch unwrapped {
        case .byte(let value): Int64(value)
        case .int16(let value): Int64(value)
        case .uint16(let value): Int64(value)
        case .int32(let value): Int64(value)
        case .uint32(let value): Int64(value)
        case .int64(let value): value
        case .uint64(let value): value <= UInt64(Int64.max) ? Int64(value) : nil
        default: nil
        }
    }

    /// The descriptor of an `h`.
    package var fileDescriptorValue: UnixFileDescriptor? {
        if case .unixFD(let descriptor) = unwrapped { return descriptor }
        return nil
    }

    /// The elements of an array.
    package var arrayValue: [DBusValue]? {
        if case .array(_, let elements) = unwrapped { return elements }
        return nil
    }

    /// The entries of an `a{s…}` dictionary, keyed by string, values unwrapped from variants
    /// only by the accessors above. Nil for anything else or a repeated key.
    package var dictionaryValue: [String: DBusValue]? {
        guard case .array(_, let elements) = unwrapped else { return nil }
        var result: [String: DBusValue] = [:]
        for element in elements {
            guard case .dictEntry(let key, let value) = element, let name = key.stringValue,
                result[name] == nil
            else { return nil }
            result[name] = value
        }
        return result
    }
}
