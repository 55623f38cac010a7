import AlarmKit
import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

/// AlarmKit's authorization: the person is asked once, through a real notification server.
@Suite("Agent: authorization", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
struct AuthorizationTests {
    static let script = AgentFixture.otherApp

    @Test("A first Schedule asks with a notification naming the app; Allow lets it schedule, and is stored")
    func allow() async throws {
        let fixture = try await AgentFixture.start(notificationServer: true)
        defer { fixture.stop() }
        let python = Built.systemPython
        let monitor = try fixture.sandbox.monitorNotifyCalls()
        let app = try fixture.sandbox.spawn(python, [Self.script, "schedule", UUID().uuidString, "Allowed", "600"])
        let question = try await monitor.waitForNotify(matching: { $0.summary.contains("set alarms") }, timeout: .seconds(30))
        #expect(question.summary.contains("python3"), "the question names the app: \(question.summary)")
        #expect(question.actions == ["allow", "Allow", "deny", "Don’t Allow"])
        try await fixture.sandbox.waitForDisplayedCount(1)
        _ = try await offPool { try fixture.sandbox.pickAction("allow") }
        #expect(try await app.waitForExit(timeout: .seconds(30)) == .exited(0), "\(app.outputs())")
        let auth = try await fixture.reveille("auth", "list")
        #expect(auth.output.contains("authorized"))
        #expect(auth.output.contains("python3"))
        // Asked once: a second Schedule goes through without a question.
        let again = try await fixture.run(python, [Self.script, "schedule", UUID().uuidString, "Again", "600"])
        #expect(again.status == .exited(0))
        #expect(monitor.notifyCalls().filter { $0.summary.contains("set alarms") }.count == 1)
    }

    @Test(
        "An undecided app cannot make the agent deaf: past two of its calls waiting for the person, more are refused at once, and huge waiting calls never stop the answer being heard",
        .timeLimit(.minutes(2)))
    func waitingCallsBounded() async throws {
        let fixture = try await AgentFixture.start(notificationServer: true)
        defer { fixture.stop() }
        let python = Built.systemPython
        let request = try fixture.sandbox.spawn(python, [Self.script, "request"])
        try await fixture.sandbox.waitForDisplayedCount(1)
        // Three Schedule calls of 25 MiB each: together past libdbus's 63 MiB of live messages.
        let big = try (0..<3).map { _ in
            try fixture.sandbox.spawn(python, [Self.script, "schedule-big", UUID().uuidString, "25"])
        }
        // The request and one Schedule may wait; the other two are refused at once, by name.
        let refused = try await waitUntil(
            "two calls refused", timeout: .seconds(60), detail: { big.map { $0.outputs() }.joined(separator: "\n") }
        ) {
            let done = big.filter { !$0.isRunning }
            return done.count >= 2 ? done : nil
        }
        for call in refused {
            #expect(call.standardOutput.hasPrefix("error: io.github.reveille.Alarms1.Error.NotAuthorized"), "\(call.outputs())")
            #expect(call.standardOutput.contains("already wait"), "\(call.outputs())")
        }
        // The person's answer is heard, and the waiting calls are answered.
        _ = try await offPool { try fixture.sandbox.pickAction("allow") }
        #expect(try await request.waitForExit(timeout: .seconds(30)) == .exited(0), "\(request.outputs())")
        #expect(request.standardOutput.trimmingCharacters(in: .newlines) == "authorized")
        for call in big { _ = try await call.waitForExit(timeout: .seconds(30)) }
        let listed = try await fixture.reveille("list")
        #expect(listed.status == .exited(0), "\(listed)")
    }

    @Test("Don't Allow denies; a denied app's Schedule fails with NotAuthorized; reset asks again")
    func deny() async throws {
        let fixture = try await AgentFixture.start(notificationServer: true)
        defer { fixture.stop() }
        let python = Built.systemPython
        let app = try fixture.sandbox.spawn(python, [Self.script, "request"])
        try await fixture.sandbox.waitForDisplayedCount(1)
        _ = try await offPool { try fixture.sandbox.pickAction("deny") }
        #expect(try await app.waitForExit(timeout: .seconds(30)) == .exited(0))
        #expect(app.standardOutput.trimmingCharacters(in: .newlines) == "denied")
        let refused = try await fixture.run(python, [Self.script, "schedule", UUID().uuidString, "No", "60"])
        #expect(refused.line.hasPrefix("error: io.github.reveille.Alarms1.Error.NotAuthorized"), "\(refused)")

        let pythonPath = URL(fileURLWithPath: python).resolvingSymlinksInPath().path
        #expect(try await fixture.reveille("auth", "allow", pythonPath).status == .exited(0))
        let allowed = try await fixture.run(python, [Self.script, "schedule", UUID().uuidString, "Yes", "60"])
        #expect(allowed.status == .exited(0), "\(allowed)")
        #expect(try await fixture.reveille("auth", "reset", pythonPath).status == .exited(0))
        #expect(try await fixture.reveille("auth", "list").output.contains("No apps"))
    }

    @Test("Answers forged by a client that is not the notification server are ignored; the person's answer counts")
    func forgedAnswers() async throws {
        let fixture = try await AgentFixture.start(notificationServer: true)
        defer { fixture.stop() }
        let monitor = try fixture.sandbox.monitorNotifyCalls()
        let client = try fixture.client()
        let asking = Task { try await client.requestAuthorization(timeout: .seconds(120)) }
        try await fixture.sandbox.waitForDisplayedCount(1)
        let question = try await monitor.waitForNotify(matching: { $0.summary.contains("set alarms") && $0.returnedID != nil })
        let id = try #require(question.returnedID)

        // Another client "answers" for the person: dismissed, then Allow, to everyone and to the agent alone.
        let forger = try DBusConnection.connect(address: fixture.sandbox.busAddress)
        defer { forger.close() }
        let agent = try #require(try await offPool { try fixture.sandbox.busNameOwner(AgentClient.busName) })
        for destination in [nil, agent] {
            try forger.emitSignal(
                path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications", name: "NotificationClosed",
                arguments: [.uint32(id), .uint32(2)], destination: destination)
            try forger.emitSignal(
                path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications", name: "ActionInvoked",
                arguments: [.uint32(id), .string("allow")], destination: destination)
        }
        // A round trip after the forgeries: the agent has read them before the person answers.
        _ = try await forger.call(destination: agent, path: "/", interface: "org.freedesktop.DBus.Peer", method: "Ping")

        _ = try await offPool { try fixture.sandbox.pickAction("deny", notification: id) }
        #expect(try await asking.value == .denied)
        #expect(try await client.authorizationState() == .denied)
    }

    // Each awaited update has no time limit of its own: a lost one must fail the test, not hang the suite.
    @Test("authorizationState and its changes are visible to the app", .timeLimit(.minutes(1)))
    func stateUpdates() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let client = try fixture.client()
        var updates = client.authorizationUpdates().makeAsyncIterator()
        #expect(await updates.next() == .notDetermined)
        try await fixture.authorizeTestProcess()
        #expect(await updates.next() == .authorized)
        #expect(try await fixture.reveille("auth", "deny", Built.testExecutable).status == .exited(0))
        #expect(await updates.next() == .denied)
    }

    @Test("With no notification server to ask, Schedule fails with NotAuthorized and says how to allow")
    func noServer() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let python = Built.systemPython
        let refused = try await fixture.run(python, [Self.script, "schedule", UUID().uuidString, "No", "60"])
        #expect(refused.line.hasPrefix("error: io.github.reveille.Alarms1.Error.NotAuthorized"), "\(refused)")
        #expect(refused.line.contains("reveille auth allow"))
    }

    @Test(
        "An app's usage description (requestAuthorization(usageDescription:)) is shown under the question dunst draws; one too long is refused with InvalidArguments and asks nothing"
    )
    func usageDescription() async throws {
        let fixture = try await AgentFixture.start(notificationServer: true)
        defer { fixture.stop() }
        let monitor = try fixture.sandbox.monitorNotifyCalls()
        let client = try fixture.client()
        do {
            _ = try await client.requestAuthorization(usageDescription: String(repeating: "x", count: AuthorizationLimits.usage + 1))
            Issue.record("a usage description of \(AuthorizationLimits.usage + 1) characters was taken")
        } catch let error as AgentClientError {
            #expect(error.name == "io.github.reveille.Alarms1.Error.InvalidArguments", "\(error)")
        }
        #expect(try await client.authorizationState() == .notDetermined)
        #expect(monitor.notifyCalls().isEmpty, "a refused request asked the person: \(monitor.notifyCalls())")

        let reason = "Reminds you to take your medication, even in a meeting."
        let asking = Task { try await client.requestAuthorization(usageDescription: reason, timeout: .seconds(120)) }
        let question = try await monitor.waitForNotify(matching: { $0.summary.contains("set alarms") })
        #expect(question.body.hasSuffix("do-not-disturb.\n\n" + reason), "\(question.body)")
        try await fixture.sandbox.waitForDisplayedCount(1)
        _ = try await offPool { try fixture.sandbox.pickAction("allow") }
        #expect(try await asking.value == .authorized)
        // What dunst drew for the person, from its history.
        let shown = try await offPool { try fixture.sandbox.history() }.first { $0.summary.contains("set alarms") }
        #expect(shown?.message.contains(reason) == true, "\(String(describing: shown))")
    }
}

/// The agent's limit on a usage description, as its error says it (AuthorizationCenter.usageDescriptionLimit).
enum AuthorizationLimits {
    static let usage = 500
}
