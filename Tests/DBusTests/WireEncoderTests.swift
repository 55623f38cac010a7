import CDBus
@testable import DBus
import StressTesting
import Testing
import TestSupport

// The module writes messages itself (`WireEncoder`) and has libdbus read them back. What it writes
// must be what libdbus's own iterators write (`MessageWriter`, kept for file descriptors): the same
// body bytes, the same header as `dbus_message_new_*` makes, and no serial until sent.

@Suite("Messages written in the wire format are libdbus's own")
struct WireEncoderTests {
    /// Values of every type, aligned every way: what an alarm's a{sv} holds, empty arrays of
    /// 8-aligned elements, structures after odd bytes, variants of containers, dictionaries with
    /// every basic key type.
    static let samples: [[DBusValue]] = [
        [],
        [.byte(7)],
        [.byte(1), .double(2.5), .byte(3), .int16(-4), .uint16(5), .int32(-6), .uint32(7), .int64(-8), .uint64(9), .boolean(true)],
        [.string(""), .string("héllo ✓ \u{1F600}"), .objectPath("/io/github/reveille/Alarms1"), .signature("a{sv}(iai)"), .signature("")],
        [.byte(1), .array(elementSignature: "x", [])],
        [.byte(1), .array(elementSignature: "(ii)", []), .byte(2), .array(elementSignature: "{sv}", [])],
        [.byte(1), .array(elementSignature: "x", [.int64(1), .int64(-1)]), .array(elementSignature: "y", [.byte(1), .byte(2), .byte(3)])],
        [.byte(9), .structure([.byte(1), .structure([.int16(2), .double(3)]), .string("x")])],
        [.variant(.byte(1)), .variant(.structure([.string("a"), .uint64(2)])), .variant(.variant(.array(elementSignature: "d", [.double(1)])))],
        [
            .array(elementSignature: "{sv}", [
                .dictEntry(.string("title"), .variant(.string("Wake up"))),
                .dictEntry(.string("schedule"), .variant(.array(elementSignature: "{sv}", [
                    .dictEntry(.string("hour"), .variant(.uint32(7))),
                    .dictEntry(.string("weekdays"), .variant(.array(elementSignature: "s", [.string("monday"), .string("friday")]))),
                ]))),
                .dictEntry(.string("fixed"), .variant(.double(1_790_000_000.25))),
                .dictEntry(.string("metadata"), .variant(.array(elementSignature: "y", [.byte(0), .byte(255)]))),
            ]),
            .array(elementSignature: "s", [.string("a"), .string("bc")]),
        ],
        [
            .array(elementSignature: "{yd}", [.dictEntry(.byte(1), .double(2))]),
            .array(elementSignature: "{bq}", [.dictEntry(.boolean(false), .uint16(3))]),
            .array(elementSignature: "{ox}", [.dictEntry(.objectPath("/a"), .int64(4))]),
            .array(elementSignature: "{ga(ii)}", [.dictEntry(.signature("i"), .array(elementSignature: "(ii)", [.structure([.int32(1), .int32(2)])]))]),
        ],
    ]

    @Test("the body of each sample is byte for byte what libdbus's iterators write")
    func samplesMatchLibdbus() throws {
        for values in Self.samples {
            let ours = try Wire.body(of: DBusMessage.signal(path: "/t", interface: "t.T", name: "S", arguments: values))
            #expect(ours == (try Wire.libdbusBody(values)), "\(values)")
        }
    }

    @Test("random bodies (the fuzzer's values: every type, empty and huge arrays, hostile text) are byte for byte libdbus's")
    func randomBodiesMatchLibdbus() throws {
        var compared = 0
        for values in Wire.randomBodies(400) {
            // Variants nested past the protocol's 64 containers: libdbus's reader refuses them,
            // and so the module refuses to build them (libdbus's writer would write them).
            guard let ours = try? DBusMessage.signal(path: "/t", interface: "t.T", name: "S", arguments: values) else {
                #expect(Wire.depth(of: values) > 32, "refused: \(values.map(\.signature))")
                continue
            }
            #expect(try Wire.body(of: ours) == (try Wire.libdbusBody(values)), "\(values.map(\.signature))")
            compared += 1
        }
        #expect(compared > 300)
    }

    @Test("a method call, a signal and a reply have the header dbus_message_new_* gives them, and no serial until sent")
    func headers() throws {
        let arguments: [DBusValue] = [.string("x"), .uint32(3)]
        let call = try DBusMessage.methodCall(
            destination: "io.github.reveille.Alarms1", path: "/io/github/reveille/Alarms1", interface: "io.github.reveille.Alarms1.Manager",
            method: "Schedule", arguments: arguments)
        let theirCall = try Wire.libdbus(dbus_message_new_method_call(
            "io.github.reveille.Alarms1", "/io/github/reveille/Alarms1", "io.github.reveille.Alarms1.Manager", "Schedule")!, arguments)
        try Wire.expectSameHeader(call, theirCall)

        let signal = try DBusMessage.signal(path: "/a", interface: "a.B", name: "Changed", arguments: arguments, destination: ":1.7")
        let theirSignal = dbus_message_new_signal("/a", "a.B", "Changed")!
        dbus_message_set_destination(theirSignal, ":1.7")
        try Wire.expectSameHeader(signal, try Wire.libdbus(theirSignal, arguments))
        let broadcast = try DBusMessage.signal(path: "/a", interface: "a.B", name: "Changed")
        try Wire.expectSameHeader(broadcast, try Wire.libdbus(dbus_message_new_signal("/a", "a.B", "Changed")!, []))

        // A call as it arrives: from a sender, with a serial.
        let received = dbus_message_new_method_call(nil, "/a", "a.B", "Get")!
        dbus_message_set_sender(received, ":1.42")
        dbus_message_set_serial(received, 4_711)
        let incoming = DBusMessage(taking: received)
        let reply = try DBusMessage.methodReturn(replyingTo: incoming, arguments: arguments)
        try Wire.expectSameHeader(reply, try Wire.libdbus(dbus_message_new_method_return(incoming.pointer)!, arguments))
        #expect(reply.replySerial == 4_711)
        #expect(reply.destination == ":1.42")
        #expect(reply.arguments == arguments)
    }
}

/// Reading messages as bytes, and building them through libdbus's iterators, to compare.
enum Wire {
    /// The whole message as it would go on the wire (`dbus_message_marshal`).
    static func bytes(of pointer: OpaquePointer) -> [UInt8] {
        var buffer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(pointer, &buffer, &length) != 0, let buffer else { return [] }
        defer { dbus_free(buffer) }
        return UnsafeRawBufferPointer(start: buffer, count: Int(length)).map { $0 }
    }

    /// The body: what follows the header fields, padded to 8.
    static func body(of message: DBusMessage) throws -> [UInt8] { try body(ofWire: bytes(of: message.pointer)) }

    static func body(ofWire wire: [UInt8]) throws -> [UInt8] {
        try #require(wire.count >= 16)
        let fields = Int(wire[12..<16].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
        let end = (16 + fields + 7) / 8 * 8
        return Array(wire[end...])
    }

    /// The body libdbus's own iterators write for the values.
    static func libdbusBody(_ values: [DBusValue]) throws -> [UInt8] {
        let pointer = dbus_message_new_signal("/t", "t.T", "S")!
        defer { dbus_message_unref(pointer) }
        try MessageWriter.append(values, to: pointer)
        return try body(ofWire: bytes(of: pointer))
    }

    /// A message libdbus made, with the values appended by its iterators.
    static func libdbus(_ pointer: OpaquePointer, _ values: [DBusValue]) throws -> DBusMessage {
        try MessageWriter.append(values, to: pointer)
        return DBusMessage(taking: pointer)
    }

    /// The same type, flags, header fields, serial (none) and body.
    static func expectSameHeader(_ ours: DBusMessage, _ theirs: DBusMessage, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (a, b) = (bytes(of: ours.pointer), bytes(of: theirs.pointer))
        #expect(a[0..<4] == b[0..<4], "byte order, type, flags, version", sourceLocation: sourceLocation)
        #expect(ours.serial == 0, sourceLocation: sourceLocation)
        let fields: [(String, KeyPath<DBusMessage, String?>)] = [
            ("destination", \.destination), ("path", \.path), ("interface", \.interface), ("member", \.member), ("error name", \.errorName),
        ]
        for (name, field) in fields {
            #expect(ours[keyPath: field] == theirs[keyPath: field], "\(name)", sourceLocation: sourceLocation)
        }
        #expect(ours.signature == theirs.signature, sourceLocation: sourceLocation)
        #expect(ours.replySerial == theirs.replySerial, sourceLocation: sourceLocation)
        #expect(ours.noReplyExpected == theirs.noReplyExpected, sourceLocation: sourceLocation)
        #expect(dbus_message_get_auto_start(ours.pointer) == dbus_message_get_auto_start(theirs.pointer), sourceLocation: sourceLocation)
        #expect(try body(ofWire: a) == (try body(ofWire: b)), sourceLocation: sourceLocation)
    }

    /// Random message bodies, the fuzzer's (`RandomDBusValues`), seeded as the suite is.
    static func randomBodies(_ count: Int) -> [[DBusValue]] {
        var rng = SeededGenerator(seed: SeededGenerator.seedFromEnvironment())
        return (0..<count).map { _ in RandomDBusValues.arguments(using: &rng) }
    }

    /// How deeply containers nest in the values.
    static func depth(of values: [DBusValue]) -> Int {
        values.map { value in
            switch value {
            case .variant(let inner): 1 + depth(of: [inner])
            case .array(_, let elements): 1 + depth(of: elements)
            case .dictEntry(let key, let inner): 1 + depth(of: [key, inner])
            case .structure(let fields): 1 + depth(of: fields)
            default: 0
            }
        }.max() ?? 0
    }
}
