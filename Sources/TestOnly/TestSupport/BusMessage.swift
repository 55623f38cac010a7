/// One D-Bus message as seen on the sandbox's bus: its header fields and its arguments, typed.
package struct BusMessage: Sendable, Hashable {
    /// The message type.
    package enum Kind: UInt8, Sendable, Hashable {
        /// A method call.
        case methodCall = 1
        /// A method's reply.
        case methodReturn = 2
        /// An error reply.
        case error = 3
        /// A signal.
        case signal = 4
    }

    /// The message type.
    package var kind: Kind
    /// Header flags (1: no reply expected, 2: no auto-start, 4: interactive authorization).
    package var flags: UInt8 = 0
    /// The sender's serial number for this message.
    package var serial: UInt32 = 0
    /// The object path of a call or signal.
    package var path: String?
    /// The interface of a call or signal.
    package var interface: String?
    /// The member (method or signal name).
    package var member: String?
    /// The name of an error reply.
    package var errorName: String?
    /// For replies: the serial of the call answered.
    package var replySerial: UInt32?
    /// The destination bus name, if any.
    package var destination: String?
    /// The sender's unique bus name (set by the bus).
    package var sender: String?
    /// The arguments, in order.
    package var body: [BusValue] = []
    /// When the sandbox read the message off the bus, if it was read.
    package var receivedAt: ContinuousClock.Instant?

    /// A message of `kind` with the given header fields and arguments.
    package init(
        kind: Kind, path: String? = nil, interface: String? = nil, member: String? = nil,
        destination: String? = nil, body: [BusValue] = []
    ) {
        self.kind = kind
        self.path = path
        self.interface = interface
        self.member = member
        self.destination = destination
        self.body = body
    }

    /// The body's type signature.
    package var signature: String { body.map(\.signature).joined() }

    /// Whether this is a call or signal of `interface.member`.
    package func isMember(_ interface: String, _ member: String) -> Bool {
        self.interface == interface && self.member == member
    }

    /// The first argument as a string, if it is one (the error text of error replies).
    package var firstString: String? { body.first?.string }

    // MARK: Wire format

    private enum Field: UInt8 {
        case path = 1, interface, member, errorName, replySerial, destination, sender, signature, unixFDs
    }

    /// The total length of the message whose first 16 bytes are given, or `nil` when fewer are given.
    static func frameLength(_ prefix: ArraySlice<UInt8>) throws -> Int? {
        guard prefix.count >= 16 else { return nil }
        let start = prefix.startIndex
        let little: Bool
        switch prefix[start] {
        case UInt8(ascii: "l"): little = true
        case UInt8(ascii: "B"): little = false
        default: throw BusWire.Malformed("bad endianness byte \(prefix[start])")
        }
        var reader = BusWire.Reader(Array(prefix[start..<start + 16]), offset: 4, littleEndian: little)
        let bodyLength = Int(try reader.integer(UInt32.self))
        _ = try reader.integer(UInt32.self)
        let fieldsLength = Int(try reader.integer(UInt32.self))
        let headerLength = (16 + fieldsLength + 7) / 8 * 8
        let total = headerLength + bodyLength
        guard total <= 128 * 1024 * 1024 else { throw BusWire.Malformed("message of \(total) bytes") }
        return total
    }

    /// Reads one whole message.
    init(bytes: [UInt8]) throws {
        guard bytes.count >= 16 else { throw BusWire.Malformed("message shorter than its fixed header") }
        let little = bytes[0] == UInt8(ascii: "l")
        guard let kind = Kind(rawValue: bytes[1]) else { throw BusWire.Malformed("message type \(bytes[1])") }
        guard bytes[3] == 1 else { throw BusWire.Malformed("protocol version \(bytes[3])") }
        self.kind = kind
        self.flags = bytes[2]
        var reader = BusWire.Reader(bytes, offset: 4, littleEndian: little)
        let bodyLength = Int(try reader.integer(UInt32.self))
        self.serial = try reader.integer(UInt32.self)
        let fields = try reader.value(.array(.structure([.basic("y"), .variant])))
        var signature = ""
        for field in fields.elements ?? [] {
            guard case .structure(let pair) = field, pair.count == 2, case .byte(let code) = pair[0] else { continue }
            let value = pair[1].unwrapped
            switch Field(rawValue: code) {
            case .path: path = value.string
            case .interface: interface = value.string
            case .member: member = value.string
            case .errorName: errorName = value.string
            case .replySerial: replySerial = value.integer.map { UInt32(truncatingIfNeeded: $0) }
            case .destination: destination = value.string
            case .sender: sender = value.string
            case .signature: signature = value.string ?? ""
            case .unixFDs, nil: break
            }
        }
        try reader.align(8)
        guard reader.offset + bodyLength == bytes.count else {
            throw BusWire.Malformed("body of \(bodyLength) bytes in a message of \(bytes.count)")
        }
        body = try BusWire.TypeCode.parse(signature).map { try reader.value($0) }
        guard reader.offset == bytes.count else { throw BusWire.Malformed("body shorter than its length") }
    }

    /// The message in little-endian wire format.
    func encoded() throws -> [UInt8] {
        var fields: [BusValue] = []
        func field(_ code: Field, _ value: BusValue?) {
            if let value { fields.append(.structure([.byte(code.rawValue), .variant(value)])) }
        }
        field(.path, path.map { .objectPath($0) })
        field(.interface, interface.map { .string($0) })
        field(.member, member.map { .string($0) })
        field(.errorName, errorName.map { .string($0) })
        field(.replySerial, replySerial.map { .uint32($0) })
        field(.destination, destination.map { .string($0) })
        field(.sender, sender.map { .string($0) })
        if !body.isEmpty { field(.signature, .signature(signature)) }

        var bodyWriter = BusWire.Writer()
        for value in body { try bodyWriter.write(value) }

        var writer = BusWire.Writer()
        writer.bytes = [UInt8(ascii: "l"), kind.rawValue, flags, 1]
        writer.integer(UInt32(bodyWriter.bytes.count))
        writer.integer(serial)
        try writer.write(.array(elementSignature: "(yv)", fields))
        writer.align(8)
        return writer.bytes + bodyWriter.bytes
    }
}
