import AlarmKit
import DBus
import Foundation
import StressTesting
import Testing
import TestRequirements
import TestSupport

/// The real agent, on a real bus, under thousands of seeded random and hostile calls.
///
/// The seed is printed; `REVEILLE_FUZZ_SEED=<seed> swift test --skip-build --filter AgentFuzzTests`
/// sends the same calls again. `reveille-bench fuzz` runs many more.
@Suite("Agent: hostile D-Bus input", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(10)))
struct AgentFuzzTests {
    /// How much the agent's resident memory may grow between the warm-up and the end of a run.
    static let memoryGrowthLimit = 32 * 1_048_576

    @Test("3,000 random calls: the agent lives, answers each with a return or a named error, keeps its memory and its store")
    func randomCalls() async throws {
        let seed = SeededGenerator.seedFromEnvironment()
        print("AgentFuzzTests.randomCalls: seed \(seed) (replay with \(SeededGenerator.seedVariable)=\(seed))")
        // Alerts ring until answered, so no alarm goes away on its own during the run; at most 100
        // alarms, so that memory measures what the agent keeps per call, not how many alarms
        // (up to 64 KiB of metadata each) it was given. `reveille-bench fuzz` shows both.
        let agentArguments = ["--ring-timeout", "0", "--max-alarms", "100"]
        let fixture = try await AgentFixture.start(agentArguments: agentArguments, agentEnvironment: AgentMemory.environment)
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let agent = try #require(fixture.agent)
        let fuzzer = try await AgentFuzzer(busAddress: fixture.sandbox.busAddress, seed: seed) { agent.isRunning }

        // Warm-up: every kind of call, huge strings included, before memory is measured.
        await fuzzer.run(calls: 500)
        let before = ProcessTable.residentBytes(of: agent.pid) ?? 0
        let report = await fuzzer.run(calls: 2_500)
        let after = ProcessTable.residentBytes(of: agent.pid) ?? Int.max
        print(report)
        print("agent VmRSS after the warm-up \(before / 1024) KiB, at the end \(after / 1024) KiB")
        #expect(report.problemCount == 0, "\(report)\n\(CrashLog.summary(of: agent.standardError))")
        #expect(report.calls + report.unsendable + report.signals >= 3_000, "\(report)")

        // The same agent is alive and answers.
        try #require(agent.isRunning, "\(CrashLog.summary(of: agent.standardError))")
        let owner = try await offPool { try fixture.sandbox.busNameOwnerPID(AgentClient.busName) }
        #expect(owner == agent.pid)
        let status = try await fixture.reveille("status", "--json")
        #expect(status.status == .exited(0) && status.output.contains(#""running":true"#), "\(status)")

        // Its memory did not run away.
        #expect(
            after - before < Self.memoryGrowthLimit,
            "VmRSS after the warm-up \(before / 1024) KiB, after \(report.calls) calls \(after / 1024) KiB: grew \((after - before) / 1024) KiB"
        )

        // The store holds exactly what the answers said, and keeps it across a restart.
        let expected = await fuzzer.expected
        let listed = try await fixture.listedAlarms()
        let listedIDs = Set(listed.compactMap { UUID(uuidString: $0.id) })
        #expect(expected.mustExist.subtracting(listedIDs).isEmpty, "accepted but not listed: \(expected.mustExist.subtracting(listedIDs))")
        #expect(listedIDs.subtracting(expected.mayExist).isEmpty, "listed but never accepted: \(listedIDs.subtracting(expected.mayExist))")
        for alarm in listed {
            guard let id = UUID(uuidString: alarm.id), let known = expected.alarms[id], known.exists == true else { continue }
            #expect(alarm.title == known.title, "alarm \(alarm.id)")
        }
        // Every alarm has its D-Bus object, and no object outlived its alarm.
        let client = try fixture.client()
        let managed = try await client.connection.call(
            destination: AgentClient.busName, path: AgentClient.managerPath, interface: "org.freedesktop.DBus.ObjectManager",
            method: "GetManagedObjects")
        let objectIDs = Set(
            (managed.first?.dictionaryValue ?? [:]).keys.compactMap { path in
                UUID(uuidString: String(path.split(separator: "/").last ?? "").replacingOccurrences(of: "_", with: "-"))
            })
        #expect(
            objectIDs == listedIDs,
            "alarms without objects: \(listedIDs.subtracting(objectIDs)); objects without alarms: \(objectIDs.subtracting(listedIDs))")

        let restarted = try await fixture.restart(agent, arguments: agentArguments, environment: AgentMemory.environment)
        defer { restarted.terminate() }
        let relisted = try await fixture.listedAlarms()
        #expect(relisted.map(\.id) == listed.map(\.id))
        #expect(relisted.map(\.title) == listed.map(\.title))
        #expect(relisted.map(\.schedule) == listed.map(\.schedule))
    }

    @Test(
        "Huge arguments never blow the agent up: a 30 MiB signal to it is dropped unread, a 30 MiB Schedule is refused by name; its memory stays bounded and it answers on"
    )
    func hugeArguments() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let agent = try #require(fixture.agent)
        let python = try await fixture.authorizePython()
        let before = try #require(ProcessTable.residentBytes(of: agent.pid))
        // dbus-python builds the 30 MiB cheaply; DBusValue would take a value per byte here too.
        let script = """
            import dbus, dbus.lowlevel
            bus = dbus.SessionBus()
            blob = dbus.ByteArray(b"\\x07" * (30 << 20))
            signal = dbus.lowlevel.SignalMessage("/test/huge", "test.Huge", "Blob")
            signal.set_destination("\(AgentClient.busName)")
            signal.append(blob, signature="ay")
            bus.send_message(signal)
            manager = dbus.Interface(bus.get_object("\(AgentClient.busName)", "\(AgentClient.managerPath)", introspect=False), "\(AgentClient.managerInterface)")
            try:
                manager.Schedule("\(UUID().lowercasedText())", {"title": "huge", "blob": blob}, signature="sa{sv}", timeout=60)
                print("return")
            except dbus.exceptions.DBusException as error:
                print(error.get_dbus_name(), error.get_dbus_message())
            """
        let sent = try await fixture.run(python, ["-c", script])
        #expect(sent.status == .exited(0), "\(sent)")
        #expect(sent.output.hasPrefix(DBusError.limitsExceeded), "\(sent)")
        let listed = try await fixture.reveille("list")
        #expect(listed.status == .exited(0), "\(listed)")
        let after = try #require(ProcessTable.residentBytes(of: agent.pid))
        print("AgentFuzzTests.hugeArguments: the agent's memory \(before >> 20) MiB before, \(after >> 20) MiB after")
        #expect(after - before < 150 << 20, "the agent grew from \(before >> 20) to \(after >> 20) MiB")
        #expect(agent.isRunning, "\(CrashLog.summary(of: agent.standardError))")
    }

    @Test(
        "Messages carrying file descriptors (many, where none is expected, from callers gone at once): refused or ignored by name, and every descriptor closed"
    )
    func fileDescriptors() async throws {
        let seed = SeededGenerator.seedFromEnvironment()
        print("AgentFuzzTests.fileDescriptors: seed \(seed) (replay with \(SeededGenerator.seedVariable)=\(seed))")
        var rng = SeededGenerator(seed: seed)
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let agent = try #require(fixture.agent)
        let connection = try fixture.client().connection
        defer { connection.close() }
        try #require(connection.canPassFileDescriptors)

        // Every descriptor sent is a copy of one pipe's write end: the read end reaches its end
        // only once every copy, the agent's included, is closed.
        let (readEnd, firstWriteEnd) = try Pipes.make()
        defer { close(readEnd) }
        let interface = AgentClient.managerInterface
        var outcomes: [String: Int] = [:]
        var descriptorsSent = 0
        do {
            let writeEnd = UnixFileDescriptor(taking: firstWriteEnd)
            for round in 0..<600 {
                // Many (up to the bus's 16 a message), in places no method expects them.
                let count = rng.chance(0.2) ? 16 : Int.random(in: 1...4, using: &rng)
                let fds = [DBusValue](repeating: .unixFD(writeEnd), count: count)
                descriptorsSent += count
                let id = UUID.random().lowercasedText()
                let (path, member, arguments): (String, String, [DBusValue]) =
                    switch round % 6 {
                    case 0: (AgentClient.managerPath, rng.pick(["List", "Watch", "Status", "ListAuthorizations"]), fds)
                    case 1:
                        (
                            AgentClient.managerPath, "Schedule",
                            [.string(id), .dictionary(["title": .string("fd"), "fd": fds[0]])] + fds.dropFirst()
                        )
                    case 2: (AgentClient.managerPath, rng.pick(["Cancel", "Stop", "Pause", "Resume", "Countdown"]), [.string(id)] + fds)
                    case 3: (AgentClient.managerPath, "Schedule", [.string(id), .dictionary(["title": .variant(fds[0])])])
                    case 4: ("/io/github/reveille/Alarms1/alarm/" + id.replacingOccurrences(of: "-", with: "_"), "Cancel", fds)
                    default: (AgentClient.managerPath, "NoSuchMethod", [.array(elementSignature: "h", fds)])
                    }
                let message = try DBusMessage.methodCall(
                    destination: AgentClient.busName, path: path, interface: interface, method: member, arguments: arguments)
                if round % 5 == 4 {
                    // Closed early: an app that sends and leaves at once, before any answer; what
                    // its message carried reaches an agent whose caller is gone.
                    let address = fixture.sandbox.busAddress
                    try await offPool {
                        let leaving = try DBusConnection.connect(address: address)
                        try leaving.send(message)
                        leaving.close()
                    }
                    outcomes["sent, sender gone", default: 0] += 1
                    continue
                }
                if round % 10 == 9 {
                    // Sent as a signal to the agent alone: nothing answers, nothing may be kept.
                    let signal = try DBusMessage.signal(
                        path: "/test/fd", interface: "test.Descriptors", name: "Hand", arguments: fds,
                        destination: AgentClient.busName)
                    try connection.send(signal)
                }
                do {
                    _ = try await connection.call(message, timeout: .seconds(20))
                    outcomes["return", default: 0] += 1
                } catch let error as DBusError {
                    outcomes[error.name, default: 0] += 1
                }
            }
        }
        print("AgentFuzzTests.fileDescriptors: \(descriptorsSent) descriptors sent; answers \(outcomes.sorted { $0.key < $1.key })")
        #expect(outcomes[DBusError.noReply] == nil, "calls went unanswered: \(outcomes)")
        for name in outcomes.keys where name != "return" && name != "sent, sender gone" {
            #expect(
                name.hasPrefix("org.freedesktop.DBus.Error.") || name.hasPrefix("io.github.reveille.Alarms1.Error."),
                "an answer with no named error: \(name)")
        }
        // What carried descriptors changed nothing, and the agent holds none of them.
        #expect(try await fixture.listedAlarms().isEmpty)
        let ended = try await offPool { Pipes.readToEnd(readEnd, timeout: .seconds(10)) }
        #expect(ended != nil, "a copy of the descriptors sent is still open in the agent")
        try #require(agent.isRunning, "\(CrashLog.summary(of: agent.standardError))")
        let status = try await fixture.reveille("status", "--json")
        #expect(status.status == .exited(0) && status.output.contains(#""running":true"#), "\(status)")
    }
}
