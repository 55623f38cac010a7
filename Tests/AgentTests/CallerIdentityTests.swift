@testable import AlarmAgent
import Foundation
import Testing
import TestSupport

/// How the agent tells apps apart: from /proc, never from what a caller says.
@Suite("Agent: caller identity")
struct CallerIdentityTests {
    /// A folder shaped like /proc with one process.
    func procRoot(pid: UInt32, flatpakInfo: String? = nil, cgroup: String? = nil, executable: String = "/usr/bin/example") throws -> URL {
        let root = Fixtures.temporaryDirectory("reveille-proc")
        let process = root.appendingPathComponent("\(pid)")
        try FileManager.default.createDirectory(at: process.appendingPathComponent("root"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: process.appendingPathComponent("exe").path, withDestinationPath: executable)
        if let flatpakInfo {
            try flatpakInfo.write(to: process.appendingPathComponent("root/.flatpak-info"), atomically: true, encoding: .utf8)
        }
        if let cgroup { try cgroup.write(to: process.appendingPathComponent("cgroup"), atomically: true, encoding: .utf8) }
        return root
    }

    @Test("A Flatpak app is its app id")
    func flatpak() throws {
        let root = try procRoot(pid: 42, flatpakInfo: "[Application]\nname=org.gnome.Clocks\nruntime=runtime/org.gnome.Platform\n\n[Instance]\ninstance-id=1\n")
        defer { try? FileManager.default.removeItem(at: root) }
        let identity = try #require(ProcessIdentifier(procRoot: root.path).identify(processID: 42, userID: 1000))
        #expect(identity.appID == "org.gnome.Clocks")
        #expect(identity.source == .flatpak)
    }

    @Test("A systemd app scope or service is its app id", arguments: [
        ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Clocks-4242.scope", "org.gnome.Clocks"),
        ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.kde.kclock@a1b2c3.service", "org.kde.kclock"),
        ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.example.App-99.scope", "org.example.App"),
        ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-KDE-org.kde.dolphin\\x2dx-7.scope", "org.kde.dolphin-x"),
    ])
    func systemdScope(cgroup: String, appID: String) throws {
        let root = try procRoot(pid: 7, cgroup: cgroup + "\n")
        defer { try? FileManager.default.removeItem(at: root) }
        let identity = try #require(ProcessIdentifier(procRoot: root.path).identify(processID: 7, userID: 1000))
        #expect(identity.appID == appID)
        #expect(identity.source == .systemdScope)
    }

    @Test("Anything else is its executable, without the kernel's \"(deleted)\"")
    func executable() throws {
        let root = try procRoot(
            pid: 9, cgroup: "0::/user.slice/user-1000.slice/session-2.scope\n", executable: "/opt/app/bin/clock (deleted)")
        defer { try? FileManager.default.removeItem(at: root) }
        let identity = try #require(ProcessIdentifier(procRoot: root.path).identify(processID: 9, userID: 1000))
        #expect(identity.appID == "/opt/app/bin/clock")
        #expect(identity.source == .executable)
        #expect(ProcessIdentifier(procRoot: root.path).identify(processID: 10, userID: 1000) == nil, "a vanished process")
    }
}
