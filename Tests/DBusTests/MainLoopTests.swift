import DBus
import Foundation
import Synchronization
import Testing
import TestRequirements
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

// The connection's loop: idleness without wake-ups, timeouts, cancellation, close, and the bus
// going away under it.

/// Exports at `/h` on `service` an object whose `test.Hang.Hang` method does not answer until
/// `body` has returned; `body` gets a stream that reports each call as its handler starts.
private func withHangingObject(on service: DBusConnection, _ body: (AsyncStream<Void>) async throws -> Void) async throws {
    let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
    let (release, releaseContinuation) = AsyncStream.makeStream(of: Void.self)
    defer { releaseContinuation.finish() }
    let interface = DBusInterface(
        name: "test.Hang",
        methods: [
            DBusMethod(name: "Hang") { _ in
                enteredContinuation.yield()
                for await _ in release {}
                return []
            }
        ])
    try service.export(path: "/h", interfaces: [interface])
    try await body(entered)
}

/// Calls `/h`'s never-answered `Hang` with `limit`, blocking a thread of its own, and times the
/// call there, from just before it is sent: the cooperative pool, busy with the other tests
/// while the suite starts, may resume a waiting task many seconds late; a thread blocked on the
/// reply wakes when it comes.
private func timedHangingCall(
    _ client: DBusConnection, _ service: String, limit: Duration
) async throws -> (name: String?, elapsed: Duration) {
    try await offPool {
        let message = try DBusMessage.methodCall(destination: service, path: "/h", interface: "test.Hang", method: "Hang")
        let start = ContinuousClock.now
        do {
            _ = try client.callBlocking(message, timeout: limit)
            return (nil, ContinuousClock.now - start)
        } catch let error as DBusError {
            return (error.name, ContinuousClock.now - start)
        }
    }
}

@Suite("the connection loop", .onItsOwnThread, .timeLimit(.minutes(5)))
struct MainLoopTests {
    @Test("an idle connection does not wake up")
    func idleHasNoWakeUps() async throws {
        try await withBusPair { pair in
            // Give the connections something to hold: an object, a subscription, a name.
            try pair.service.export(path: Echo.path, interfaces: [Echo.interface()])
            _ = try await pair.service.requestName("test.Idle")
            let stream = try await pair.client.subscribe(MatchRule(interface: "test.Idle"))
            _ = try await pair.client.call(
                destination: "test.Idle", path: Echo.path, interface: Echo.interfaceName, method: "EchoString",
                arguments: [.string("settle")])
            // The call is answered: its time limit no longer sets the reply timer.
            #expect(pair.client.replyTimer == (0, nil))
            #expect(pair.client.loopIterations > 0)
            let woke = try await occurrences(of: "wake-ups of the idle loops", over: .milliseconds(1200)) {
                pair.client.loopIterations + pair.service.loopIterations
            }
            #expect(woke.count == 0, "\(woke)")
            _ = stream
        }
    }

    @Test("messages sent from other threads leave at once, in order, without waking the sender's loop")
    func sendsWithoutWakingTheLoop() async throws {
        try await withBusPair { pair in
            let rule = MatchRule(interface: "test.Direct", member: "Note")
            let stream = try await pair.client.subscribe(rule)
            // Let the service's loop settle after its own set-up.
            try await Task.sleep(for: .milliseconds(200))
            let before = pair.service.loopIterations
            // One at a time, each received before the next is sent, so that no send finds the
            // loop already awake.
            var received: [Int32] = []
            for number in 0..<200 {
                try pair.service.emitSignal(path: "/d", interface: "test.Direct", name: "Note", arguments: [.int32(Int32(number))])
                guard let message = try await next(stream, "signal \(number)"),
                    case .int32(let got) = message.arguments.first
                else { break }
                received.append(got)
            }
            #expect(received == Array(0..<200))
            // Each send used to be a job for the loop thread: 200 wake-ups.
            let woke = pair.service.loopIterations - before
            #expect(woke < 10, "the service's loop woke \(woke) times for 200 signals")
        }
    }

    @Test("calls from other threads leave at once and their replies come back, without a wake-up of the caller's loop to send them")
    func callsWithoutWakingTheLoop() async throws {
        try await withBusPair { pair in
            try pair.service.export(path: Echo.path, interfaces: [Echo.interface()])
            // Let the client's loop settle after its own set-up.
            try await Task.sleep(for: .milliseconds(200))
            let before = pair.client.loopIterations
            for number in 0..<200 {
                let reply = try await pair.client.call(
                    destination: pair.service.uniqueName, path: Echo.path, interface: Echo.interfaceName, method: "EchoString",
                    arguments: [.string("call \(number)")])
                #expect(reply == [.string("call \(number)")])
            }
            // The loop wakes once per call, for its reply; each call used to be a job for the
            // loop thread as well: 400 wake-ups or more.
            let woke = pair.client.loopIterations - before
            #expect(woke < 250, "the client's loop woke \(woke) times for 200 calls")
        }
    }

    @Test(
        "calls with different time limits each end at their own, answered ones never; the reply timer follows the earliest, and is off once none waits"
    )
    func callTimeLimits() async throws {
        try await withBusPair { pair in
            try await withHangingObject(on: pair.service) { entered in
                try pair.service.export(path: Echo.path, interfaces: [Echo.interface()])
                let client = pair.client
                let service = pair.service.uniqueName
                // Sent longest first, so that each later call moves the timer earlier.
                let limits: [Duration] = [.milliseconds(1500), .milliseconds(1000), .milliseconds(400)]
                var hanging: [Task<(name: String?, elapsed: Duration), any Error>] = []
                for (index, limit) in limits.enumerated() {
                    hanging.append(Task { try await timedHangingCall(client, service, limit: limit) })
                    _ = try await next(entered, "hanging call \(index)")
                }
                // Each call moved the timer earlier: it fires for the shortest limit (unless a loaded
                // machine took so long that the shortest has passed already).
                // (No time left, `nil`, is the shortest's limit passed, its call not yet ended.)
                let timer = client.replyTimer
                if timer.waiting == 3, let firesIn = timer.firesIn {
                    #expect(firesIn <= .milliseconds(400), "the reply timer fires in \(firesIn)")
                }
                // Answered while the hanging calls' limits pass around it: the timer firing for
                // them ends them, never a call that is answered. (Its own limit is far above any
                // answer's time, so a loaded machine's slow answer cannot end it either.)
                let echoed = try await client.call(
                    destination: service, path: Echo.path, interface: Echo.interfaceName, method: "EchoString",
                    arguments: [.string("quick")], timeout: .seconds(20))
                #expect(echoed == [.string("quick")])
                for (limit, task) in zip(limits, hanging) {
                    let (name, elapsed) = try await task.value
                    #expect(name == DBusError.noReply, "the \(limit) call ended with \(name ?? "a reply")")
                    // Never early; and at its own limit, not at a longer one's: the 400 ms call
                    // ending with the 1.5 s one would take 1.5 s. The second of slack is for a
                    // loaded machine's thread wake-ups.
                    #expect(elapsed >= limit && elapsed < limit + .seconds(1), "the \(limit) call ended after \(elapsed)")
                }
                // Nothing waits: the timer is off.
                #expect(client.replyTimer == (0, nil))
            }
        }
    }

    @Test("a call with no answer times out with NoReply, through the connection's reply timer", .timeLimit(.minutes(1)))
    func callTimeout() async throws {
        try await withBusPair { pair in
            try await withHangingObject(on: pair.service) { _ in
                // Awaited: NoReply, never early. Were the limit ignored, the call would wait on
                // and the test run out of time.
                let start = ContinuousClock.now
                let error = await dbusError {
                    _ = try await pair.client.call(
                        destination: pair.service.uniqueName, path: "/h", interface: "test.Hang", method: "Hang",
                        timeout: .milliseconds(300))
                }
                #expect(error?.name == DBusError.noReply)
                #expect(ContinuousClock.now - start >= .milliseconds(300))
                // Timed on a thread of its own: the given limit, not a default, ended the call.
                let (name, elapsed) = try await timedHangingCall(pair.client, pair.service.uniqueName, limit: .milliseconds(300))
                #expect(name == DBusError.noReply)
                #expect(elapsed >= .milliseconds(300) && elapsed < .milliseconds(1300), "took \(elapsed)")
                // The connection still works.
                try pair.service.export(path: Echo.path, interfaces: [Echo.interface()])
                _ = try await pair.client.call(
                    destination: pair.service.uniqueName, path: Echo.path, interface: Echo.interfaceName, method: "Caller")
            }
        }
    }

    @Test("cancelling the task cancels the pending call")
    func cancellation() async throws {
        try await withBusPair { pair in
            try await withHangingObject(on: pair.service) { entered in
                let client = pair.client
                let service = pair.service.uniqueName
                let task = Task {
                    try await client.call(
                        destination: service, path: "/h", interface: "test.Hang", method: "Hang", timeout: .seconds(60))
                }
                _ = try await next(entered, "the handler to start")
                task.cancel()
                let result = try await within(.seconds(5), "the cancelled call to end") { await task.result }
                #expect(throws: CancellationError.self) { try result.get() }
                // A call cancelled before it starts is never sent.
                let early = Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return try await client.call(destination: service, path: "/h", interface: "test.Hang", method: "Hang")
                }
                await #expect(throws: CancellationError.self) { try await early.value }
                #expect(client.isConnected)
            }
        }
    }

    @Test("close ends the connection: disconnected fires, streams finish, calls fail, the loop stops")
    func close() async throws {
        try await withBusPair { pair in
            let stream = pair.client.signals(MatchRule(interface: "test.Closing"))
            let disconnected = pair.client.disconnected
            pair.client.close()
            #expect(try await next(disconnected, "disconnected") != nil)
            #expect(try await next(stream, "the stream to finish") == nil)
            let error = await dbusError {
                _ = try await pair.client.call(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                    method: "GetId")
            }
            #expect(error?.name == DBusError.disconnected)
            #expect(throws: DBusError.self) {
                try pair.client.emitSignal(path: "/x", interface: "a.b", name: "C", arguments: [])
            }
            // A stream asked for after the end fires at once.
            #expect(try await next(pair.client.disconnected, "late disconnected") != nil)
            #expect(try await next(pair.client.signals(MatchRule()), "a late stream") == nil)
            // The other connection is unaffected.
            _ = try await pair.service.nameOwner("org.freedesktop.DBus")
        }
    }

    @Test("the bus daemon killed: disconnected fires, pending calls fail, streams finish, no spinning")
    func busGoesAway() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let service = try DBusConnection.connect(address: bus.address)
        let client = try DBusConnection.connect(address: bus.address)
        try await withHangingObject(on: service) { entered in
            let clientGone = client.disconnected
            let serviceGone = service.disconnected
            let stream = try await client.subscribe(MatchRule(interface: "test.Gone"))
            let destination = service.uniqueName
            let pending = Task {
                try await client.call(destination: destination, path: "/h", interface: "test.Hang", method: "Hang", timeout: .seconds(120))
            }
            _ = try await next(entered, "the handler to start")

            #expect(kill(bus.pid, SIGKILL) == 0)

            #expect(try await next(clientGone, "the client's disconnected") != nil)
            #expect(try await next(serviceGone, "the service's disconnected") != nil)
            let result = try await within(.seconds(5), "the pending call to fail") { await pending.result }
            let failure = #expect(throws: DBusError.self) { try result.get() }
            #expect([DBusError.noReply, DBusError.disconnected].contains(failure?.name ?? ""), "\(String(describing: failure))")
            #expect(try await next(stream, "the stream to finish") == nil)
            #expect(!client.isConnected)

            // The loops stop and stay still: no spinning on a dead socket.
            try await waitUntil("both loops to stop") { !client.isLoopRunning && !service.isLoopRunning ? () : nil }
            let spun = try await occurrences(of: "loop iterations on a dead socket", over: .milliseconds(500)) {
                client.loopIterations + service.loopIterations
            }
            #expect(spun.count == 0, "\(spun)")

            let after = await dbusError { _ = try await client.nameOwner("org.freedesktop.DBus") }
            #expect(after?.name == DBusError.disconnected)
        }
    }

    @Test("connecting to nothing fails with an error; session() without an address refuses to autolaunch")
    func connectFailures() throws {
        #expect(throws: DBusError.self) {
            _ = try DBusConnection.connect(address: "unix:path=/nonexistent/reveille-no-bus")
        }
        // Only checked when the variable is unset already: tests must not change the environment
        // that tests running next to them read.
        if ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] == nil {
            let error = #expect(throws: DBusError.self) { _ = try DBusConnection.session() }
            #expect(error?.name == DBusError.noServer)
            #expect(error?.message.contains("DBUS_SESSION_BUS_ADDRESS") == true)
        }
    }

    @Test("dropping a connection closes it and stops its loop")
    func dropClosesConnection() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let watcher = try DBusConnection.connect(address: bus.address)
        defer { watcher.close() }
        var connection: DBusConnection? = try DBusConnection.connect(address: bus.address)
        let name = connection!.uniqueName
        let gone = try await watcher.subscribe(
            MatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: name))
        #expect(try await watcher.nameOwner(name) == name)
        connection = nil
        let change = try #require(try await next(gone, "NameOwnerChanged for the dropped connection"))
        #expect(change.arguments == [.string(name), .string(name), .string("")])
    }
}
