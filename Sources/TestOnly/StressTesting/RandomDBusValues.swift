import AlarmKit
import AlarmProtocol
import CommandLineText
import DBus
import Foundation
import TestSupport

/// Random D-Bus values of random types: every basic type with its edge values, variants nested up
/// to (and past) the protocol's depth limit, arrays from empty to huge, dictionaries with any key
/// type, structures; and random names and paths that are valid D-Bus syntax.
package enum RandomDBusValues {
    /// A D-Bus type, to make values of: containers keep their element type so arrays are uniform.
    indirect enum Shape {
        case basic(Character)
        case variant
        case array(Shape)
        case dictionary(key: Character, value: Shape)
        case structure([Shape])
    }

    static let basicCodes: [Character] = ["y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g"]

    /// A random type, nested at most `depth` containers deep.
    static func shape(depth: Int, using rng: inout some RandomNumberGenerator) -> Shape {
        guard depth > 0, rng.chance(0.45) else { return .basic(rng.pick(basicCodes)) }
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return .variant
        case 1: return .array(shape(depth: depth - 1, using: &rng))
        case 2: return .dictionary(key: rng.pick(basicCodes), value: shape(depth: depth - 1, using: &rng))
        default:
            return .structure((0..<Int.random(in: 1...4, using: &rng)).map { _ in shape(depth: depth - 1, using: &rng) })
        }
    }

    /// The signature of a shape.
    static func signature(of shape: Shape) -> String {
        switch shape {
        case .basic(let code): String(code)
        case .variant: "v"
        case .array(let element): "a" + signature(of: element)
        case .dictionary(let key, let value): "a{" + String(key) + signature(of: value) + "}"
        case .structure(let fields): "(" + fields.map(signature(of:)).joined() + ")"
        }
    }

    /// How much one message may hold, so that nested containers never multiply into millions of
    /// values: elements in all, and mebibyte strings.
    struct Budget {
        var elements = 30_000
        var hugeStrings = 1
    }

    /// A value of a random type.
    package static func value(depth: Int = 3, using rng: inout some RandomNumberGenerator) -> DBusValue {
        var budget = Budget()
        return value(depth: depth, budget: &budget, using: &rng)
    }

    /// Several values of random types: a random message body.
    package static func arguments(using rng: inout some RandomNumberGenerator) -> [DBusValue] {
        var budget = Budget()
        let count = rng.weighted([(3, 0), (5, 1), (4, 2), (2, 3), (1, Int.random(in: 4...12, using: &rng))])
        return (0..<count).map { _ in value(depth: 3, budget: &budget, using: &rng) }
    }

    static func value(depth: Int, budget: inout Budget, using rng: inout some RandomNumberGenerator) -> DBusValue {
        value(of: shape(depth: depth, using: &rng), depth: depth, budget: &budget, using: &rng)
    }

    static func value(of shape: Shape, depth: Int, budget: inout Budget, using rng: inout some RandomNumberGenerator) -> DBusValue {
        switch shape {
        case .basic(let code):
            return basic(code, budget: &budget, using: &rng)
        case .variant:
            if rng.chance(0.05) { return nestedVariant(using: &rng) }
            return .variant(value(depth: max(0, depth - 1), budget: &budget, using: &rng))
        case .array(let element):
            let count = min(budget.elements, arrayCount(for: element, using: &rng))
            budget.elements -= count
            var elements: [DBusValue] = []
            for _ in 0..<count { elements.append(value(of: element, depth: depth - 1, budget: &budget, using: &rng)) }
            return .array(elementSignature: signature(of: element), elements)
        case .dictionary(let key, let valueShape):
            let wanted = rng.chance(0.02) ? Int.random(in: 100...2_000, using: &rng) : Int.random(in: 0...4, using: &rng)
            let count = min(budget.elements, wanted)
            budget.elements -= count
            var entries: [DBusValue] = []
            for _ in 0..<count {
                let entryKey = basic(key, budget: &budget, using: &rng)
                entries.append(.dictEntry(entryKey, value(of: valueShape, depth: depth - 1, budget: &budget, using: &rng)))
            }
            return .array(elementSignature: "{" + String(key) + signature(of: valueShape) + "}", entries)
        case .structure(let fields):
            var values: [DBusValue] = []
            for field in fields { values.append(value(of: field, depth: depth - 1, budget: &budget, using: &rng)) }
            return .structure(values)
        }
    }

    /// How many elements an array gets: mostly a few, sometimes tens of thousands of small ones.
    static func arrayCount(for element: Shape, using rng: inout some RandomNumberGenerator) -> Int {
        if case .basic(let code) = element, code != "s", code != "o", code != "g", rng.chance(0.01) {
            return Int.random(in: 1_000...20_000, using: &rng)
        }
        return rng.chance(0.03) ? Int.random(in: 100...1_000, using: &rng) : Int.random(in: 0...4, using: &rng)
    }

    /// A variant inside a variant inside …, 1 to 70 deep: the protocol allows 64 containers in all.
    package static func nestedVariant(using rng: inout some RandomNumberGenerator) -> DBusValue {
        var value = basic(rng.pick(basicCodes), using: &rng)
        for _
            in 0..<rng.weighted([
                (6, Int.random(in: 1...32, using: &rng)), (3, Int.random(in: 33...63, using: &rng)),
                (1, Int.random(in: 64...70, using: &rng)),
            ])
        {
            value = .variant(value)
        }
        return value
    }

    /// A value of a basic type, edge values often.
    package static func basic(_ code: Character, using rng: inout some RandomNumberGenerator) -> DBusValue {
        var budget = Budget()
        return basic(code, budget: &budget, using: &rng)
    }

    static func basic(_ code: Character, budget: inout Budget, using rng: inout some RandomNumberGenerator) -> DBusValue {
        switch code {
        case "y": return .byte(rng.chance(0.3) ? rng.pick([0, 1, 0x7F, 0x80, 0xFF]) : UInt8.random(in: 0...255, using: &rng))
        case "b": return .boolean(rng.chance(0.5))
        case "n": return .int16(rng.chance(0.3) ? rng.pick([.min, -1, 0, 1, .max]) : Int16.random(in: .min ... .max, using: &rng))
        case "q": return .uint16(rng.chance(0.3) ? rng.pick([0, 1, .max]) : UInt16.random(in: 0 ... .max, using: &rng))
        case "i": return .int32(integer(using: &rng))
        case "u": return .uint32(rng.chance(0.3) ? rng.pick([0, 1, 23, 24, 59, 60, .max]) : UInt32.random(in: 0 ... .max, using: &rng))
        case "x": return .int64(rng.chance(0.3) ? rng.pick([.min, -1, 0, 1, .max]) : Int64.random(in: .min ... .max, using: &rng))
        case "t":
            return .uint64(
                rng.chance(0.3)
                    ? rng.pick([0, 1, UInt64(Int64.max), UInt64(Int64.max) + 1, .max]) : UInt64.random(in: 0 ... .max, using: &rng))
        case "d": return .double(double(using: &rng))
        case "o": return .objectPath(objectPath(using: &rng))
        case "g":
            return .signature(rng.pick(["", "s", "a{sv}", "v", "aa{sv}", "(ssd)", "ay", "a(ii)", String(repeating: "a", count: 31) + "y"]))
        default:
            let text = HostileText.string(using: &rng, allowHuge: budget.hugeStrings > 0)
            if text.utf8.count > 65_536 { budget.hugeStrings -= 1 }
            // Long strings use up the budget too: a thousand 5 KB strings are a big message.
            budget.elements = max(0, budget.elements - text.utf8.count / 64)
            return .string(text)
        }
    }

    /// An `Int32`, edge values often.
    package static func integer(using rng: inout some RandomNumberGenerator) -> Int32 {
        rng.chance(0.4) ? rng.pick([.min, -1, 0, 1, 7, 23, 24, 30, 59, 60, 1_000, .max]) : Int32.random(in: .min ... .max, using: &rng)
    }

    /// A double: NaN, infinities, signed zero, the extremes, subnormals, or any.
    package static func double(using rng: inout some RandomNumberGenerator) -> Double {
        let edges: [Double] = [
            .nan, -.nan, .infinity, -.infinity, 0, -0.0, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .leastNonzeroMagnitude, .leastNormalMagnitude, 1e-9, 0.5, 1, 59.999, 86_400 * 366, 86_400 * 366 + 1, 9.2e18, -9.2e18,
        ]
        switch rng.weighted([(3, 0), (2, 1), (1, 2)]) {
        case 0: return rng.pick(edges)
        case 1: return Double.random(in: -1e6...1e6, using: &rng)
        default: return Double(bitPattern: rng.next())
        }
    }

    /// A valid object path: the manager's, an alarm's, or random segments.
    package static func objectPath(using rng: inout some RandomNumberGenerator) -> String {
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: return "/"
        case 1: return "/io/github/reveille/Alarms1"
        case 2: return AlarmWire.alarmPath(of: UUID.random(using: &rng))
        default:
            let segments = (0..<Int.random(in: 1...6, using: &rng)).map { _ in memberLike(using: &rng, allowDigitsFirst: true) }
            return "/" + segments.joined(separator: "/")
        }
    }

    /// A valid member name (method, property or signal): letters, digits and `_`, not starting
    /// with a digit, up to 255 characters.
    package static func memberName(using rng: inout some RandomNumberGenerator) -> String {
        memberLike(using: &rng, allowDigitsFirst: false)
    }

    /// A valid interface or error name: two or more member-like elements joined by dots.
    package static func interfaceName(using rng: inout some RandomNumberGenerator) -> String {
        (0..<Int.random(in: 2...5, using: &rng)).map { _ in memberLike(using: &rng, allowDigitsFirst: false) }.joined(separator: ".")
    }

    static func memberLike(using rng: inout some RandomNumberGenerator, allowDigitsFirst: Bool) -> String {
        let first = Array("abcxyzABCXYZ_")
        let rest = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
        let length = rng.chance(0.02) ? Int.random(in: 100...200, using: &rng) : Int.random(in: 1...12, using: &rng)
        var name = String(allowDigitsFirst ? rng.pick(rest) : rng.pick(first))
        for _ in 1..<max(1, length) { name.append(rng.pick(rest)) }
        return name
    }
}

extension UUID {
    /// A UUID (version 4 form) from the generator, so that a seeded run replays its ids.
    package static func random(using rng: inout some RandomNumberGenerator) -> UUID {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
