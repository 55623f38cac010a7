import Foundation
import Testing
import TestRequirements
import TestSupport

extension GNOMEShellTests {
    /// `reveille status` until its `dnd` line starts with `prefix` (the agent reads the setting
    /// and the lock as they change; `status` has no way to wait for that), up to 30 s.
    static func status(_ desktop: GNOMEDesktop, dndStartingWith prefix: String) async throws -> [String] {
        var lines: [String] = []
        return try await waitUntil(
            "reveille status to show dnd \(prefix.debugDescription)", every: .milliseconds(50), detail: { lines.joined(separator: "\n") }
        ) {
            lines = try await desktop.reveille("status").output.split(separator: "\n").map(String.init)
            return lines.contains(where: { $0.hasPrefix("dnd      " + prefix) }) ? lines : nil
        }
    }

    @Test(
        "reveille status names GNOME Shell and says alarms get through its do-not-disturb as critical banners, and how when locked",
        .requires(GNOMEShellServer.lockScreenUnavailable))
    func status() async throws {
        let desktop = try await GNOMEDesktop.start(banners: false)
        defer { desktop.stop() }
        let version = try desktop.shell.eval("imports.misc.config.PACKAGE_VERSION", as: String.self)

        let unlocked = try await Self.status(desktop, dndStartingWith: "on")
        #expect(unlocked.contains("notices  gnome-shell \(version)"), "\(unlocked)")
        #expect(
            unlocked.contains(
                "dnd      on (org.gnome.desktop.notifications show-banners): alarms get through as critical notifications, "
                    + "which GNOME shows during do-not-disturb; alarms without breakthrough wait and ring quietly"), "\(unlocked)")

        try await desktop.shell.lock()
        let locked = try await Self.status(desktop, dndStartingWith: "on (org.gnome.desktop.notifications show-banners): alarms lift it")
        #expect(
            locked.contains(
                "dnd      on (org.gnome.desktop.notifications show-banners): alarms lift it while they ring and put it back after "
                    + "(the screen is locked: GNOME shows no banners there and, while do-not-disturb is on, does not light it up for an alarm); "
                    + "alarms without breakthrough wait and ring quietly"), "\(locked)")
    }
}
