import Foundation
import LinuxSystem
import Synchronization

/// A private D-Bus session bus for tests: a real `dbus-daemon` with its own configuration, socket
/// folder and (optionally) service folders, stopped by PID.
///
/// The configuration has no service folders but the ones given: Debian ships activatable
/// `org.freedesktop.Notifications` services that would race each other on a shared bus.
package final class PrivateBus: Sendable {
    /// The bus address, for `DBUS_SESSION_BUS_ADDRESS`.
    package let address: String
    /// The daemon's process id.
    package let pid: Int32
    /// The folder holding the configuration and the socket.
    package let directory: URL

    /// Whether `dbus-daemon` is installed, so tests can be skipped with a clear message without it.
    package static var isAvailable: Bool { Executables.find("dbus-daemon") != nil }

    /// Starts a bus; `serviceDirectories` are searched for D-Bus activation files.
    ///
    /// `environment` is given to the daemon and so to the services it activates (for example
    /// `HOME` and the `XDG_*` folders of a test). With `socket`, the bus listens on that file
    /// (`unix:path=`), so a bus started again later has the same address; else on a file of a
    /// random name in its own folder (`unix:dir=`).
    package init(serviceDirectories: [URL] = [], environment: [String: String]? = nil, socket: URL? = nil) throws {
        let directory = Fixtures.temporaryDirectory("reveille-bus")
        let listen = socket.map { "unix:path=\($0.path)" } ?? "unix:dir=\(directory.path)"
        let services = serviceDirectories.map { "  <servicedir>\($0.path)</servicedir>\n" }.joined()
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(listen)</listen>
              <auth>EXTERNAL</auth>
            \(services)  <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        let configurationURL = directory.appendingPathComponent("bus.conf")
        try configuration.write(to: configurationURL, atomically: true, encoding: .utf8)
        guard let daemon = Executables.find("dbus-daemon") else { throw TestEnvironmentError.missing("dbus-daemon") }
        let output = try Executables.run(
            daemon, ["--config-file=\(configurationURL.path)", "--fork", "--print-address=1", "--print-pid=1"],
            environment: environment)
        let lines = output.split(separator: "\n").map(String.init)
        guard lines.count >= 2, let pid = Int32(lines[1]) else {
            throw TestEnvironmentError.failed("dbus-daemon printed \(output.debugDescription)")
        }
        self.address = lines[0]
        self.pid = pid
        self.directory = directory
    }

    /// Whether `stop()` ran: the daemon's process id must not be signalled twice (by then it may
    /// belong to another process).
    private let stopped = Mutex(false)

    /// Stops the daemon, waits (up to 2 s) until it has ended, and removes its folder. Safe to call
    /// more than once.
    package func stop() {
        guard
            stopped.withLock({ stopped in
                defer { stopped = true }; return !stopped
            })
        else { return }
        try? ProcessCalls.kill(pid, signal: SIGTERM)
        // The daemon removes its socket as it exits: removing the folder meanwhile would race it.
        if !ProcessTable.waitUntilGone([pid], timeout: .seconds(2)) {
            try? ProcessCalls.kill(pid, signal: SIGKILL)
            ProcessTable.waitUntilGone([pid], timeout: .seconds(2))
        }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}

/// Why a test environment could not be set up.
package enum TestEnvironmentError: Error, CustomStringConvertible {
    /// A program the tests need is not installed.
    case missing(String)
    /// A program failed.
    case failed(String)

    /// A sentence for the test log.
    package var description: String {
        switch self {
        case .missing(let program): "\(program) is not installed (scripts/install-deps --tests installs it)"
        case .failed(let reason): reason
        }
    }
}

/// Finding and running programs for tests.
package enum Executables {
    /// The path of a program on `PATH`, or `nil`.
    package static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        // `String` elements: concatenating the substrings with literals would infer `[[Character]]`
        // and interpolate the folders as character lists.
        for folder in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"] {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The version of the `dbus-daemon` on `PATH`, such as [1, 14, 10]; nil where there is none, or
    /// it says no version. Asked once per test process.
    package static let dbusDaemonVersion: [Int]? = {
        guard let daemon = find("dbus-daemon"), let output = try? run(daemon, ["--version"]),
            let word = output.split(separator: "\n").first?.split(separator: " ").last
        else { return nil }
        let version = word.split(separator: ".").compactMap { Int($0) }
        return version.isEmpty ? nil : version
    }()

    /// Whether the `dbus-daemon` on `PATH` gives a caller's pidfd (`ProcessFD`, type h) in
    /// `GetConnectionCredentials`: 1.15.2 and later do (Debian 13's 1.16).
    package static var dbusDaemonGivesProcessFD: Bool {
        guard let version = dbusDaemonVersion else { return false }
        return !version.lexicographicallyPrecedes([1, 15, 2])
    }

    /// Runs a program to its end and returns its standard output; throws if it fails.
    ///
    /// Its standard error is this process's. It is started with `posix_spawn` (see
    /// `ProcessSpawner`), not Foundation's `Process`, whose `waitUntilExit()` hangs while a daemon
    /// the program forked lives on, and whose children inherit a signal mask blocking SIGTERM.
    @discardableResult
    package static func run(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws -> String {
        let (readEnd, writeEnd) = try Pipes.makeDescriptors()
        let pid: pid_t
        do {
            pid = try ProcessSpawner.spawn(
                path, arguments, environment: environment ?? ProcessInfo.processInfo.environment,
                standardOutput: .descriptor(writeEnd.rawValue), standardError: .inherited, newProcessGroup: false)
        } catch {
            try? readEnd.close()
            try? writeEnd.close()
            throw error
        }
        try? writeEnd.close()
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            // A failed read ends the output like its end does.
            let count = (try? buffer.withUnsafeMutableBytes { bytes throws(Errno) in try readEnd.read(into: bytes) }) ?? 0
            if count <= 0 { break }
            data += buffer[0..<count]
        }
        try? readEnd.close()
        let status = ProcessSpawner.wait(pid)
        let text = String(decoding: data, as: UTF8.self)
        guard status == .exited(0) else {
            throw TestEnvironmentError.failed(
                "\(path) \(arguments.joined(separator: " ")) ended with \(status.map(\.description) ?? "unknown status")")
        }
        return text
    }
}
