import AlarmKit
import AlarmProtocol
import CommandLineText
import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

/// Alarms people shape, end to end against the real agent: skip and unskip, off and on, and an
/// alarm's own volume, crescendo and ring time-out, heard in the capture.
@Suite("Agent: skip, off and on, and per-alarm sound", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
struct AlarmShapingAgentTests {
    static let errorPrefix = "io.github.reveille.Alarms1.Error."

    /// The alarm `id` as `reveille list --json` shows it.
    static func listed(_ id: String, in fixture: AgentFixture) async throws -> AlarmDescription {
        try #require(try await fixture.listedAlarms().first { $0.id == id })
    }

    static func instant(_ text: String?) -> Date? {
        text.flatMap { try? Date($0, strategy: .iso8601) }
    }

    @Test("skip, unskip, off and on from the CLI: shown in list, show and JSON, stored across a restart")
    func skipAndOffFromTheCommandLine() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        let added = try await fixture.reveille("add", "7:30", "--repeat", "daily", "--title", "Daily")
        #expect(added.status == .exited(0), "\(added)")
        let id = added.line
        let prefix = String(id.prefix(8))
        let first = try #require(Self.instant(try await Self.listed(id, in: fixture).fireDate))

        // Skip: the next alert is the one after, and the skipped one is shown.
        #expect(try await fixture.reveille("skip", prefix).status == .exited(0))
        let skipping = try await Self.listed(id, in: fixture)
        #expect(Self.instant(skipping.skipped) == first)
        let second = try #require(Self.instant(skipping.fireDate))
        #expect((23 * 3_600...25 * 3_600).contains(second.timeIntervalSince(first)), "\(skipping)")
        let table = try await fixture.reveille("list")
        #expect(table.output.contains("skipping"), "\(table)")
        let shown = try await fixture.reveille("show", prefix)
        #expect(shown.output.contains("skips"), "\(shown)")
        let again = try await fixture.reveille("skip", prefix)
        #expect(again.status == .exited(65), "\(again)")
        #expect(again.error.contains("cannot skip"), "\(again)")

        // Stored: a restarted agent still skips it.
        let agent = try #require(fixture.agent)
        var restarted = try await fixture.restart(agent)
        #expect(Self.instant(try await Self.listed(id, in: fixture).skipped) == first)

        #expect(try await fixture.reveille("unskip", prefix).status == .exited(0))
        let unskipped = try await Self.listed(id, in: fixture)
        #expect(unskipped.skipped == nil)
        #expect(Self.instant(unskipped.fireDate) == first)

        // Off: kept, with its settings, no next alert; shown as off; stored.
        #expect(try await fixture.reveille("off", prefix).status == .exited(0))
        let off = try await Self.listed(id, in: fixture)
        #expect(off.enabled == false && off.fireDate == nil && off.state == "scheduled", "\(off)")
        #expect(off.schedule?.weekdays?.count == 7 && off.title == "Daily")
        let offTable = try await fixture.reveille("list")
        #expect(offTable.output.split(separator: "\n").contains { $0.hasPrefix(prefix) && $0.contains(" off ") }, "\(offTable)")
        #expect(try await fixture.reveille("skip", prefix).status == .exited(65), "an alarm turned off skips nothing")
        restarted = try await fixture.restart(restarted)
        defer { restarted.terminate() }
        #expect(try await Self.listed(id, in: fixture).enabled == false)
        #expect(try await fixture.reveille("off", prefix).status == .exited(0), "off twice is no error")

        #expect(try await fixture.reveille("on", prefix).status == .exited(0))
        let on = try await Self.listed(id, in: fixture)
        #expect(on.enabled == nil && Self.instant(on.fireDate) == first, "\(on)")

        // A timer has no alert to skip and cannot be turned off; the words say why.
        let timer = try await fixture.reveille("timer", "10m")
        let refused = try await fixture.reveille("off", timer.line)
        #expect(refused.status == .exited(65), "\(refused)")
        #expect(refused.error.contains("cannot turn off an alarm that is countdown"), "\(refused)")
        #expect(try await fixture.reveille("skip", timer.line).status == .exited(65))
    }

    @Test("An alarm turned off does not ring when its time comes; one turned on after its instant passed is refused")
    func offAlarmNeverRings() async throws {
        let fixture = try await AlertingTests.start()
        defer { fixture.stop() }
        let monitor = try fixture.sandbox.monitorNotifyCalls()
        let quiet = try await fixture.reveille("add", "in 3s", "--title", "Turned off")
        #expect(quiet.status == .exited(0), "\(quiet)")
        #expect(try await fixture.reveille("off", quiet.line).status == .exited(0))
        // A second alarm, on, one second later: once it rings, the first one's time has passed.
        let witness = try await fixture.reveille("add", "in 4s", "--title", "Witness")
        try await monitor.waitForNotify(matching: { AlertingTests.isAlert($0, "Witness") })
        #expect(!monitor.notifyCalls().contains { $0.summary == "Turned off" }, "the alarm turned off was posted")
        let off = try await Self.listed(quiet.line, in: fixture)
        #expect(off.state == "scheduled" && off.enabled == false, "\(off)")
        let history = try await fixture.reveille("history", "--json")
        #expect(!history.output.contains(quiet.line), "an alarm turned off is neither rung nor missed: \(history)")
        #expect(try await fixture.reveille("stop", witness.line).status == .exited(0))

        let late = try await fixture.reveille("on", quiet.line)
        #expect(late.status == .exited(65), "\(late)")
        #expect(late.error.contains("already passed"), "\(late)")
        #expect(try await Self.listed(quiet.line, in: fixture).enabled == false, "a refused request changes nothing")
    }

    @Test("Skip, Unskip and SetEnabled over D-Bus, and the configuration keys, checked and named")
    func overDBus() async throws {
        let fixture = try await AgentFixture.start()
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let connection = try fixture.client().connection
        let id = UUID()
        let text = id.uuidString.lowercased()
        let configuration: DBusValue = .dictionary([
            "title": .string("Bus"), "enabled": .boolean(false), "volume": .int32(40), "ramp": .double(15), "ringTimeout": .double(0),
            "schedule": .dictionary([
                "hour": .int32(6), "minute": .int32(45),
                "weekdays": .array(elementSignature: "s", [.string("monday"), .string("thursday")]),
            ]),
        ])
        #expect(await fixture.errorName(of: "Schedule", [.string(text), configuration], on: connection) == nil)
        let scheduled = try await Self.listed(text, in: fixture)
        #expect(scheduled.enabled == false && scheduled.volume == 40 && scheduled.ramp == 15 && scheduled.ringTimeout == 0, "\(scheduled)")
        let shown = try await fixture.reveille("show", text)
        #expect(shown.output.contains("40 %") && shown.output.contains("until answered"), "\(shown)")
        // Stored: a restarted agent has the same settings.
        let restarted = try await fixture.restart(try #require(fixture.agent))
        defer { restarted.terminate() }
        let reread = try await Self.listed(text, in: fixture)
        #expect(reread.enabled == false && reread.volume == 40 && reread.ramp == 15 && reread.ringTimeout == 0, "\(reread)")

        // Off alarms skip nothing; on, then Skip and Unskip.
        #expect(await fixture.errorName(of: "Skip", [.string(text)], on: connection) == Self.errorPrefix + "NotAllowed")
        #expect(await fixture.errorName(of: "SetEnabled", [.string(text), .boolean(true)], on: connection) == nil)
        let on = try await Self.listed(text, in: fixture)
        #expect(on.enabled == nil && on.fireDate != nil)
        #expect(await fixture.errorName(of: "Skip", [.string(text)], on: connection) == nil)
        #expect(try await Self.listed(text, in: fixture).skipped == on.fireDate)
        #expect(await fixture.errorName(of: "Unskip", [.string(text)], on: connection) == nil)
        #expect(try await Self.listed(text, in: fixture).fireDate == on.fireDate)
        #expect(
            await fixture.errorName(of: "SetEnabled", [.string(text), .string("yes")], on: connection)
                == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(await fixture.errorName(of: "Skip", [.string(UUID().uuidString)], on: connection) == Self.errorPrefix + "NotFound")

        // Bad values are refused by name, and nothing is scheduled.
        for (key, value) in [
            ("volume", DBusValue.int32(101)), ("volume", .double(50.5)), ("ramp", .double(-1)), ("ringTimeout", .string("long")),
            ("enabled", .int32(1)),
        ] {
            let bad = UUID().uuidString
            var entries: [String: DBusValue] = ["title": .string("Bad"), "countdown": .dictionary(["preAlert": .double(60)])]
            entries[key] = value
            let name = await fixture.errorName(of: "Schedule", [.string(bad), .dictionary(entries)], on: connection)
            #expect(name == Self.errorPrefix + "InvalidConfiguration", "\(key) = \(value): \(name ?? "accepted")")
        }
        #expect(try await fixture.listedAlarms().count == 1)
        let usage = try await fixture.reveille("timer", "5m", "--volume", "loud")
        #expect(usage.status == .exited(64) && usage.error.contains("--volume"), "\(usage)")
        let range = try await fixture.reveille("timer", "5m", "--volume", "150")
        #expect(range.status == .exited(64) && range.error.contains("--volume"), "\(range)")
        let ramp = try await fixture.reveille("timer", "5m", "--ring-for", "2d")
        #expect(ramp.status == .exited(64) && ramp.error.contains("--ring-for"), "\(ramp)")
    }

    @Test("An alarm's own volume scales its samples, its own crescendo rises to it, and its own ring time-out ends it")
    func ownSoundSettings() async throws {
        let fixture = try await AlertingTests.start()  // the agent rings at full volume at once (--ramp 0)
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        let sound = try AlertingTests.write(AlertingTests.constant(10_000), named: "level.wav", in: fixture)

        // 60 %: every sample is 6,000, none is 10,000.
        let quiet = try await AlertingTests.timer(fixture, "1s", "--title", "Sixty", "--sound", sound, "--volume", "60")
        try await AlertingTests.waitForState("alerting", of: quiet, in: fixture)
        try await sandbox.waitForCapturedBytes(atLeast: 200_000)
        let heard = Set(sandbox.capturedSamples())
        #expect(heard.contains(6_000) && !heard.contains(10_000), "heard \(heard.sorted().suffix(5))")
        #expect(try await fixture.reveille("stop", quiet.uuidString).status == .exited(0))
        try await fixture.waitForSilence()

        // Its own crescendo of 2 s: quiet at first, then the full level.
        let mark = sandbox.capturedByteCount
        let rising = try await AlertingTests.timer(fixture, "1s", "--title", "Rising", "--sound", sound, "--ramp", "2s")
        try await AlertingTests.waitForState("alerting", of: rising, in: fixture)
        try await sandbox.waitForCapturedBytes(atLeast: mark + 4 * AlertingTests.pace)
        let samples = Array(sandbox.capturedSamples().dropFirst(mark / 2))
        let start = samples.prefix(4_800)
        #expect(start.allSatisfy { $0 < 1_500 }, "the first 50 ms is quiet: up to \(start.max() ?? 0)")
        #expect(samples.suffix(48_000).allSatisfy { $0 == 10_000 }, "after the crescendo it rings at full level")
        #expect(try await fixture.reveille("stop", rising.uuidString).status == .exited(0))
        try await fixture.waitForSilence()

        // Rings for 2 s, then ends by itself, as timed out.
        let brief = try await AlertingTests.timer(fixture, "1s", "--title", "Brief", "--sound", sound, "--ring-for", "2s")
        try await AlertingTests.waitForState("alerting", of: brief, in: fixture)
        try await AlertingTests.waitForState(nil, of: brief, in: fixture)
        try await fixture.waitForSilence()
        let history = try await fixture.reveille("history", "--json")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(history.output.utf8)) as? [[String: Any]])
        let entry = try #require(
            entries.first { ($0["alarmID"] as? String ?? $0["id"] as? String) == brief.uuidString.lowercased() }, "\(history)")
        #expect(entry["outcome"] as? String == "timedOut", "\(entry)")
        if let alerted = Self.instant(entry["alertedAt"] as? String), let ended = Self.instant(entry["endedAt"] as? String) {
            #expect((1.9...6).contains(ended.timeIntervalSince(alerted)), "rang \(ended.timeIntervalSince(alerted)) s")
        } else {
            Issue.record("the history entry lacks its instants: \(entry)")
        }
    }
}
