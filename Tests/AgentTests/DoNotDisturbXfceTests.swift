import Foundation
import Testing
import TestRequirements
import TestSupport

/// XFCE's do-not-disturb with the real programs: xfconfd and xfce4-notifyd on the sandbox's bus
/// and display, and `xfconf-query` as the person's hand. xfce4-notifyd shows critical
/// notifications during do-not-disturb, so the agent reads and watches the setting and changes
/// nothing.
@Suite(
    "Agent: XFCE's do-not-disturb (xfconfd, xfce4-notifyd)", .onItsOwnThread, .serialized,
    .requires(Built.unavailable ?? XfcePrograms.unavailable), .timeLimit(.minutes(5)))
struct DoNotDisturbXfceTests {
    /// `xfconf-query` on the notifyd channel's do-not-disturb.
    static func xfconf(_ sandbox: DesktopSandbox, _ arguments: String...) async throws -> String {
        try await offPool {
            try sandbox.run("xfconf-query", ["-c", "xfce4-notifyd", "-p", "/do-not-disturb"] + arguments)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// How many xfce4-notifyd bubbles are on screen.
    static func bubbles(_ sandbox: DesktopSandbox) async throws -> Int {
        try await offPool {
            // xdotool exits 1 when it finds no window.
            let output = (try? sandbox.run("xdotool", ["search", "--onlyvisible", "--class", "xfce4-notifyd"])) ?? ""
            return output.split(whereSeparator: \.isNewline).count
        }
    }

    /// Waits until xfce4-notifyd shows `count` bubbles.
    static func waitForBubbles(_ count: Int, _ sandbox: DesktopSandbox) async throws {
        var last = -1
        try await waitUntil("xfce4-notifyd to show \(count) bubble(s)", every: .milliseconds(20), detail: { "it shows \(last)" }) {
            () async throws -> Void? in
            last = try await bubbles(sandbox)
            return last == count ? () : nil
        }
    }

    @Test("Do-not-disturb is read and watched, and the critical alert is shown with nothing changed")
    func criticalShown() async throws {
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let sandbox = fixture.sandbox
        _ = try sandbox.spawn(XfcePrograms.xfconfd!)
        try await offPool { try sandbox.waitForBusName("org.xfce.Xfconf") }
        _ = try await Self.xfconf(sandbox, "-n", "-t", "bool", "-s", "true")
        _ = try sandbox.spawn(XfcePrograms.notifyd!)
        try await offPool { try sandbox.waitForBusName("org.freedesktop.Notifications") }
        _ = try await DesktopDoubles.startAgent(in: sandbox)
        try await DoNotDisturbDunstTests.waitForStatus(fixture) {
            $0["state"] as? String == "on" && $0["way"] as? String == "shown-as-critical" && $0["desktop"] as? String == "xfce"
        }
        _ = try await Self.xfconf(sandbox, "-s", "false")
        try await DoNotDisturbDunstTests.waitForStatus(fixture) { $0["state"] as? String == "off" }
        _ = try await Self.xfconf(sandbox, "-s", "true")
        try await DoNotDisturbDunstTests.waitForStatus(fixture) { $0["state"] as? String == "on" }
        let status = try await fixture.reveille("status")
        let server = try await fixture.notificationServer()
        #expect(server.name == "Xfce Notify Daemon", "\(server)")
        #expect(status.output.contains("notices  Xfce Notify Daemon \(server.version)"), "\(status)")
        #expect(status.output.contains("which XFCE shows during do-not-disturb"), "\(status)")

        #expect(try await Self.bubbles(sandbox) == 0)
        let id = try await AlertingTests.timer(fixture, "1s", "--title", "Through")
        try await AlertingTests.waitForState("alerting", of: id, in: fixture)
        try await Self.waitForBubbles(1, sandbox)
        #expect(try await Self.xfconf(sandbox) == "true", "do-not-disturb is left on")
        #expect(try await fixture.reveille("stop", id.uuidString).status == .exited(0))
        try await Self.waitForBubbles(0, sandbox)
        #expect(try await Self.xfconf(sandbox) == "true")
    }
}

/// Where Debian puts XFCE's daemons.
enum XfcePrograms {
    static let folders = ["/usr/lib/x86_64-linux-gnu/xfce4", "/usr/lib/aarch64-linux-gnu/xfce4", "/usr/lib/xfce4"]
    static let xfconfd = folders.map { $0 + "/xfconf/xfconfd" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    static let notifyd = folders.map { $0 + "/notifyd/xfce4-notifyd" }.first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Why the XFCE test cannot run here, or `nil`.
    static var unavailable: String? {
        if xfconfd == nil || notifyd == nil {
            return "xfconfd or xfce4-notifyd is missing (scripts/install-deps --tests installs xfconf and xfce4-notifyd)"
        }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/xdotool") { return "xdotool is missing" }
        return nil
    }
}
