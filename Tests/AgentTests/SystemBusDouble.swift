import DBus
import Foundation
import TestSupport

/// A second private `dbus-daemon` playing the system bus, with test doubles of logind and
/// timedate1 (`Scripts/system_services.py`, python3-dbus) owning their real names on it.
///
/// The doubles do what the real services do on the bus, and nothing to the machine: `Suspend`
/// emits `PrepareForSleep(true)` then `PrepareForSleep(false)` without suspending, and
/// `SetTimezone` re-points a link of the test's own (not `/etc/localtime`) and emits
/// `PropertiesChanged` with the new `Timezone`.
struct SystemBusDouble: Sendable {
    let bus: PrivateBus
    let services: SandboxProcess

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Scripts/system_services.py").path

    /// Starts the bus (on `socket` when given, so that it can be started again at the same address)
    /// and the doubles, which re-point `zoneLink` on `SetTimezone`; returns once both names are owned.
    /// `environment` is added to the doubles' (`REFUSE_LID`: logind refuses to inhibit the lid switch).
    static func start(
        in sandbox: DesktopSandbox, zoneLink: URL, socket: URL? = nil, environment: [String: String] = [:]
    ) async throws -> SystemBusDouble {
        let bus = try await offPool { try PrivateBus(environment: sandbox.environment, socket: socket) }
        do {
            let services = try sandbox.spawn(Built.systemPython, [script, bus.address, zoneLink.path], environment: environment)
            _ = try await services.waitForStandardOutput(containing: "ready", timeout: .seconds(30))
            return SystemBusDouble(bus: bus, services: services)
        } catch {
            try? await offPool { bus.stop() }
            throw error
        }
    }

    /// The bus address, for `reveilled --system-bus`.
    var address: String { bus.address }

    /// Calls logind's `Suspend(false)`: the double emits `PrepareForSleep(true)`, then `(false)`.
    func suspend() async throws {
        try await call("org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "Suspend", [.boolean(false)])
    }

    /// Calls timedate1's `SetTimezone(zone, false)`.
    func setTimeZone(_ zone: String) async throws {
        try await call(
            "org.freedesktop.timedate1", "/org/freedesktop/timedate1", "org.freedesktop.timedate1", "SetTimezone",
            [.string(zone), .boolean(false)])
    }

    private func call(_ destination: String, _ path: String, _ interface: String, _ method: String, _ arguments: [DBusValue]) async throws {
        let address = bus.address
        let connection = try await offPool { try DBusConnection.connect(address: address) }
        defer { connection.close() }
        _ = try await connection.call(destination: destination, path: path, interface: interface, method: method, arguments: arguments)
    }

    /// Takes the system bus away (the doubles end with it); blocks until the daemon has ended.
    /// Safe to call more than once.
    func stop() {
        bus.stop()
        services.stop()
    }
}

/// A folder with a `localtime` link, as `/etc/localtime`, for `reveilled --localtime`.
///
/// `localtime` links to `zoneinfo` names directly (`point(at:)`), or through a second link,
/// `zones/current`, that only a timedate1 double re-points: then the agent's watch on the folder
/// sees nothing, and only timedate1's signal can tell it the zone changed.
struct ZoneFolder {
    let folder: URL
    var localTime: URL { folder.appendingPathComponent("localtime") }
    var current: URL { folder.appendingPathComponent("zones/current") }
    /// A bus address where nothing listens.
    var noBus: String { "unix:path=" + folder.appendingPathComponent("no-such-bus").path }

    /// Makes the folder with `localtime` linking to `zone`, directly or through `zones/current`.
    init(zone: String, throughSecondLink: Bool = false) throws {
        folder = Fixtures.temporaryDirectory("reveille-zone")
        let manager = FileManager.default
        if throughSecondLink {
            try manager.createDirectory(at: current.deletingLastPathComponent(), withIntermediateDirectories: true)
            try manager.createSymbolicLink(atPath: current.path, withDestinationPath: "/usr/share/zoneinfo/" + zone)
            try manager.createSymbolicLink(atPath: localTime.path, withDestinationPath: current.path)
        } else {
            try manager.createSymbolicLink(atPath: localTime.path, withDestinationPath: "/usr/share/zoneinfo/" + zone)
        }
    }

    /// Points `localtime` at another zone the way timedatectl does: a new link renamed over it.
    func point(at zone: String) throws {
        let temporary = folder.appendingPathComponent(".localtime.new")
        try FileManager.default.createSymbolicLink(atPath: temporary.path, withDestinationPath: "/usr/share/zoneinfo/" + zone)
        guard rename(temporary.path, localTime.path) == 0 else {
            throw TestEnvironmentError.failed("rename: \(String(cString: strerror(errno)))")
        }
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}
