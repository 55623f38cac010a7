import DBus
import Testing
import TestRequirements
import TestSupport

// Signals (broadcast, unicast, local filtering, well-known senders) and bus names.

@Suite("signals and bus names", .onItsOwnThread, .timeLimit(.minutes(5)))
struct SignalAndNameTests {
    @Test("a unicast signal reaches only its destination")
    func unicast() async throws {
        try await withBusPair { pair in
            let emitter = pair.service
            let target = pair.client
            let bystander = try pair.connect()
            defer { bystander.close() }
            let rule = MatchRule(interface: "test.Signals", member: "Note")
            let targetStream = try await target.subscribe(rule)
            let bystanderStream = try await bystander.subscribe(rule)

            try emitter.emitSignal(
                path: "/s", interface: "test.Signals", name: "Note", arguments: [.string("private")],
                destination: target.uniqueName)
            try emitter.emitSignal(path: "/s", interface: "test.Signals", name: "Note", arguments: [.string("public")])

            let first = try #require(try await next(targetStream, "the unicast signal"))
            #expect(first.arguments == [.string("private")])
            #expect(first.destination == target.uniqueName)
            #expect(try await next(targetStream, "the broadcast signal")?.arguments == [.string("public")])
            // The bystander's first signal is the broadcast one: the unicast one never came.
            #expect(try await next(bystanderStream, "the broadcast signal")?.arguments == [.string("public")])
        }
    }

    @Test("a signal to several destinations reaches each of them, each addressed to it, and no one else")
    func severalDestinations() async throws {
        try await withBusPair { pair in
            let second = try pair.connect()
            defer { second.close() }
            let bystander = try pair.connect()
            defer { bystander.close() }
            let rule = MatchRule(interface: "test.Signals", member: "Note")
            let streams = [try await pair.client.subscribe(rule), try await second.subscribe(rule)]
            let bystanderStream = try await bystander.subscribe(rule)
            let payload: [DBusValue] = [.string("to some"), .dictionary(["n": .variant(.int32(7))])]

            try pair.service.emitSignal(
                path: "/s", interface: "test.Signals", name: "Note", arguments: payload,
                destinations: [pair.client.uniqueName, second.uniqueName])
            try pair.service.emitSignal(path: "/s", interface: "test.Signals", name: "Note", arguments: [.string("public")])

            for (stream, connection) in zip(streams, [pair.client, second]) {
                let received = try #require(try await next(stream, "the unicast signal"))
                #expect(received.arguments == payload)
                #expect(received.destination == connection.uniqueName)
                #expect(received.sender == pair.service.uniqueName)
            }
            #expect(try await next(bystanderStream, "the broadcast signal")?.arguments == [.string("public")])
        }
    }

    @Test("signals are filtered locally by every field of the rule")
    func localFiltering() async throws {
        try await withBusPair { pair in
            let all = try await pair.client.subscribe(MatchRule(interface: "test.Signals"))
            let onlyB = try await pair.client.subscribe(MatchRule(path: "/b", interface: "test.Signals", member: "Note"))
            let arg0 = try await pair.client.subscribe(MatchRule(interface: "test.Signals", arg0: "wanted"))
            for (path, member, text) in [
                ("/a", "Note", "a"), ("/b", "Other", "b-other"), ("/b", "Note", "wanted"), ("/c", "Note", "last"),
            ] {
                try pair.service.emitSignal(path: path, interface: "test.Signals", name: member, arguments: [.string(text)])
            }
            var seen: [String] = []
            for _ in 0..<4 { seen.append(try await next(all)?.arguments.first?.stringValue ?? "") }
            #expect(seen == ["a", "b-other", "wanted", "last"])
            #expect(try await next(onlyB)?.arguments == [.string("wanted")])
            #expect(try await next(arg0)?.arguments == [.string("wanted")])
        }
    }

    @Test("a well-known sender matches only its current owner")
    func wellKnownSender() async throws {
        try await withBusPair { pair in
            let owner = pair.service
            let impostor = try pair.connect()
            defer { impostor.close() }
            #expect(try await owner.requestName("test.Owner") == .primaryOwner)
            let fromOwner = try await pair.client.subscribe(MatchRule(sender: "test.Owner", interface: "test.Signals"))
            let fromAnyone = try await pair.client.subscribe(MatchRule(interface: "test.Signals"))

            try impostor.emitSignal(path: "/s", interface: "test.Signals", name: "Note", arguments: [.string("impostor")])
            _ = try await impostor.nameOwner("test.Owner")  // A round trip: the bus has routed the signal.
            try owner.emitSignal(path: "/s", interface: "test.Signals", name: "Note", arguments: [.string("owner")])

            #expect(try await next(fromAnyone)?.arguments == [.string("impostor")])
            #expect(try await next(fromAnyone)?.arguments == [.string("owner")])
            #expect(try await next(fromOwner)?.arguments == [.string("owner")])

            // The name moves: the new owner's signals match, the old owner's do not.
            #expect(try await impostor.requestName("test.Owner", flags: []) == .inQueue)
            #expect(try await owner.releaseName("test.Owner") == .released)
            #expect(try await pair.client.nameOwner("test.Owner") == impostor.uniqueName)
            try owner.emitSignal(path: "/s", interface: "test.Signals", name: "Note", arguments: [.string("old owner")])
            _ = try await owner.nameOwner("test.Owner")
            try impostor.emitSignal(path: "/s", interface: "test.Signals", name: "Note", arguments: [.string("new owner")])
            #expect(try await next(fromOwner)?.arguments == [.string("new owner")])
        }
    }

    @Test("requestName: owner, already owner, exists, queue, release")
    func names() async throws {
        try await withBusPair { pair in
            #expect(try await pair.service.requestName("test.Name") == .primaryOwner)
            #expect(try await pair.service.requestName("test.Name") == .alreadyOwner)
            #expect(try await pair.client.requestName("test.Name") == .exists)
            #expect(try await pair.client.nameOwner("test.Name") == pair.service.uniqueName)
            #expect(try await pair.client.requestName("test.Name", flags: []) == .inQueue)
            #expect(try await pair.client.releaseName("test.Other") == .nonExistent)
            #expect(try await pair.service.releaseName("test.Name") == .released)
            #expect(try await pair.service.nameOwner("test.Name") == pair.client.uniqueName)
            #expect(try await pair.service.nameOwner("test.Nobody") == nil)
            // Calls by well-known name reach the owner.
            try pair.client.export(path: Echo.path, interfaces: [Echo.interface()])
            let reply = try await pair.service.call(
                destination: "test.Name", path: Echo.path, interface: Echo.interfaceName, method: "Caller")
            #expect(reply == [.string(pair.service.uniqueName)])
            let invalid = await dbusError { _ = try await pair.client.requestName("not a name") }
            #expect(invalid?.name == DBusError.invalidArgs)
        }
    }

    @Test("a stream that ends removes its match rule from the bus")
    func removeMatch() async throws {
        try await withBusPair { pair in
            let rule = MatchRule(interface: "test.Removal", member: "Gone")
            var stream: AsyncStream<DBusMessage>? = try await pair.client.subscribe(rule)
            #expect(stream != nil)
            stream = nil
            // After the stream is gone, RemoveMatch was sent: removing the rule again now fails.
            _ = try await pair.client.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                method: "GetId")
            let error = await dbusError {
                _ = try await pair.client.call(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                    method: "RemoveMatch", arguments: [.string(rule.ruleString)])
            }
            #expect(error?.name == "org.freedesktop.DBus.Error.MatchRuleNotFound")
        }
    }
}
