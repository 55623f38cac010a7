import DBus
import Testing
import TestRequirements
import TestSupport

// Values of every type go out through libdbus, across a real dbus-daemon, into an exported
// object that echoes them, and back: what comes back must equal what was sent.

@Suite("D-Bus values round-trip through a real bus", .onItsOwnThread, .timeLimit(.minutes(5)))
struct ValueRoundTripTests {
    @Test("every basic type, at its extremes")
    func basics() async throws {
        try await withBusPair { pair in
            try pair.service.export(path: Echo.path, interfaces: [Echo.interface()])
            let sets: [[DBusValue]] = [
                [
                    .byte(0), .boolean(false), .int16(.min), .uint16(0), .int32(.min), .uint32(0), .int64(.min),
                    .uint64(0), .double(-0.5), .string(""), .objectPath("/"), .signature(""),
                ],
                [
                    .byte(255), .boolean(true), .int16(.max), .uint16(.max), .int32(.max), .uint32(.max),
                    .int64(.max), .uint64(.max), .double(.greatestFiniteMagnitude), .string("héllo ✓ \u{1F600}"),
                    .objectPath("/a/b_c/D1"), .signature("a{sv}(iai)"),
                ],
            ]
            for values in sets {
                let reply = try await pair.client.call(
                    destination: pair.service.uniqueName, path: Echo.path, interface: Echo.interfaceName,
                    method: "EchoBasics", arguments: values)
                #expect(reply == values)
            }
        }
    }

    @Test("A message past the reading limits (a million values) is answered LimitsExceeded, not read; one within them round-trips")
    func readingLimits() async throws {
        try await withBusPair { pair in
            try pair.service.export(path: Echo.path, interfaces: [Echo.interface()])
            func echo(bytes count: Int) async throws -> [DBusValue] {
                try await pair.client.call(
                    destination: pair.service.uniqueName, path: Echo.path, interface: Echo.interfaceName, method: "Echo",
                    arguments: [.variant(.array(elementSignature: "y", [DBusValue](repeating: .byte(7), count: count)))],
                    timeout: .seconds(60))
            }
            // The variant and the array are values too.
            let within = try await echo(bytes: 999_000)
            #expect(within.first?.arrayValue?.count == 999_000)
            await #expect(throws: DBusError.self) { _ = try await echo(bytes: 1_000_000) }
            do {
                _ = try await echo(bytes: 1_000_000)
            } catch let error as DBusError {
                #expect(error.name == DBusError.limitsExceeded, "\(error)")
                #expect(error.message.contains("1000000 values"), "\(error)")
            }
            // The service answers on.
            #expect(try await echo(bytes: 3).first?.arrayValue?.count == 3)
        }
    }

    @Test("variants of every kind, containers, empty arrays and a 1 MB string")
    func containers() async throws {
        try await withBusPair { pair in
            try pair.service.export(path: Echo.path, interfaces: [Echo.interface()])
            let big = String(repeating: "0123456789abcdef", count: 65_536)  // 1 MiB
            let nested: DBusValue = .dictionary([
                "list": .array(elementSignature: "i", [.int32(1), .int32(-2), .int32(3)]),
                "empty": .array(elementSignature: "s", []),
                "emptyDict": .dictionary([:]),
                "inner": .dictionary([
                    "deep": .variant(.array(elementSignature: "ay", [.array(elementSignature: "y", [.byte(1), .byte(2)])]))
                ]),
                "path": .objectPath("/io/github/reveille/Alarms1/alarm/0"),
                "struct": .structure([
                    .string("x"), .uint64(9), .array(elementSignature: "(bd)", [.structure([.boolean(true), .double(1.5)])]),
                ]),
                "double": .double(3.25),
            ])
            let values: [DBusValue] = [
                .byte(7), .boolean(true), .int16(-3), .uint16(3), .int32(-70_000), .uint32(70_000),
                .int64(-1 << 40), .uint64(1 << 60), .double(2.5), .string("text"), .objectPath("/x/y"),
                .signature("a{oa{sa{sv}}}"), .variant(.string("variant in a variant")),
                .array(elementSignature: "s", []), .array(elementSignature: "a{sv}", [.dictionary([:])]),
                .array(elementSignature: "y", (0...255).map { .byte(UInt8($0)) }),
                .array(elementSignature: "{ias}", [.dictEntry(.int32(1), .strings(["a", "b"])), .dictEntry(.int32(2), .strings([]))]),
                .structure([.int32(1), .structure([.string("nested"), .variant(.boolean(false))])]),
                // Element types read from type codes ({basic v}, v) and from the signature.
                .array(elementSignature: "{iv}", [.dictEntry(.int32(1), .variant(.string("x")))]),
                .array(elementSignature: "{ov}", []),
                .array(elementSignature: "v", [.variant(.int32(1)), .variant(.string("s"))]),
                .array(elementSignature: "{sa{sv}}", [.dictEntry(.string("i"), .dictionary(["k": .boolean(true)]))]),
                .array(elementSignature: "(sv)", [.structure([.string("k"), .variant(.double(1))])]),
                nested, .string(big),
            ]
            for value in values {
                let reply = try await pair.client.call(
                    destination: pair.service.uniqueName, path: Echo.path, interface: Echo.interfaceName,
                    method: "Echo", arguments: [.variant(value)])
                #expect(reply == [.variant(value)], "value of type \(value.signature)")
            }
            let dict = try await pair.client.call(
                destination: pair.service.uniqueName, path: Echo.path, interface: Echo.interfaceName,
                method: "EchoDict", arguments: [nested])
            #expect(dict == [nested])
            #expect(dict.first?.dictionaryValue?["double"]?.doubleValue == 3.25)

            let structure: DBusValue = .structure([
                .string("s"), .dictionary(["k": .int32(1)]), .array(elementSignature: "i", []),
            ])
            let echoedStruct = try await pair.client.call(
                destination: pair.service.uniqueName, path: Echo.path, interface: Echo.interfaceName,
                method: "EchoStruct", arguments: [structure])
            #expect(echoedStruct == [structure])

            let arrayOfDicts: DBusValue = .array(
                elementSignature: "a{sas}",
                [
                    .array(elementSignature: "{sas}", []),
                    .array(elementSignature: "{sas}", [.dictEntry(.string("k"), .strings(["v", "w"]))]),
                ])
            let echoedNested = try await pair.client.call(
                destination: pair.service.uniqueName, path: Echo.path, interface: Echo.interfaceName,
                method: "EchoNested", arguments: [arrayOfDicts])
            #expect(echoedNested == [arrayOfDicts])

            let echoedBig = try await pair.client.call(
                destination: pair.service.uniqueName, path: Echo.path, interface: Echo.interfaceName,
                method: "EchoString", arguments: [.string(big)])
            #expect(echoedBig.first?.stringValue?.utf8.count == 1 << 20)
            #expect(echoedBig == [.string(big)])
        }
    }

    @Test("a message's header fields and arguments are read back")
    func messageFields() async throws {
        try await withBusPair { pair in
            try pair.service.export(path: Echo.path, interfaces: [Echo.interface()])
            let call = try DBusMessage.methodCall(
                destination: pair.service.uniqueName, path: Echo.path, interface: Echo.interfaceName,
                method: "EchoString", arguments: [.string("hi")])
            #expect(call.type == .methodCall)
            #expect(call.signature == "s")
            #expect(call.serial == 0)
            let reply = try await pair.client.call(call)
            #expect(call.serial != 0)
            #expect(reply.type == .methodReturn)
            #expect(reply.replySerial == call.serial)
            #expect(reply.sender == pair.service.uniqueName)
            #expect(reply.destination == pair.client.uniqueName)
            #expect(reply.signature == "s")
            #expect(reply.arguments == [.string("hi")])
            #expect(reply.argumentError == nil)
        }
    }

    @Test("many concurrent calls on one connection all get their own answers")
    func concurrentCalls() async throws {
        try await withBusPair { pair in
            try pair.service.export(path: Echo.path, interfaces: [Echo.interface()])
            let client = pair.client
            let destination = pair.service.uniqueName
            let answers = try await withThrowingTaskGroup(of: (Int, [DBusValue]).self) { group in
                for index in 0..<100 {  // The bus allows 128 pending replies per connection.
                    group.addTask {
                        let reply = try await client.call(
                            destination: destination, path: Echo.path, interface: Echo.interfaceName,
                            method: "Echo", arguments: [.variant(.int32(Int32(index)))])
                        return (index, reply)
                    }
                }
                var answers: [Int: [DBusValue]] = [:]
                for try await (index, reply) in group { answers[index] = reply }
                return answers
            }
            #expect(answers.count == 100)
            for (index, reply) in answers {
                #expect(reply == [.variant(.int32(Int32(index)))])
            }
        }
    }
}

@Suite("building messages", .onItsOwnThread, .timeLimit(.minutes(5)))
struct MessageBuildingTests {
    @Test("invalid names, paths and values are refused with InvalidArgs, not sent")
    func invalidInput() {
        func refused(_ build: () throws -> DBusMessage) -> DBusError? {
            do {
                _ = try build()
                return nil
            } catch let error as DBusError {
                return error
            } catch {
                return nil
            }
        }
        let cases: [() throws -> DBusMessage] = [
            { try DBusMessage.methodCall(destination: "x", path: "no-slash", interface: "a.b", method: "M") },
            { try DBusMessage.methodCall(destination: "a.b", path: "/ok", interface: "not an interface", method: "M") },
            { try DBusMessage.methodCall(destination: "a.b", path: "/ok", interface: "a.b", method: "bad-name") },
            { try DBusMessage.signal(path: "/ok/", interface: "a.b", name: "S") },
            {
                try DBusMessage.signal(
                    path: "/ok", interface: "a.b", name: "S", arguments: [.array(elementSignature: "s", [.int32(1)])])
            },
            { try DBusMessage.signal(path: "/ok", interface: "a.b", name: "S", arguments: [.objectPath("relative")]) },
            { try DBusMessage.signal(path: "/ok", interface: "a.b", name: "S", arguments: [.string("nul\0inside")]) },
            { try DBusMessage.signal(path: "/ok", interface: "a.b", name: "S", arguments: [.structure([])]) },
            { try DBusMessage.signal(path: "/ok", interface: "a.b", name: "S", arguments: [.dictEntry(.string("k"), .int32(1))]) },
            { try DBusMessage.signal(path: "/ok", interface: "a.b", name: "S", arguments: [.signature("a")]) },
            {
                try DBusMessage.signal(
                    path: "/ok", interface: "a.b", name: "S",
                    arguments: [.array(elementSignature: "{vs}", [.dictEntry(.variant(.int32(1)), .string("x"))])])
            },
        ]
        for (index, build) in cases.enumerated() {
            #expect(refused(build)?.name == DBusError.invalidArgs, "case \(index)")
        }
    }

    @Test("a built signal carries its fields and arguments")
    func builtSignal() throws {
        let signal = try DBusMessage.signal(
            path: "/a", interface: "a.b", name: "Changed", arguments: [.string("x"), .dictionary(["k": .uint32(1)])],
            destination: ":1.5")
        #expect(signal.type == .signal)
        #expect(signal.path == "/a")
        #expect(signal.interface == "a.b")
        #expect(signal.member == "Changed")
        #expect(signal.destination == ":1.5")
        #expect(signal.signature == "sa{sv}")
        #expect(signal.arguments == [.string("x"), .dictionary(["k": .uint32(1)])])
    }

    @Test("match rules are written as the bus reads them, quotes escaped")
    func matchRules() {
        #expect(MatchRule().ruleString == "type='signal'")
        let rule = MatchRule(sender: "a.b", path: "/p", interface: "a.b.C", member: "M", arg0: "it's")
        #expect(rule.ruleString == "type='signal',sender='a.b',path='/p',interface='a.b.C',member='M',arg0='it'\\''s'")
    }
}
