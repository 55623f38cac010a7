@testable import AlarmAgent
import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// How the agent tells apps apart: from /proc, never from what a caller says.
@Suite("Agent: caller identity", .onItsOwnThread, .timeLimit(.minutes(5)))
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
        let root = try procRoot(
            pid: 42, flatpakInfo: "[Application]\nname=org.gnome.Clocks\nruntime=runtime/org.gnome.Platform\n\n[Instance]\ninstance-id=1\n")
        defer { try? FileManager.default.removeItem(at: root) }
        let identity = try #require(ProcessIdentifier(procRoot: root.path).identify(processID: 42, userID: 1000))
        #expect(identity.appID == "org.gnome.Clocks")
        #expect(identity.source == .flatpak)
    }

    @Test(
        "A systemd app scope or service is its app id",
        arguments: [
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

    // MARK: Through a pidfd (ProcessFD, dbus 1.15.2 and later)

    /// Starts `/bin/sleep` for a minute.
    static func startSleeper() throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["60"]
        try process.run()
        return process
    }

    /// Ends a process and waits until it is reaped. `SIGKILL`: Foundation's children inherit a
    /// signal mask that blocks `SIGTERM`.
    static func end(_ process: Process) {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    @Test("A pidfd identifies the process it refers to while that process runs")
    func throughProcessFD() throws {
        let sleeper = try Self.startSleeper()
        defer { if sleeper.isRunning { Self.end(sleeper) } }
        let handle = try ProcessHandle.open(processID: sleeper.processIdentifier)
        #expect(handle.processID == UInt32(sleeper.processIdentifier))
        #expect(handle.isRunning)
        let identity = try #require(ProcessIdentifier().identify(process: handle, userID: getuid()))
        #expect(
            identity.executable.map(ProcessIdentifier.withoutDeletedSuffix)
                == URL(fileURLWithPath: "/bin/sleep").resolvingSymlinksInPath().path)
        #expect(identity.processID == UInt32(sleeper.processIdentifier))
        #expect(identity.reference == .processFD)

        Self.end(sleeper)
        #expect(!handle.isRunning)
        #expect(ProcessIdentifier().identify(process: handle, userID: getuid()) == nil, "a process that has ended")
    }

    @Test("A pidfd never names the process that took its process's id; the id alone does")
    func processIDReused() throws {
        let lastPID = "/proc/sys/kernel/ns_last_pid"
        try #require(FileManager.default.isWritableFile(atPath: lastPID), "needs root, to give a new process a chosen id")
        // Other tests start processes too: try until the new process gets the old one's id.
        for _ in 0..<50 {
            let first = try Self.startSleeper()
            let handle = try ProcessHandle.open(processID: first.processIdentifier)
            Self.end(first)
            try String(first.processIdentifier - 1).write(toFile: lastPID, atomically: false, encoding: .utf8)
            let sleeper = try Self.startSleeper()
            defer { Self.end(sleeper) }
            guard sleeper.processIdentifier == first.processIdentifier else { continue }
            // The id now names a new process; read through the id, /proc describes the newcomer.
            #expect(ProcessIdentifier().identify(processID: UInt32(first.processIdentifier), userID: getuid()) != nil)
            // Through the pidfd of the process that ended, nothing is described.
            #expect(handle.processID == nil || !handle.isRunning)
            #expect(ProcessIdentifier().identify(process: handle, userID: getuid()) == nil)
            return
        }
        Issue.record("no new process was given the ended one's id in 50 tries")
    }

    @Test("On the real bus, a caller is identified through its pidfd where the daemon gives one")
    func resolverOnTheBus() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let resolver = CallerResolver(connection: connection, trustedExecutables: [])
        let resolved = try await resolver.resolve(connection.uniqueName)
        #expect(resolved.identity.executable.map(ProcessIdentifier.withoutDeletedSuffix) == Built.testExecutable)
        #expect(resolved.identity.processID == UInt32(getpid()))
        let version = try #require(Executables.dbusDaemonVersion, "dbus-daemon --version names no version")
        let expected: CallerIdentity.ProcessReference = Executables.dbusDaemonGivesProcessFD ? .processFD : .processID
        #expect(resolved.identity.reference == expected, "dbus-daemon \(version) gives \(expected == .processFD ? "a pidfd" : "no pidfd")")
    }
}
