import AlarmKit
import CommandLineText
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The Swift `AlarmKit` library, used by an app written as for Apple's AlarmKit.
@Suite("Agent: AlarmKit library", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
struct AlarmKitLibraryTests {
    @Test("The example app asks once, schedules a timer, follows alarmUpdates, and stops it when it rings")
    func exampleApp() async throws {
        let example = Built.path("reveille-example")
        try #require(FileManager.default.isExecutableFile(atPath: example), "\(example) is not built")
        let fixture = try await AgentFixture.start(notificationServer: true)
        defer { fixture.stop() }
        let app = try fixture.sandbox.spawn(example, ["1"])
        try await fixture.sandbox.waitForDisplayedCount(1, timeout: .seconds(30))
        _ = try await offPool { try fixture.sandbox.pickAction("allow") }
        #expect(try await app.waitForExit(timeout: .seconds(30)) == .exited(0), "\(app.outputs())")
        let lines = app.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "authorized")
        #expect(lines.dropFirst().first?.hasPrefix("scheduled ") == true)
        #expect(lines.dropFirst().first?.hasSuffix(" countdown") == true)
        #expect(lines.contains("state countdown"))
        #expect(lines.contains("state alerting"))
        #expect(lines.suffix(2) == ["gone", "alarms left: 0"])
        let history = try await fixture.reveille("history", "--json")
        #expect(history.output.contains(#""outcome":"stopped""#))
        #expect(history.output.contains(#""title":"Pasta is ready""#))
    }

    @Test(
        "Apple's one-time alarm example (a snooze button, no countdown duration) schedules, rings, and Snooze counts down reveilled's --default-snooze"
    )
    func seedAlarmSnoozes() async throws {
        let fixture = try await AgentFixture.start(agentArguments: ["--default-snooze", "120"])
        defer { fixture.stop() }
        try await fixture.authorizeTestProcess()
        let client = try fixture.client()
        defer { client.connection.close() }
        let configuration = AlarmManager.AlarmConfiguration<NoMetadata>.alarm(
            schedule: .fixed(Date().addingTimeInterval(1)),
            attributes: AlarmAttributes(
                presentation: AlarmPresentation(
                    alert: .init(
                        title: "Wake Up", stopButton: .stopButton, secondaryButton: .snoozeButton, secondaryButtonBehavior: .countdown)),
                tintColor: .blue))
        let id = UUID()
        _ = try await client.schedule(id: id, definition: try AlarmDefinition(configuration))
        try await waitUntil("the alarm to ring", timeout: .seconds(20)) {
            try client.listBlocking().first { $0.id == id }?.alarm.state == .alerting ? () : nil
        }
        let snoozed = try await fixture.reveille("snooze", id.uuidString)
        #expect(snoozed.status == .exited(0), "\(snoozed)")
        let shown = try await fixture.reveille("show", id.uuidString, "--json")
        let alarm = try JSONDecoder().decode(AlarmDescription.self, from: Data(shown.output.utf8))
        #expect(alarm.state == "countdown", "\(shown)")
        #expect((alarm.remaining ?? 0) > 110 && (alarm.remaining ?? 0) <= 120, "\(shown)")
        #expect(try await fixture.reveille("cancel", id.uuidString).status == .exited(0))
    }

    /// An app's metadata that holds nothing.
    struct NoMetadata: AlarmMetadata {}
}
