import Foundation
import Testing
import TestRequirements
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `scripts/install` and `scripts/uninstall` as a person and a packager run them: programs already
/// built (`--bin-dir`, this build's debug programs) installed into a sandbox's `~/.local` and
/// removed again, a `DESTDIR` stage for `/usr`, and a folder with a program missing. Each run is in
/// a desktop sandbox (its own `HOME`, `XDG_*` folders and session bus), with `XDG_DATA_DIRS` and
/// `XDG_CONFIG_DIRS` pointing at empty folders, so the machine's own installation is never seen.
@Suite(
    "Install script: --bin-dir, DESTDIR and uninstall", .onItsOwnThread, .serialized, .requires(Built.unavailable), .timeLimit(.minutes(5)))
struct InstallScriptTests {
    /// The repository's root, from this file's path.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The version this source is, as `reveille --version` prints it: the upstream part of
    /// debian/changelog's first entry (`reveille (0.1.0-1) unstable; ...`).
    static var sourceVersion: String {
        get throws {
            let text = try String(contentsOf: repository.appendingPathComponent("debian/changelog"), encoding: .utf8)
            let line = try #require(text.split(separator: "\n").first)
            let version = try #require(line.split(separator: "(").dropFirst().first?.split(separator: ")").first)
            let upstream = version.split(separator: ":").last.map(String.init) ?? ""
            return upstream.range(of: "-", options: .backwards).map { String(upstream[..<$0.lowerBound]) } ?? upstream
        }
    }

    @Test("--bin-dir installs the built programs into ~/.local, enabled and activatable; uninstall removes every file it put there")
    func binDirIntoHome() async throws {
        let sandbox = try await offPool { try DesktopSandbox(startsNotificationServer: false) }
        defer { sandbox.stop() }
        let environment = try Self.isolated(sandbox)
        let home = sandbox.home.path
        let prefix = home + "/.local"
        let before = try Self.files(under: sandbox.home)

        let install = try await Self.run(
            sandbox, Self.repository.appendingPathComponent("scripts/install").path, ["--bin-dir", Built.folder.path],
            environment: environment)
        #expect(install.status == .exited(0), "\(install)")
        #expect(install.output.contains("Installed into \(prefix) ("), "\(install)")
        #expect(!install.output.contains("Building"), "--bin-dir builds nothing: \(install)")

        // The manifest lists every file put in place, each there.
        let manifestPath = prefix + "/share/reveille/install-manifest"
        let manifest = try String(contentsOfFile: manifestPath, encoding: .utf8).split(separator: "\n").map(String.init)
        let link = sandbox.configHome.path + "/systemd/user/default.target.wants/reveilled.service"
        let unit = prefix + "/share/systemd/user/reveilled.service"
        let activation = prefix + "/share/dbus-1/services/io.github.reveille.Alarms1.service"
        let entry = prefix + "/share/applications/io.github.reveille.Reveille.desktop"
        let autostart = sandbox.configHome.path + "/autostart/io.github.reveille.Reveilled.desktop"
        let expected = [
            prefix + "/bin/reveille", prefix + "/bin/reveilled", prefix + "/bin/reveille-search", unit, activation, entry, autostart, link,
            prefix + "/share/dbus-1/services/io.github.reveille.Search.service",
            prefix + "/share/icons/hicolor/scalable/apps/io.github.reveille.Reveille.svg",
            prefix + "/share/icons/hicolor/symbolic/apps/io.github.reveille.Reveille-symbolic.svg",
            prefix + "/share/metainfo/io.github.reveille.Reveille.metainfo.xml",
            prefix + "/share/dbus-1/interfaces/io.github.reveille.Alarms1.Manager.xml",
            prefix + "/share/dbus-1/interfaces/io.github.reveille.Alarms1.Alarm.xml",
            prefix + "/share/bash-completion/completions/reveille", prefix + "/share/zsh/site-functions/_reveille",
            prefix + "/share/fish/vendor_completions.d/reveille.fish", manifestPath,
        ]
        for path in expected {
            #expect(manifest.contains(path), "\(path) is not in the manifest")
        }
        #expect(manifest.contains { $0.hasPrefix(prefix + "/share/reveille/sounds/") }, "no sound installed: \(manifest)")
        for sound in ["beeps", "chimes", "dawn", "bugle"] {
            #expect(manifest.contains(prefix + "/share/reveille/sounds/\(sound).oga"), "\(sound).oga is not installed")
        }
        // ~/.local/share/zsh/site-functions is in no zsh's default $fpath: the person is told the line.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") {
            #expect(install.output.contains("fpath+=(\(prefix)/share/zsh/site-functions)"), "\(install)")
        }
        for path in manifest {
            #expect(Self.exists(path), "\(path) is in the manifest but not there")
        }
        // The man pages come from generate-manual: where the build has none (a debug build), the
        // install says so and lists none.
        let manPages = [
            prefix + "/share/man/man1/reveille.1", prefix + "/share/man/man1/reveilled.1", prefix + "/share/man/man1/reveille-search.1",
        ]
        if FileManager.default.isExecutableFile(atPath: Built.path("generate-manual")) {
            #expect(manPages.allSatisfy(manifest.contains), "\(manifest)")
        } else {
            #expect(
                install.error.contains("no generate-manual that runs in \(Built.folder.path): the man pages are not installed"),
                "\(install)")
            #expect(!manifest.contains { $0.contains("/man/") })
        }

        // The programs run from where they were installed.
        let sourceVersion = try Self.sourceVersion
        for program in ["reveille", "reveilled"] {
            let version = try await Self.run(sandbox, prefix + "/bin/" + program, ["--version"], environment: environment)
            #expect(version.status == .exited(0) && version.line == sourceVersion, "\(program): \(version)")
        }
        // Files name the installed programs; the enablement link points at the installed unit.
        #expect(try Self.lines(unit).contains("ExecStart=\(prefix)/bin/reveilled"))
        #expect(try Self.lines(unit).contains("WantedBy=default.target"))
        #expect(try Self.lines(activation).contains("Exec=\(prefix)/bin/reveilled"))
        #expect(try Self.lines(activation).contains("Name=io.github.reveille.Alarms1"))
        #expect(try Self.lines(entry).contains("Exec=\(prefix)/bin/reveille watch"))
        #expect(try Self.lines(autostart).contains("Exec=\(prefix)/bin/reveilled"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == unit)
        #expect(FileManager.default.fileExists(atPath: link), "the enablement link dangles")
        // bash-completion sources its files: the script has no #! line.
        #expect(try Self.lines(prefix + "/share/bash-completion/completions/reveille").first?.hasPrefix("#!") == false)

        // `reveille status` says the agent starts at the next login, by the enabled unit.
        let status = try await Self.status(sandbox, program: prefix + "/bin/reveille", environment: environment)
        #expect(status["loginStart"] as? String == "systemd-unit", "\(status)")
        #expect((status["loginStartDetail"] as? String)?.contains(link) == true, "\(status)")
        #expect(status["running"] as? Bool == false)

        // The D-Bus activation file starts the installed agent: the first call on a bus that reads
        // the installed services folder has the bus start it.
        let socket = sandbox.root.appendingPathComponent("activation-bus")
        var busEnvironment = sandbox.environment.merging(environment) { $1 }
        busEnvironment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(socket.path)"
        let bus = try PrivateBus(
            serviceDirectories: [URL(fileURLWithPath: prefix + "/share/dbus-1/services")], environment: busEnvironment,
            socket: socket)
        defer { bus.stop() }
        var onBus = environment
        onBus["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let list = try await Self.run(sandbox, prefix + "/bin/reveille", ["list", "--json"], environment: onBus)
        #expect(list.status == .exited(0) && list.line == "[]", "\(list)")
        // The search providers' service file starts the installed reveille-search, which the
        // installed agent knows for the person's: what Enter sets is theirs (owner user).
        let search = [
            "--address=\(bus.address)", "call", "io.github.reveille.Search", "/io/github/reveille/Search/KRunner", "org.kde.krunner1",
        ]
        let match = try await Self.run(sandbox, "/usr/bin/busctl", search + ["Match", "s", "timer 10m tea"], environment: onBus)
        #expect(match.status == .exited(0) && match.output.contains("\"Timer for 10 min: tea\""), "\(match)")
        let pressed = try await Self.run(sandbox, "/usr/bin/busctl", search + ["Run", "ss", "set:timer 10m tea", ""], environment: onBus)
        #expect(pressed.status == .exited(0), "\(pressed)")
        let alarms = try await Self.run(sandbox, prefix + "/bin/reveille", ["list", "--json"], environment: onBus)
        let teaID =
            ((try? JSONSerialization.jsonObject(with: Data(alarms.output.utf8))) as? [[String: Any]])?
            .first { $0["title"] as? String == "tea" }?["id"] as? String
        let shown = try await Self.run(sandbox, prefix + "/bin/reveille", ["show", try #require(teaID, "\(alarms)")], environment: onBus)
        // (The timer's details have a `remaining` line: the values start a column further on.)
        let owner = shown.output.split(separator: "\n").first { $0.hasPrefix("owner ") }.map {
            $0.dropFirst(5).trimmingCharacters(in: .whitespaces)
        }
        #expect(owner == "user", "\(shown)")
        // One program, installed once: reveille, reveilled and reveille-search are three names of one file.
        var command = stat()
        var agent = stat()
        var searcher = stat()
        #expect(lstat(prefix + "/bin/reveille", &command) == 0 && lstat(prefix + "/bin/reveilled", &agent) == 0)
        #expect(lstat(prefix + "/bin/reveille-search", &searcher) == 0)
        #expect(
            command.st_ino == agent.st_ino && command.st_ino == searcher.st_ino && agent.st_nlink == 3
                && (agent.st_mode & S_IFMT) == S_IFREG,
            "three names of one regular file")
        #expect(Self.processes(running: prefix + "/bin/reveille-search").count == 1, "reveille-search was not started by its name")
        let agents = Self.processes(running: prefix + "/bin/reveilled")
        #expect(agents.count == 1, "\(agents)")
        // dbus-daemon gives the services it starts its address as DBUS_STARTER_ADDRESS.
        #expect(
            agents.allSatisfy { ProcessTable.environment(of: $0)?["DBUS_STARTER_ADDRESS"]?.hasPrefix(bus.address) == true },
            "not started by D-Bus activation: \(agents)")

        // Uninstall: stops that agent and removes every file of the manifest; the folders stay,
        // and so do the alarms the agent stored (in ~/.local/share/reveille), as it says.
        let uninstall = try await Self.run(
            sandbox, Self.repository.appendingPathComponent("scripts/uninstall").path, [], environment: environment)
        #expect(uninstall.status == .exited(0), "\(uninstall)")
        #expect(uninstall.line == "Removed \(manifest.count) files from \(prefix).", "\(uninstall)")
        #expect(ProcessTable.waitUntilGone(agents, timeout: .seconds(10)), "the installed agent still runs")
        for path in manifest {
            #expect(!Self.exists(path), "\(path) is still there")
        }
        let left = try Self.files(under: sandbox.home).subtracting(before)
        let store = sandbox.dataHome.path + "/reveille/"
        #expect(left.allSatisfy { $0.hasPrefix(store) && !$0.hasPrefix(store + "sounds/") }, "left behind: \(left.sorted())")
        #expect(left.contains(store + "alarms.sqlite"), "the agent's store is kept: \(left.sorted())")
        #expect(FileManager.default.fileExists(atPath: prefix + "/bin"), "folders are left as they are")

        // The installed command is gone: the built one tells.
        let after = try await Self.status(sandbox, program: Built.path("reveille"), environment: environment)
        #expect(after["loginStart"] as? String == "not-installed", "\(after)")
    }

    @Test("DESTDIR stages every file under it, with the final /usr paths inside the files, and writes nothing outside it")
    func destdirStage() async throws {
        let sandbox = try await offPool { try DesktopSandbox(startsNotificationServer: false) }
        defer { sandbox.stop() }
        var environment = try Self.isolated(sandbox)
        let stage = sandbox.root.appendingPathComponent("stage").path
        environment["DESTDIR"] = stage
        let homeBefore = try Self.files(under: sandbox.home)
        // The final paths: none may appear on this machine (the ones already there are left out).
        let link = "/etc/systemd/user/default.target.wants/reveilled.service"
        // A /usr installation's user unit is in systemd's own folder, where a distribution's
        // packages put theirs (and debhelper's dh_installsystemduser looks).
        let unit = "/usr/lib/systemd/user/reveilled.service"
        let finals = [
            "/usr/bin/reveille", "/usr/bin/reveilled", unit, link,
            "/usr/share/dbus-1/services/io.github.reveille.Alarms1.service",
            "/usr/share/applications/io.github.reveille.Reveille.desktop",
            "/etc/xdg/autostart/io.github.reveille.Reveilled.desktop", "/usr/share/reveille",
            // The desktop's search providers (issue 42): the program, its activation, GNOME's and Plasma's registrations.
            "/usr/bin/reveille-search", "/usr/share/dbus-1/services/io.github.reveille.Search.service",
            "/usr/share/gnome-shell/search-providers/io.github.reveille.Search.search-provider.ini",
            "/usr/share/krunner/dbusplugins/io.github.reveille.Search.desktop",
        ]
        let absent = finals.filter { !Self.exists($0) }

        let install = try await Self.run(
            sandbox, Self.repository.appendingPathComponent("scripts/install").path,
            ["--prefix", "/usr", "--bin-dir", Built.folder.path], environment: environment)
        #expect(install.status == .exited(0), "\(install)")
        #expect(install.output.contains("Staged into \(stage) for /usr ("), "\(install)")

        // Nothing outside the stage: not the final paths, not the sandbox's HOME.
        for path in absent {
            #expect(!Self.exists(path), "\(path) was written outside DESTDIR")
        }
        #expect(try Self.files(under: sandbox.home) == homeBefore, "HOME was written to")

        // The stage holds exactly the manifest's files, and the manifest lists the final paths.
        let manifest = try String(contentsOfFile: stage + "/usr/share/reveille/install-manifest", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        #expect(manifest.allSatisfy { $0.hasPrefix("/usr/") || $0.hasPrefix("/etc/") }, "\(manifest)")
        #expect(manifest.contains("/usr/share/reveille/install-manifest"))
        let staged = try Self.files(under: URL(fileURLWithPath: stage))
        #expect(staged == Set(manifest.map { stage + $0 }), "staged: \(staged.sorted())\nmanifest: \(manifest)")
        for path in finals where path != "/usr/share/reveille" {
            #expect(manifest.contains(path), "\(path) is not staged")
        }
        // Debian's zsh reads a package's completions from vendor-completions, not site-functions.
        if FileManager.default.fileExists(atPath: "/etc/debian_version") {
            #expect(manifest.contains("/usr/share/zsh/vendor-completions/_reveille"), "\(manifest)")
        }

        // Inside the files, the final paths, never the stage.
        #expect(try Self.lines(stage + unit).contains("ExecStart=/usr/bin/reveilled"))
        #expect(try Self.lines(stage + "/usr/share/dbus-1/services/io.github.reveille.Alarms1.service").contains("Exec=/usr/bin/reveilled"))
        #expect(
            try Self.lines(stage + "/usr/share/applications/io.github.reveille.Reveille.desktop").contains("Exec=/usr/bin/reveille watch"))
        #expect(try Self.lines(stage + "/etc/xdg/autostart/io.github.reveille.Reveilled.desktop").contains("Exec=/usr/bin/reveilled"))
        #expect(
            try Self.lines(stage + "/usr/share/dbus-1/services/io.github.reveille.Search.service").contains("Exec=/usr/bin/reveille-search")
        )
        for path in staged where !path.hasPrefix(stage + "/usr/bin/") {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            #expect(!text.contains(stage), "\(path) names the stage")
        }
        // The global enablement link, staged, points at the unit's final path, which the stage holds.
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: stage + link) == unit)
        #expect(FileManager.default.fileExists(atPath: stage + unit))
    }

    @Test("--bin-dir without the installed program (reveille-multicall) fails, naming it, and installs nothing")
    func binDirMissingProgram() async throws {
        let sandbox = try await offPool { try DesktopSandbox(startsNotificationServer: false) }
        defer { sandbox.stop() }
        let environment = try Self.isolated(sandbox)
        let partial = sandbox.root.appendingPathComponent("partial-bin")
        try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: partial.appendingPathComponent("reveille").path, withDestinationPath: Built.path("reveille"))
        let before = try Self.files(under: sandbox.home)

        let install = try await Self.run(
            sandbox, Self.repository.appendingPathComponent("scripts/install").path, ["--bin-dir", partial.path],
            environment: environment)
        #expect(install.status == .exited(1), "\(install)")
        #expect(
            install.error.contains(
                "install: \(partial.path)/reveille-multicall is missing (scripts/build-release, or swift build -c release $(scripts/release-flags) --product reveille-multicall); nothing was installed"
            ),
            "\(install)")
        #expect(install.output.isEmpty, "\(install)")
        #expect(try Self.files(under: sandbox.home) == before, "something was installed")
        #expect(!FileManager.default.fileExists(atPath: sandbox.home.path + "/.local/bin"))
    }

    @Test("--bin-dir with programs of another version than debian/changelog's fails, naming both, and installs nothing")
    func binDirOtherVersion() async throws {
        let sandbox = try await offPool { try DesktopSandbox(startsNotificationServer: false) }
        defer { sandbox.stop() }
        let environment = try Self.isolated(sandbox)
        // Programs that say another version, as a build from another commit would.
        let other = sandbox.root.appendingPathComponent("other-bin")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        for program in ["reveille-multicall"] {
            let path = other.appendingPathComponent(program).path
            try "#!/bin/sh\necho 99.0.0\n".write(toFile: path, atomically: true, encoding: .utf8)
            #expect(chmod(path, 0o755) == 0)
        }
        let before = try Self.files(under: sandbox.home)

        let install = try await Self.run(
            sandbox, Self.repository.appendingPathComponent("scripts/install").path, ["--bin-dir", other.path],
            environment: environment)
        #expect(install.status == .exited(1), "\(install)")
        let sourceVersion = try Self.sourceVersion
        #expect(
            install.error.contains(
                "install: \(other.path)/reveille-multicall (as reveille) is version 99.0.0, debian/changelog says \(sourceVersion): rebuild, or add a changelog entry; nothing was installed"
            ),
            "\(install)")
        #expect(try Self.files(under: sandbox.home) == before, "something was installed")
    }

    // MARK: Helpers

    /// The sandbox's environment additions: `XDG_DATA_DIRS` and `XDG_CONFIG_DIRS` in empty
    /// folders of the sandbox, so neither the script nor `reveille status` sees the machine's own.
    static func isolated(_ sandbox: DesktopSandbox) throws -> [String: String] {
        let data = sandbox.root.appendingPathComponent("xdg-data-dirs")
        let config = sandbox.root.appendingPathComponent("xdg-config-dirs")
        for folder in [data, config] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        return ["XDG_DATA_DIRS": data.path, "XDG_CONFIG_DIRS": config.path]
    }

    /// Runs a program in the sandbox to its end (two minutes at most).
    static func run(
        _ sandbox: DesktopSandbox, _ program: String, _ arguments: [String], environment: [String: String]
    ) async throws -> CommandResult {
        let process = try sandbox.spawn(program, arguments, environment: environment)
        let status = try await process.waitForExit(timeout: .seconds(120))
        return CommandResult(status: status, output: process.standardOutput, error: process.standardError)
    }

    /// `reveille status --json`, on the sandbox's bus (where no agent runs).
    static func status(_ sandbox: DesktopSandbox, program: String, environment: [String: String]) async throws -> [String: Any] {
        let result = try await run(sandbox, program, ["status", "--json"], environment: environment)
        guard result.status == .exited(0) else { throw TestEnvironmentError.failed("reveille status failed: \(result)") }
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8))
        return try #require(object as? [String: Any], "\(result)")
    }

    /// Every file and link under a folder (not the folders themselves), as absolute paths.
    static func files(under folder: URL) throws -> Set<String> {
        let manager = FileManager.default
        guard manager.fileExists(atPath: folder.path) else { return [] }
        return Set(
            try manager.subpathsOfDirectory(atPath: folder.path).map { folder.path + "/" + $0 }.filter { path in
                (try? manager.attributesOfItem(atPath: path)[.type] as? FileAttributeType) != .typeDirectory
            })
    }

    /// Whether a file, a folder or a link (dangling or not) is at a path.
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// A text file's lines.
    static func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// The processes whose program is the file at `path`.
    static func processes(running path: String) -> [pid_t] {
        ProcessTable.allProcessIDs().filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\($0)/exe")) == path
        }
    }
}
