import AlarmKit
import Foundation
import Testing
import TestRequirements
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The program the package installs (`reveille-multicall`): one file, `/usr/bin/reveille`, with
/// `/usr/bin/reveilled` and `/usr/bin/reveille-search` other names (hard links) of it; the agent
/// when started as `reveilled`, the desktop's search providers as `reveille-search`, the command
/// otherwise.
@Suite(
    "The installed program: one file, the agent and the search providers by their names, the command otherwise",
    .requires(InstalledProgram.unavailable),
    .timeLimit(.minutes(5)))
struct InstalledProgramTests {
    @Test("Started as reveilled it is the agent, as reveille the command; the agent knows the command beside it for the person's own")
    func bothRoles() async throws {
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let folder = Fixtures.temporaryDirectory("reveille-installed")
        defer { try? FileManager.default.removeItem(at: folder) }
        let installed = try InstalledProgram(in: folder)

        let agentHelp = try await fixture.run(installed.agent, ["--help"])
        #expect(agentHelp.output.contains("USAGE: reveilled"), "\(agentHelp)")
        #expect(agentHelp.output.contains("--ring-timeout"), "\(agentHelp)")
        let commandHelp = try await fixture.run(installed.command, ["--help"])
        #expect(commandHelp.output.contains("USAGE: reveille <subcommand>"), "\(commandHelp)")
        #expect(!commandHelp.output.contains("--ring-timeout"), "\(commandHelp)")
        let version = try await fixture.run(installed.command, ["--version"])
        #expect(version.line == (try await fixture.reveille("--version")).line, "\(version)")

        let agent = try fixture.sandbox.spawn(installed.agent, ["--silent"])
        try await offPool { try fixture.sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }
        // The agent is the one file, by its second name.
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(agent.pid)/exe") == installed.agent)
        #expect(try String(contentsOfFile: "/proc/\(agent.pid)/comm", encoding: .utf8) == "reveilled\n")
        // What the command sets is the person's (owner `user`): the agent read the command's
        // executable and found the reveille beside its own.
        let added = try await fixture.run(installed.command, ["add", "7:30", "--title", "Work"])
        #expect(added.status == .exited(0), "\(added)")
        let shown = try await fixture.run(installed.command, ["show", added.line])
        #expect(shown.output.contains("owner     user"), "\(shown)")
        // Another file, even the development build of the same command, is an app to this agent:
        // it sees none of the person's alarms.
        let other = try await fixture.reveille("list")
        #expect(other.status == .exited(0) && !other.output.contains(" Work"), "\(other)")
    }

    @Test(
        "Started as reveille-search it is the search providers, which the agent knows for the person's: a title finds their alarm and what Enter sets is theirs; a copy of the file elsewhere, by the same name, is an app"
    )
    func searchRole() async throws {
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let folder = Fixtures.temporaryDirectory("reveille-installed-search")
        defer { try? FileManager.default.removeItem(at: folder) }
        let installed = try InstalledProgram(in: folder)
        _ = try fixture.sandbox.spawn(installed.agent, ["--silent"])
        try await offPool { try fixture.sandbox.waitForBusName(AgentClient.busName, timeout: .seconds(30)) }
        let added = try await fixture.run(installed.command, ["add", "7:30", "--title", "Work"])
        #expect(added.status == .exited(0), "\(added)")

        // Started by its third name, as the package's service file starts it.
        let search = try fixture.sandbox.spawn(installed.search, [])
        try await offPool { try fixture.sandbox.waitForBusName(SearchProviderTests.service, timeout: .seconds(30)) }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(search.pid)/exe") == installed.search)
        #expect(try String(contentsOfFile: "/proc/\(search.pid)/comm", encoding: .utf8) == "reveille-search\n")
        // The agent lists the person's alarms to it: the title finds the command's alarm.
        let found = try await SearchProviderTests.match(fixture, "Work")
        #expect(found.map(\.text) == ["“Work”"] && found.first?.actions == ["stop", "snooze", "cancel"], "\(found)")
        // Enter sets the timer as the person's (owner user, as the command's alarm).
        let tea = try await SearchProviderTests.match(fixture, "timer 10m tea")
        #expect(tea.map(\.text) == ["Timer for 10 min: tea"], "\(tea)")
        let pressed = try await SearchProviderTests.kRunner(fixture, "Run", "ss", try #require(tea.first?.id), "")
        #expect(pressed.result.status == .exited(0), "\(pressed.result)")
        let listed = try await fixture.run(installed.command, ["list", "--json"])
        let teaID = try #require(
            ((try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]]) ?? [])
                .first { $0["title"] as? String == "tea" }?["id"] as? String, "\(listed)")
        let shown = try await fixture.run(installed.command, ["show", teaID])
        // (The timer's details have a `remaining` line: the values start a column further on.)
        let owner = shown.output.split(separator: "\n").first { $0.hasPrefix("owner ") }.map {
            $0.dropFirst(5).trimmingCharacters(in: .whitespaces)
        }
        #expect(owner == "user", "\(shown)")
        search.stop(grace: .seconds(5))
        try await offPool { try fixture.sandbox.waitForBusNameReleased(SearchProviderTests.service, timeout: .seconds(30)) }

        // The same file copied elsewhere and started by the same name answers (a timer needs no
        // agent) but is not beside the agent: an app, it finds none of the person's alarms.
        let elsewhere = folder.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let copy = elsewhere.appendingPathComponent("reveille-search").path
        try FileManager.default.copyItem(atPath: installed.command, toPath: copy)
        let impostor = try fixture.sandbox.spawn(copy, [])
        defer { impostor.stop(grace: .zero) }
        try await offPool { try fixture.sandbox.waitForBusName(SearchProviderTests.service, timeout: .seconds(30)) }
        #expect(try await SearchProviderTests.match(fixture, "timer 10m tea").map(\.text) == ["Timer for 10 min: tea"])
        let notFound = try await SearchProviderTests.match(fixture, "Work")
        #expect(notFound.isEmpty, "\(notFound)")
    }

    @Test(
        "It links no ICU: none of Foundation's ICU-backed libraries (FoundationInternationalization, _FoundationICU) nor swift-corelibs-foundation, which reaches them"
    )
    func linksNoICU() throws {
        // This build links the Swift libraries as shared ones: the ones it needs are named in its
        // dynamic section. (The release build links them in; scripts/check-lean looks there for
        // ICU's data table, and the package's build runs it.)
        let needed = try InstalledProgram.neededLibraries(Built.path("reveille-multicall"))
        #expect(needed.contains { $0.hasPrefix("libFoundationEssentials.so") }, "\(needed)")
        let icu = needed.filter { name in
            ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so", "libicu"].contains { name.hasPrefix($0) }
        }
        #expect(
            icu.isEmpty,
            "reveille-multicall links \(icu): something it is built from imports Foundation (not FoundationEssentials) or one of its ICU-backed parts"
        )
    }

    @Test(
        "With CAP_WAKE_ALARM on the file, as the package gives it: the agent run by a person keeps it; the command and the search providers give it up, and the agent still knows them for the person's",
        .requires(InstalledProgram.rootUnavailable))
    func capabilities() async throws {
        // The sandbox's programs run as root; the person's session here runs as nobody.
        let fixture = try await AgentFixture.start(startingAgent: false)
        defer { fixture.stop() }
        let folder = Fixtures.temporaryDirectory("reveille-installed-caps")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        let installed = try InstalledProgram(in: folder)
        _ = try Executables.run(try InstalledProgram.tool("setcap"), ["cap_wake_alarm+ep", installed.command])

        let person = try await PersonSession.start(in: folder, sandbox: fixture.sandbox)
        let agent = try person.spawn(installed.agent, ["--silent", "--no-notifications"])
        try await person.waitForAgent()
        #expect(try ProcessCapabilities(pid: agent.pid).effective & ProcessCapabilities.wakeAlarm != 0, "the agent keeps CAP_WAKE_ALARM")

        let added = try person.spawn(installed.command, ["add", "7:30", "--title", "Work"])
        #expect(try await added.waitForExit(timeout: .seconds(30)) == .exited(0), "\(added.standardOutput) \(added.standardError)")
        let id = added.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let shown = try person.spawn(installed.command, ["show", id])
        _ = try await shown.waitForExit(timeout: .seconds(30))
        #expect(
            shown.standardOutput.contains("owner     user"), "the command is the person's: \(shown.standardOutput) \(shown.standardError)")

        // A command that stays (watch): it holds no capability, and is an ordinary process of its
        // user: another program of theirs, holding none, reads its executable (the kernel refuses
        // that while it holds one the reader lacks), as an agent without the capability would.
        let watch = try person.spawn(installed.command, ["watch", "--json"])
        defer { watch.stop(grace: .zero) }
        try await waitUntil("watch to print the list", detail: { watch.standardError }) {
            watch.standardOutput.contains("\"title\":\"Work\"") ? true : nil
        }
        let capabilities = try ProcessCapabilities(pid: watch.pid)
        #expect(capabilities.permitted == 0 && capabilities.effective == 0, "\(capabilities)")
        let reader = try person.spawn("/usr/bin/readlink", ["-v", "/proc/\(watch.pid)/exe"])
        _ = try await reader.waitForExit(timeout: .seconds(10))
        #expect(reader.standardOutput == installed.command + "\n", "\(reader.standardOutput) \(reader.standardError)")

        // The search providers, by the file's third name, give it up too (they answer any caller
        // on the bus, and need it for nothing): the agent knows them for the person's (a title
        // finds the command's alarm), and another program of the person's, holding no capability,
        // reads their executable.
        let search = try person.spawn(installed.search, [])
        defer { search.stop(grace: .zero) }
        try await waitUntil("reveille-search to find the person's alarm", every: .milliseconds(200)) { () async throws -> Bool? in
            let match = try person.spawn(
                "/usr/bin/busctl",
                [
                    "--address=\(person.environment["DBUS_SESSION_BUS_ADDRESS"] ?? "")", "--json=short", "call",
                    SearchProviderTests.service, SearchProviderTests.kRunnerPath,
                    "org.kde.krunner1", "Match", "s", "Work",
                ])
            _ = try await match.waitForExit(timeout: .seconds(10))
            return match.standardOutput.contains("“Work”") ? true : nil
        }
        let searchCapabilities = try ProcessCapabilities(pid: search.pid)
        #expect(searchCapabilities.permitted == 0 && searchCapabilities.effective == 0, "\(searchCapabilities)")
        let searchReader = try person.spawn("/usr/bin/readlink", ["-v", "/proc/\(search.pid)/exe"])
        _ = try await searchReader.waitForExit(timeout: .seconds(10))
        #expect(searchReader.standardOutput == installed.search + "\n", "\(searchReader.standardOutput) \(searchReader.standardError)")
    }
}

/// The installed program laid out as the package lays it out, in a folder: `reveille`, a copy of
/// the built `reveille-multicall`, and `reveilled` and `reveille-search`, other names (hard links)
/// of it, as scripts/install makes them.
struct InstalledProgram {
    /// `folder/reveille`.
    let command: String
    /// `folder/reveilled`.
    let agent: String
    /// `folder/reveille-search`.
    let search: String

    init(in folder: URL) throws {
        command = folder.appendingPathComponent("reveille").path
        agent = folder.appendingPathComponent("reveilled").path
        search = folder.appendingPathComponent("reveille-search").path
        try FileManager.default.copyItem(atPath: Built.path("reveille-multicall"), toPath: command)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: command)
        try FileManager.default.linkItem(atPath: command, toPath: agent)
        try FileManager.default.linkItem(atPath: command, toPath: search)
    }

    /// Why the suite cannot run here, or `nil`.
    static var unavailable: String? {
        if let missing = Built.unavailable { return missing }
        let path = Built.path("reveille-multicall")
        return FileManager.default.isExecutableFile(atPath: path) ? nil : "\(path) is not built"
    }

    /// Why the capabilities test cannot run here, or `nil`: it gives a file a capability (setcap)
    /// and runs programs as another user (setpriv), which takes root.
    static var rootUnavailable: String? {
        if getuid() != 0 {
            return "it must run as root: it gives the program CAP_WAKE_ALARM with setcap and runs it as nobody with setpriv"
        }
        for name in ["setcap", "setpriv", "dbus-daemon"] where (try? tool(name)) == nil {
            return "\(name) is not installed (scripts/install-deps installs it)"
        }
        return nil
    }

    /// The shared libraries a program names in its dynamic section (`DT_NEEDED`, as `readelf -d`
    /// prints them).
    static func neededLibraries(_ path: String) throws -> [String] {
        let dynamic = try Executables.run(try tool("readelf"), ["-d", "-W", path])
        return dynamic.split(separator: "\n").compactMap { line in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    /// A program on `PATH` or in `/usr/sbin`.
    static func tool(_ name: String) throws -> String {
        guard let path = Executables.find(name) else { throw TestEnvironmentError.missing(name) }
        return path
    }
}

/// An ordinary user's session for the capabilities test: a home and a session bus of `nobody`'s
/// own, its programs started in the sandbox through `setpriv`.
struct PersonSession {
    /// `nobody`.
    static let uid: uid_t = 65_534
    /// `setpriv`'s arguments that run the rest of its command line as `nobody`, with no groups.
    static let asPerson = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--"]

    let sandbox: DesktopSandbox
    let environment: [String: String]

    /// Makes the home (owned by nobody) and starts the bus as nobody.
    static func start(in folder: URL, sandbox: DesktopSandbox) async throws -> PersonSession {
        let home = folder.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        guard chown(home.path, uid, uid) == 0 else { throw TestEnvironmentError.failed("chown \(home.path) failed") }
        let socket = home.appendingPathComponent("bus").path
        let configuration = folder.appendingPathComponent("bus.conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*"/>
            <allow receive_sender="*"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """.write(to: configuration, atomically: true, encoding: .utf8)
        let person = PersonSession(
            sandbox: sandbox,
            environment: [
                "HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path,
                "XDG_STATE_HOME": home.appendingPathComponent("state").path,
                "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
                "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(socket)", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
            ])
        let bus = try person.spawn(try InstalledProgram.tool("dbus-daemon"), ["--config-file=\(configuration.path)", "--nofork"])
        try await waitUntil("the person's bus to listen", detail: { bus.standardError }) {
            FileManager.default.fileExists(atPath: socket) ? true : nil
        }
        return person
    }

    /// Starts `program` as the person, in their session (the sandbox stops it).
    func spawn(_ program: String, _ arguments: [String]) throws -> SandboxProcess {
        try sandbox.spawn(try InstalledProgram.tool("setpriv"), Self.asPerson + [program] + arguments, environment: environment)
    }

    /// Waits until the agent owns its name on the person's bus (asked as the person: the bus
    /// takes no one else).
    func waitForAgent() async throws {
        try await waitUntil("the agent to own its name", every: .milliseconds(100)) { () async throws -> Bool? in
            let check = try spawn(
                "/usr/bin/dbus-send",
                [
                    "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                    "org.freedesktop.DBus.NameHasOwner", "string:io.github.reveille.Alarms1",
                ])
            _ = try await check.waitForExit(timeout: .seconds(10))
            return check.standardOutput.contains("boolean true") ? true : nil
        }
    }
}

/// A process's capabilities, as `/proc/PID/status` shows them.
struct ProcessCapabilities: CustomStringConvertible {
    /// `CAP_WAKE_ALARM` (35)'s bit.
    static let wakeAlarm: UInt64 = 1 << 35

    var permitted: UInt64
    var effective: UInt64

    init(pid: Int32) throws {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) throws -> UInt64 {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }),
                let value = UInt64(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces), radix: 16)
            else { throw TestEnvironmentError.failed("no \(name) in /proc/\(pid)/status") }
            return value
        }
        permitted = try field("CapPrm")
        effective = try field("CapEff")
    }

    var description: String { "CapPrm \(String(permitted, radix: 16)), CapEff \(String(effective, radix: 16))" }
}
