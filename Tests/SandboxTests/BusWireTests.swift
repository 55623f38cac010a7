import Foundation
import Testing
import TestRequirements
@testable import TestSupport

/// The sandbox's own D-Bus wire format reader and writer.
@Suite("D-Bus wire format", .onItsOwnThread)
struct BusWireTests {
    @Test("A message with nested types survives writing and reading")
    func roundTrip() throws {
        var message = BusMessage(
            kind: .methodCall, path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications",
            member: "Notify", destination: "org.freedesktop.Notifications",
            body: [
                .string("app"), .uint32(7), .string(""), .string("Summary with ünïcode"), .string("two\nlines \"quoted\""),
                .array(elementSignature: "s", [.string("stop"), .string("Stop")]),
                .array(
                    elementSignature: "{sv}",
                    [
                        .dictEntry(key: .string("urgency"), value: .variant(.byte(2))),
                        .dictEntry(key: .string("resident"), value: .variant(.boolean(true))),
                        .dictEntry(key: .string("value"), value: .variant(.int64(-5))),
                        .dictEntry(key: .string("nested"), value: .variant(.structure([.double(1.5), .int16(-3), .uint64(9)]))),
                        .dictEntry(key: .string("empty"), value: .variant(.array(elementSignature: "(yx)", []))),
                        .dictEntry(key: .string("bytes"), value: .variant(.array(elementSignature: "y", [.byte(1), .byte(255)]))),
                    ]),
                .int32(-1),
            ])
        message.serial = 42
        message.sender = ":1.9"
        let bytes = try message.encoded()
        #expect(try BusMessage.frameLength(bytes[...]) == bytes.count)
        let read = try BusMessage(bytes: bytes)
        #expect(read == message)
        #expect(read.signature == "susssasa{sv}i")
        let call = try #require(NotifyCall(read))
        #expect(call.urgency == .byte(2))
        #expect(call.hints["nested"] == .structure([.double(1.5), .int16(-3), .uint64(9)]))
        #expect(call.body == "two\nlines \"quoted\"")
    }

    @Test("Big-endian messages are read too")
    func bigEndian() throws {
        // A signal /a org.x.Y.Z with one uint32 argument 0x01020304, written by hand in big-endian order.
        var bytes: [UInt8] = [UInt8(ascii: "B"), 4, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1]
        var fields: [UInt8] = []
        func pad() { while (12 + 4 + fields.count) % 8 != 0 { fields.append(0) } }
        func field(_ code: UInt8, _ type: Character, _ text: String) {
            pad()
            fields += [code, 1, type.asciiValue!, 0]
            if type == "g" {
                fields += [UInt8(text.utf8.count)] + Array(text.utf8) + [0]
            } else {
                let count = UInt32(text.utf8.count)
                fields += [UInt8(count >> 24), UInt8(count >> 16 & 0xff), UInt8(count >> 8 & 0xff), UInt8(count & 0xff)]
                fields += Array(text.utf8) + [0]
            }
        }
        field(1, "o", "/a")
        field(2, "s", "org.x.Y")
        field(3, "s", "Z")
        field(8, "g", "u")
        let length = UInt32(fields.count)
        bytes += [UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)]
        bytes += fields
        while bytes.count % 8 != 0 { bytes.append(0) }
        bytes += [1, 2, 3, 4]
        let message = try BusMessage(bytes: bytes)
        #expect(message.kind == .signal)
        #expect(message.path == "/a")
        #expect(message.interface == "org.x.Y")
        #expect(message.member == "Z")
        #expect(message.body == [.uint32(0x0102_0304)])
    }

    @Test("Truncated or inconsistent bytes are refused, not misread")
    func malformed() throws {
        let message = BusMessage(kind: .signal, path: "/a", interface: "a.b", member: "C", body: [.string("hello")])
        let bytes = try message.encoded()
        #expect(throws: BusWire.Malformed.self) { try BusMessage(bytes: Array(bytes.dropLast(3))) }
        var wrongLength = bytes
        wrongLength[4] = 200
        #expect(throws: BusWire.Malformed.self) { try BusMessage(bytes: wrongLength) }
        #expect(throws: BusWire.Malformed.self) { try BusWire.TypeCode.parse("a{sv") }
        #expect(throws: BusWire.Malformed.self) { try BusWire.TypeCode.parse("(i") }
    }
}
