import AlarmKit
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The phone backup end to end: the real agent with `--phone-after`, and KDE Connect's real
/// protocol spoken by a double on the sandbox's bus.
@Suite("Agent: the phone backup", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
struct PhoneBackupAgentTests {
    static let pixel = PhoneServiceDouble.Device(id: "a1b2c3", name: "Pixel 7")

    /// The history entries as `reveille history --json` prints them.
    static func history(_ fixture: AgentFixture) async throws -> [[String: Any]] {
        let history = try await fixture.reveille("history", "--json")
        return try #require(try JSONSerialization.jsonObject(with: Data(history.output.utf8)) as? [[String: Any]], "\(history)")
    }

    /// Waits (up to 30 s) until the history has an entry that `matches`; returns the whole history.
    /// A time-out says what `context` gives (the agent's log, say).
    static func waitForHistory(
        _ fixture: AgentFixture, _ what: String, context: () -> String = { "" }, where matches: ([String: Any]) -> Bool
    ) async throws -> [[String: Any]] {
        var entries: [[String: Any]] = []
        return try await waitUntil("the history to show \(what)", every: .milliseconds(50), detail: { "it shows \(entries)\n\(context())" })
        {
            entries = try await history(fixture)
            return entries.contains(where: matches) ? entries : nil
        }
    }

    @Test("An alert still ringing after --phone-after rings the phone once, and history and status say so; one stopped first does not")
    func ringsThePhone() async throws {
        let fixture = try await AgentFixture.start(agentArguments: ["--phone-after", "3"])
        defer { fixture.stop() }
        let phones = try PhoneServiceDouble(.kdeConnect, address: fixture.sandbox.busAddress, devices: [Self.pixel])
        defer { phones.stop() }

        let status = try await fixture.reveille("status")
        #expect(status.output.contains("phone    after 3s: Pixel 7 (KDE Connect)"), "\(status)")

        // Answered at once: no ring, unless a loaded machine took the three seconds to answer.
        let answered = try await AlertingTests.timer(fixture, "1s", "--title", "Answered")
        try await AlertingTests.waitForState("alerting", of: answered, in: fixture)
        #expect(try await fixture.reveille("stop", answered.uuidString).status == .exited(0))

        // Unanswered: the phone rings, and the alert's history says which.
        let unanswered = try await AlertingTests.timer(fixture, "1s", "--title", "Unanswered")
        try await AlertingTests.waitForState("alerting", of: unanswered, in: fixture)
        let unansweredID = unanswered.uuidString.lowercased()
        let entries = try await Self.waitForHistory(fixture, "the phone rung for the unanswered alert") {
            $0["alarmID"] as? String == unansweredID && $0["phonesRung"] != nil
        }
        #expect(try await fixture.reveille("stop", unanswered.uuidString).status == .exited(0))
        let rang = try #require(entries.first { $0["alarmID"] as? String == unansweredID })
        #expect(rang["phonesRung"] as? [String] == ["Pixel 7 (KDE Connect)"], "\(rang)")
        let table = try await fixture.reveille("history")
        #expect(table.output.contains("stopped, rang Pixel 7 (KDE Connect)"), "\(table)")

        // The answered alert rang the phone only if it rang three seconds; each ring was one call.
        let quiet = try #require(entries.first { $0["alarmID"] as? String == answered.uuidString.lowercased() })
        let rangFor = try #require(Self.seconds(from: quiet["alertedAt"], to: quiet["endedAt"]), "\(quiet)")
        // (Within a few tenths of the three seconds either may be right: the wait starts when the
        // alert is shown, a moment after the instant the history keeps.)
        let answeredRang = quiet["phonesRung"] != nil
        if rangFor < 2.7 { #expect(!answeredRang, "rang \(rangFor) s, yet the phone rang: \(quiet)") }
        if rangFor > 3.5 { #expect(answeredRang, "rang \(rangFor) s, yet no phone rang: \(quiet)") }
        #expect(phones.rings.count == (answeredRang ? 2 : 1), "\(phones.rings)")
        #expect(phones.rings.allSatisfy { $0.deviceID == Self.pixel.id && $0.outcome == .rang }, "\(phones.rings)")
    }

    @Test("An agent killed and started again while an alert rings does not ring the phone a second time for it")
    func restartDoesNotRingAgain() async throws {
        let fixture = try await AgentFixture.start(agentArguments: ["--phone-after", "2", "--verbose"])
        defer { fixture.stop() }
        let agent = try #require(fixture.agent)
        let phones = try PhoneServiceDouble(.kdeConnect, address: fixture.sandbox.busAddress, devices: [Self.pixel])
        defer { phones.stop() }

        let id = try await AlertingTests.timer(fixture, "1s", "--title", "Through a restart")
        let idText = id.uuidString.lowercased()
        _ = try await Self.waitForHistory(
            fixture, "the phone rung before the restart", context: { String(agent.standardError.suffix(6_000)) }
        ) {
            $0["alarmID"] as? String == idText && $0["phonesRung"] != nil
        }
        #expect(phones.rings.count == 1, "\(phones.rings)")
        let restarted = try await fixture.killAndRestart(agent, arguments: ["--phone-after", "2", "--verbose"])
        defer { restarted.terminate() }
        try await AlertingTests.waitForState("alerting", of: id, in: fixture)

        // A witness alert after the restart: by the time its phone rings, the restarted agent's
        // wait for the first alert (armed earlier, at its start) has long ended.
        let witness = try await AlertingTests.timer(fixture, "1s", "--title", "Witness")
        let witnessText = witness.uuidString.lowercased()
        let entries = try await Self.waitForHistory(
            fixture, "the witness's phone ring", context: { "the restarted agent logged:\n\(restarted.standardError.suffix(8_000))" }
        ) {
            $0["alarmID"] as? String == witnessText && $0["phonesRung"] != nil
        }
        #expect(phones.rings.count == 2, "the first alert's phone rang again after the restart: \(phones.rings)")
        let first = entries.filter { $0["alarmID"] as? String == idText }
        #expect(first.count == 1 && first.first?["phonesRung"] as? [String] == ["Pixel 7 (KDE Connect)"], "\(first)")
        #expect(try await AlertingTests.list(fixture).first { $0.id == idText }?.state == "alerting", "it rings on")
    }

    /// Seconds between two ISO-8601 instants of a history entry.
    static func seconds(from start: Any?, to end: Any?) -> TimeInterval? {
        guard let start = start as? String, let end = end as? String, let from = try? Date(start, strategy: .iso8601),
            let to = try? Date(end, strategy: .iso8601)
        else { return nil }
        return to.timeIntervalSince(from)
    }

    @Test("No phone reachable: the alert still rings, the history says none was reachable, status says so; off by default")
    func noPhone() async throws {
        let fixture = try await AgentFixture.start(agentArguments: ["--phone-after", "1"])
        defer { fixture.stop() }
        let status = try await fixture.reveille("status", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        #expect((object["phoneBackup"] as? String)?.contains("no phone reachable") == true, "\(object)")

        let id = try await AlertingTests.timer(fixture, "1s", "--title", "Alone")
        try await AlertingTests.waitForState("alerting", of: id, in: fixture)
        _ = try await Self.waitForHistory(fixture, "no phone reachable") { ($0["phonesRung"] as? [String]) == [] }
        #expect(try await AlertingTests.list(fixture).first?.state == "alerting", "the alert rings on")
        let table = try await fixture.reveille("history")
        #expect(table.output.contains("ringing, no phone reachable"), "\(table)")

        let plain = try await AgentFixture.start()
        defer { plain.stop() }
        let off = try await plain.reveille("status")
        #expect(off.output.contains("phone    off"), "\(off)")
        let bad = try await plain.run(Built.path("reveilled"), ["--phone-after", "0"])
        #expect(bad.status == .exited(64) && bad.error.contains("--phone-after"), "\(bad)")
    }
}
