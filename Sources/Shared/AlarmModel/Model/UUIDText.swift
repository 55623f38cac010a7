import FoundationEssentials

/// An alarm id's text, read and written in Swift.
///
/// Every call names an alarm by its id, so ids are parsed and printed on every call, in the agent
/// and in every client. Foundation does it with libuuid's C (`uuid_parse` reads with `sscanf`,
/// `uuid_unparse` writes with `sprintf`, `UUID()` opens `/dev/urandom` each time); these do the
/// same in a few dozen instructions.
extension UUID {
    /// Reads the 36-character form, `8-4-4-4-12` hex digits in either case, or the same with
    /// `separator` in place of `-`. Stricter than `UUID(uuidString:)`, whose `sscanf` also takes
    /// a space or a `-` where a digit belongs.
    public init?(text: some StringProtocol, separator: Unicode.Scalar = "-") {
        let separator = UInt8(ascii: separator)
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = withUnsafeMutableBytes(of: &bytes) { (out: UnsafeMutableRawBufferPointer) -> Bool in
            var utf8 = text.utf8.makeIterator()
            var count = 0
            var position = 0
            var high: UInt8?
            while let byte = utf8.next() {
                defer { position += 1 }
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard byte == separator else { return false }
                    continue
                }
                guard position < 36, let digit = Self.hexValue(byte) else { return false }
                if let first = high {
                    out[count] = first << 4 | digit
                    count += 1
                    high = nil
                } else {
                    high = digit
                }
            }
            return position == 36
        }
        guard parsed else { return nil }
        self.init(uuid: bytes)
    }

    /// The 36-character lowercase form, `8-4-4-4-12`: how ids appear on the bus, in the store and
    /// on screen (`uuidString.lowercased()`); `separator` in place of `-` where that cannot appear.
    public func lowercasedText(separator: Unicode.Scalar = "-") -> String {
        let separator = UInt8(ascii: separator)
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { out in
                let digits: StaticString = "0123456789abcdef"
                var index = 0
                for (number, byte) in bytes.enumerated() {
                    if number == 4 || number == 6 || number == 8 || number == 10 {
                        out[index] = separator
                        index += 1
                    }
                    out[index] = digits.utf8Start[Int(byte >> 4)]
                    out[index + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    index += 2
                }
                return index
            }
        }
    }

    /// A new random (version 4) id from the system's random source (`getrandom`), as `UUID()`
    /// makes one, without opening `/dev/urandom` for each.
    public static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { out in
            withUnsafeBytes(of: (generator.next() as UInt64, generator.next() as UInt64)) { out.copyMemory(from: $0) }
            out[6] = out[6] & 0x0F | 0x40  // version 4
            out[8] = out[8] & 0x3F | 0x80  // the RFC 4122 variant
        }
        return UUID(uuid: bytes)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension UUID {
    /// The id's 16 bytes as two big-endian integers: keys compare as the ids do with `<`, at
    /// about a tenth of its cost.
    ///
    /// Foundation's `<` compares byte by byte, in constant time: about 100 ns an id here. The
    /// agent sorts its alarms by id for every `List`, and every client keeps its mirror of the
    /// list in id order, so ten thousand alarms make that a cost worth saving.
    package var orderKey: OrderKey {
        withUnsafeBytes(of: uuid) { bytes in
            OrderKey(
                high: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)),
                low: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }

    /// Whether this id comes before `other` in id order: the same answer as `<`, faster.
    package func precedes(_ other: UUID) -> Bool { orderKey < other.orderKey }

    /// An id as two integers that order as the id does (`orderKey`).
    package struct OrderKey: Comparable, Hashable, Sendable {
        /// The first eight bytes, the first one most significant.
        package var high: UInt64
        /// The last eight bytes, the first of them most significant.
        package var low: UInt64

        /// Orders by the first eight bytes, then the last eight.
        package static func < (lhs: OrderKey, rhs: OrderKey) -> Bool {
            lhs.high != rhs.high ? lhs.high < rhs.high : lhs.low < rhs.low
        }
    }
}
