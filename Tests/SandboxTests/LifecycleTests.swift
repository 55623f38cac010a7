import Foundation
import Glibc
import Testing
import TestRequirements
@testable import TestSupport

/// Starting and stopping the whole sandbox, and what it gives the programs it runs.
@Suite("Sandbox lifecycle", .onItsOwnThread, .requires(sandboxMissing), .timeLimit(.minutes(5)))
struct LifecycleTests {
    @Test("Starts bus, X and dunst quickly, and stops leaving nothing running")
    func startsAndStops() throws {
        let started = ContinuousClock.now
        let sandbox = try DesktopSandbox()
        let took = ContinuousClock.now - started
        print("sandbox started in \(took) (measured inside: \(sandbox.startupDuration))")

        // Every part runs and is the sandbox's own.
        let dunst = try #require(sandbox.notificationServerPID)
        #expect(try sandbox.busNameOwnerPID("org.freedesktop.Notifications") == dunst)
        #expect(ProcessTable.isRunning(sandbox.bus.pid))
        #expect(ProcessTable.isRunning(sandbox.displayServerPID))
        let displayNumber = try #require(Int(sandbox.display.dropFirst()))
        #expect(FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(displayNumber)"))
        #expect(Set(sandbox.processIDs).isSuperset(of: [sandbox.bus.pid, sandbox.displayServerPID, dunst]))

        // The folders exist; the runtime folder is private.
        for folder in [sandbox.home, sandbox.configHome, sandbox.dataHome, sandbox.cacheHome, sandbox.runtimeDirectory] {
            #expect(FileManager.default.fileExists(atPath: folder.path), "\(folder.path)")
        }
        let mode = try FileManager.default.attributesOfItem(atPath: sandbox.runtimeDirectory.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)

        let xvfb = sandbox.displayServerPID
        stopAndExpectNothingLeft(sandbox)
        // Xvfb removed its lock (another sandbox may already have taken the number again).
        let lock = try? String(contentsOfFile: "/tmp/.X\(displayNumber)-lock", encoding: .utf8)
        #expect(lock.map { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) } != xvfb)
    }

    @Test("A program in the sandbox sees exactly the sandbox's environment")
    func childEnvironment() async throws {
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { stopAndExpectNothingLeft(sandbox) }
        let env = try sandbox.spawn("env")
        try await env.waitForExit(timeout: .seconds(10))
        var seen: [String: String] = [:]
        for line in env.standardOutput.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { seen[String(parts[0])] = String(parts[1]) }
        }
        #expect(seen["DBUS_SESSION_BUS_ADDRESS"] == sandbox.bus.address)
        #expect(seen["DISPLAY"] == sandbox.display)
        #expect(seen["HOME"] == sandbox.home.path)
        #expect(seen["XDG_CONFIG_HOME"] == sandbox.configHome.path)
        #expect(seen["XDG_DATA_HOME"] == sandbox.dataHome.path)
        #expect(seen["XDG_CACHE_HOME"] == sandbox.cacheHome.path)
        #expect(seen["XDG_RUNTIME_DIR"] == sandbox.runtimeDirectory.path)
        #expect(seen["ALSA_CONFIG_PATH"] == sandbox.alsa.configurationURL.path)
        #expect(seen["PATH"] != nil)
        #expect(seen[DesktopSandbox.markerVariable] == sandbox.root.path)
        #expect(seen == sandbox.environment)
    }

    @Test("Stray session variables of the test process are not passed on")
    func strayVariablesDropped() {
        let base = DesktopSandbox.baseEnvironment(from: [
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus", "DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0",
            "XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/someone", "ALSA_CONFIG_PATH": "/etc/other.conf",
            "PATH": "/opt/bin:/usr/bin", "LANG": "de_DE.UTF-8",
        ])
        #expect(base["DBUS_SESSION_BUS_ADDRESS"] == nil)
        #expect(base["DISPLAY"] == nil)
        #expect(base["WAYLAND_DISPLAY"] == nil)
        #expect(base["XDG_RUNTIME_DIR"] == nil)
        #expect(base["HOME"] == nil)
        #expect(base["ALSA_CONFIG_PATH"] == nil)
        #expect(base["PATH"] == "/opt/bin:/usr/bin")
        #expect(base["LANG"] == "de_DE.UTF-8")
    }

    @Test("Two sandboxes run side by side on different displays and buses")
    func sideBySide() throws {
        let first = try DesktopSandbox()
        let second = try DesktopSandbox()
        #expect(first.display != second.display)
        #expect(first.bus.address != second.bus.address)
        #expect(try first.busNameOwnerPID("org.freedesktop.Notifications") == first.notificationServerPID)
        #expect(try second.busNameOwnerPID("org.freedesktop.Notifications") == second.notificationServerPID)
        stopAndExpectNothingLeft(first)
        // Stopping one leaves the other working.
        #expect(try second.displayedCount() == 0)
        stopAndExpectNothingLeft(second)
    }

    @Test("stop() ends a program's whole process group, even children left behind by a finished parent")
    func stopEndsProcessGroups() async throws {
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        // The shell starts a background sleep and exits: the sleep stays in the shell's group.
        let shell = try sandbox.spawn("sh", ["-c", "sleep 300 & echo $!"])
        try await shell.waitForExit(timeout: .seconds(10))
        let sleeper = try #require(pid_t(shell.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(ProcessTable.isRunning(sleeper))
        #expect(shell.groupMembers == [sleeper])
        // And a long-running program with a child of its own.
        let parent = try sandbox.spawn("sh", ["-c", "sleep 300 & wait"])
        try await Poll.until("the child sleep", timeout: .seconds(30)) { parent.groupMembers.count == 2 ? () : nil }
        let members = parent.groupMembers
        stopAndExpectNothingLeft(sandbox)
        #expect(!ProcessTable.isRunning(sleeper))
        #expect(members.allSatisfy { !ProcessTable.isRunning($0) })
        #expect(parent.exitStatus == .signaled(SIGTERM))
    }

    @Test("A sandbox dropped without stop() still ends everything and removes its folder")
    func deinitStops() throws {
        var pids: [pid_t] = []
        var root = ""
        do {
            let sandbox = try DesktopSandbox()
            let child = try sandbox.spawn("sleep", ["300"])
            pids = sandbox.processIDs
            root = sandbox.root.path
            #expect(pids.contains(child.pid))
            #expect(pids.allSatisfy(ProcessTable.isRunning))
        }
        #expect(pids.count == 4)
        #expect(ProcessTable.waitUntilGone(pids, timeout: .seconds(30)), "still running: \(pids.filter(ProcessTable.isRunning))")
        #expect(!FileManager.default.fileExists(atPath: root))
    }

    @Test("The notification server can start later; run() reports failures with the output")
    func lateServerAndRun() throws {
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { stopAndExpectNothingLeft(sandbox) }
        #expect(sandbox.notificationServerPID == nil)
        #expect(try sandbox.busNameOwner("org.freedesktop.Notifications") == nil)
        try sandbox.startNotificationServer()
        let dunst = try #require(sandbox.notificationServerPID)
        #expect(try sandbox.busNameOwnerPID("org.freedesktop.Notifications") == dunst)
        try sandbox.startNotificationServer()
        #expect(sandbox.notificationServerPID == dunst, "starting again while it runs does nothing")
        #expect(try sandbox.waitForBusName("org.freedesktop.Notifications") == sandbox.busNameOwner("org.freedesktop.Notifications"))

        #expect(try sandbox.run("sh", ["-c", "pwd; echo hi"]) == "\(FileManager.default.currentDirectoryPath)\nhi\n")
        do {
            try sandbox.run("sh", ["-c", "echo broken >&2; exit 4"])
            Issue.record("run should throw")
        } catch SandboxError.failed(let text) {
            #expect(text.contains("exit 4"))
            #expect(text.contains("broken"))
        }
    }

    @Test("A program can start in another folder")
    func currentDirectory() async throws {
        let sandbox = try DesktopSandbox(startsNotificationServer: false)
        defer { stopAndExpectNothingLeft(sandbox) }
        let process = try sandbox.spawn("pwd", currentDirectory: sandbox.home)
        #expect(try await process.waitForExit(timeout: .seconds(10)) == .exited(0))
        #expect(process.standardOutput == sandbox.home.path + "\n")
    }

    @Test("Services the bus activates get the sandbox's environment, display included")
    func activatedServiceEnvironment() async throws {
        let services = Fixtures.temporaryDirectory("reveille-services")
        defer { try? FileManager.default.removeItem(at: services) }
        let output = services.appendingPathComponent("activated.env")
        try """
        [D-BUS Service]
        Name=io.github.reveille.SandboxProbe
        Exec=/bin/sh -c 'env > \(output.path).part && mv \(output.path).part \(output.path)'
        """.write(to: services.appendingPathComponent("io.github.reveille.SandboxProbe.service"), atomically: true, encoding: .utf8)
        let sandbox = try DesktopSandbox(startsNotificationServer: false, serviceDirectories: [services])
        defer { stopAndExpectNothingLeft(sandbox) }
        // The script never takes the name, so the call fails (here only after the reply timeout:
        // dbus-daemon does not notice the script ended); it ran all the same.
        let caller = try sandbox.spawn(
            "dbus-send",
            [
                "--print-reply", "--reply-timeout=2000", "--dest=io.github.reveille.SandboxProbe", "/",
                "io.github.reveille.SandboxProbe.Ping",
            ])
        #expect(try await caller.waitForExit(timeout: .seconds(30)) != .exited(0))
        let text = try await Poll.until("the activated service's environment", timeout: .seconds(10)) {
            try? String(contentsOf: output, encoding: .utf8)
        }
        let lines = Set(text.split(separator: "\n").map(String.init))
        #expect(lines.contains("DISPLAY=\(sandbox.display)"))
        #expect(lines.contains("DBUS_SESSION_BUS_ADDRESS=\(sandbox.bus.address)"))
        #expect(lines.contains("HOME=\(sandbox.home.path)"))
        #expect(lines.contains("\(DesktopSandbox.markerVariable)=\(sandbox.root.path)"))
    }
}
