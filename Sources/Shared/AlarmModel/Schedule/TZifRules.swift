/// A zone's offsets as a TZif file gives them (RFC 8536): the listed transitions, then the footer's
/// POSIX rule for every instant after the last of them.
struct TZifRules: Hashable, Sendable {
    /// Transition instants (seconds since 1970 UTC), ascending.
    let transitions: [Int64]
    /// The offset (seconds east of UTC) from each transition on.
    let offsets: [Int64]
    /// The offset before the first transition (the file's time type 0).
    let initialOffset: Int64
    /// The rule after the last transition; without one, the last offset stays.
    let footer: PosixZoneRule?

    /// Why a TZif file was not read.
    enum ParseError: Error, Equatable {
        case notTZif, truncated, badIndex, leapSeconds, badFooter
    }

    /// Reads a TZif file's bytes: the 64-bit data of version 2 and later, the 32-bit data of
    /// version 1. Files with leap seconds (the `right/` zones) are refused: their times do not
    /// count seconds as the system clock does.
    init(bytes: [UInt8]) throws(ParseError) {
        var reader = ByteReader(bytes)
        var header = try Header(&reader)
        var timeSize = 4
        if header.version != 0 {
            // Version 2 and later repeat the data with 64-bit times after the 32-bit block.
            try reader.skip(header.bodySize(timeSize: 4))
            header = try Header(&reader)
            timeSize = 8
        }
        guard header.leapCount == 0 else { throw .leapSeconds }
        guard header.typeCount > 0 else { throw .badIndex }
        var times: [Int64] = []
        times.reserveCapacity(header.timeCount)
        for _ in 0..<header.timeCount { times.append(try reader.signed(size: timeSize)) }
        var indices: [Int] = []
        for _ in 0..<header.timeCount { indices.append(Int(try reader.byte())) }
        var typeOffsets: [Int64] = []
        for _ in 0..<header.typeCount {
            typeOffsets.append(try reader.signed(size: 4))
            try reader.skip(2)  // isdst, abbreviation index
        }
        try reader.skip(header.charCount + header.isStandardCount + header.isUTCCount)
        guard indices.allSatisfy({ $0 < typeOffsets.count }) else { throw .badIndex }
        transitions = times
        offsets = indices.map { typeOffsets[$0] }
        initialOffset = typeOffsets[0]
        footer = header.version == 0 ? nil : try Self.footer(&reader)
    }

    /// The footer after the 64-bit data: "\n" rule "\n", an empty rule meaning none.
    private static func footer(_ reader: inout ByteReader) throws(ParseError) -> PosixZoneRule? {
        guard try reader.byte() == UInt8(ascii: "\n") else { throw .badFooter }
        var text: [UInt8] = []
        while true {
            let byte = try reader.byte()
            if byte == UInt8(ascii: "\n") { break }
            text.append(byte)
        }
        if text.isEmpty { return nil }
        guard let rule = PosixZoneRule(String(decoding: text, as: UTF8.self)) else { throw .badFooter }
        return rule
    }

    /// The offset in force at an instant. With no transitions listed, the footer (or else time
    /// type 0) rules every instant; before the first, time type 0; from the last on, the footer.
    func offset(at instant: Int64) -> Int64 {
        guard let last = transitions.last else { return footer?.offset(at: instant) ?? initialOffset }
        if instant < transitions[0] { return initialOffset }
        if instant >= last, let footer { return footer.offset(at: instant) }
        return offsets[lastIndex(atOrBefore: instant)]
    }

    /// The first instant strictly after `instant` at which the offset changes.
    func nextChange(after instant: Int64) -> Int64? {
        var previous = offset(at: instant)
        var index = transitions.isEmpty || instant < transitions[0] ? 0 : lastIndex(atOrBefore: instant) + 1
        while index < transitions.count {
            let next = offset(at: transitions[index])
            if next != previous { return transitions[index] }
            previous = next
            index += 1
        }
        // From the last listed transition on, the footer rules (and gave `previous` there).
        return footer?.nextChange(after: max(instant, transitions.last ?? instant))
    }

    /// The index of the last transition at or before `instant` (which is at or after the first).
    private func lastIndex(atOrBefore instant: Int64) -> Int {
        var low = 0
        var high = transitions.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if transitions[middle] <= instant { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// A TZif header's version and counts.
    private struct Header {
        let version: UInt8
        let isUTCCount, isStandardCount, leapCount, timeCount, typeCount, charCount: Int

        init(_ reader: inout ByteReader) throws(ParseError) {
            guard try reader.bytes(4) == Array("TZif".utf8) else { throw .notTZif }
            let version = try reader.byte()
            guard version == 0 || (UInt8(ascii: "2")...UInt8(ascii: "9")).contains(version) else { throw .notTZif }
            self.version = version
            try reader.skip(15)
            isUTCCount = Int(try reader.signed(size: 4))
            isStandardCount = Int(try reader.signed(size: 4))
            leapCount = Int(try reader.signed(size: 4))
            timeCount = Int(try reader.signed(size: 4))
            typeCount = Int(try reader.signed(size: 4))
            charCount = Int(try reader.signed(size: 4))
            guard [isUTCCount, isStandardCount, leapCount, timeCount, typeCount, charCount].allSatisfy({ $0 >= 0 && $0 < 1 << 20 })
            else { throw .truncated }
        }

        func bodySize(timeSize: Int) -> Int {
            timeCount * (timeSize + 1) + typeCount * 6 + charCount + leapCount * (timeSize + 4) + isStandardCount + isUTCCount
        }
    }
}

/// Reads big-endian integers from a byte array, throwing at its end.
private struct ByteReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func byte() throws(TZifRules.ParseError) -> UInt8 {
        guard index < bytes.count else { throw .truncated }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func bytes(_ count: Int) throws(TZifRules.ParseError) -> [UInt8] {
        guard count <= bytes.count - index else { throw .truncated }
        defer { index += count }
        return Array(bytes[index..<index + count])
    }

    mutating func skip(_ count: Int) throws(TZifRules.ParseError) {
        guard count <= bytes.count - index else { throw .truncated }
        index += count
    }

    /// A two's-complement big-endian integer of `size` bytes (4 or 8).
    mutating func signed(size: Int) throws(TZifRules.ParseError) -> Int64 {
        var value: UInt64 = 0
        for byte in try bytes(size) { value = value << 8 | UInt64(byte) }
        if size == 4 { return Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: value))) }
        return Int64(bitPattern: value)
    }
}
