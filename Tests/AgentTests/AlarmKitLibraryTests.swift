import AlarmKit
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The Swift `AlarmKit` library, used by an app written as for Apple's AlarmKit.
@Suite("Agent: AlarmKit library", .onItsOwnThread, .serialized, .requires(Built.unavailable))
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
}
