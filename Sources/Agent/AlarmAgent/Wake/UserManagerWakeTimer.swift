import DBus
import FoundationEssentials
import Logging
import Synchronization
import AlarmModel

/// Route 2 of waking the machine: the person's systemd user manager keeps a transient timer with
/// `WakeSystem=true` (`reveille-wake.timer`) at the earliest deadline, made and replaced through
/// its D-Bus API (`org.freedesktop.systemd1.Manager` on the session bus).
///
/// The timer only wakes the machine: it triggers `reveille-wake.service`, which runs `/bin/true`;
/// the agent's own timers ring the alarm. `RemainAfterElapse=false` lets the timer go once it has
/// elapsed. A user manager needs `CAP_WAKE_ALARM` for `WakeSystem=` (systemd gives it to a local
/// login's user manager from version 254): without it the timer's start job fails (its `Result` is
/// `resources`), which is reported, and the failed unit is reset so nothing is left behind.
final class UserManagerWakeTimer: WakeRoute {
    /// The user manager's bus name.
    static let busName = "org.freedesktop.systemd1"
    /// The manager object.
    static let managerPath = "/org/freedesktop/systemd1"
    /// The manager interface.
    static let managerInterface = "org.freedesktop.systemd1.Manager"
    /// The transient timer's name.
    static let timerUnit = "reveille-wake.timer"
    /// The service the timer triggers.
    static let serviceUnit = "reveille-wake.service"
    /// The harmless program the service runs.
    static let serviceProgram = "/bin/true"

    let name = "the systemd user manager"
    var inUseSentence: String { "the systemd user manager wakes the machine (a WakeSystem timer, \(Self.timerUnit))" }

    private let connection: DBusConnection
    private let logger: Logger
    /// Whether the manager was asked to send its signals (`Subscribe`).
    private let subscribed = Mutex(false)

    /// A route through the user manager on `connection` (the session bus).
    init(connection: DBusConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    func arm(at instant: Date) async throws(WakeRouteError) {
        try await subscribe()
        await removeTimer()
        let calendar = Self.calendarSpecification(instant)
        let result: String
        do {
            result = try await startTimer(calendar: calendar)
        } catch let error as DBusError where error.name == "org.freedesktop.systemd1.UnitExists" {
            // The service the last timer triggered may still be loaded for a moment: once more.
            await removeTimer(service: true)
            do {
                result = try await startTimer(calendar: calendar)
            } catch {
                throw Self.routeError(error, doing: "making \(Self.timerUnit)")
            }
        } catch {
            throw Self.routeError(error, doing: "making \(Self.timerUnit)")
        }
        let state = await unitState()
        if result == "done", state.active != "active", state.active != "failed" {
            // Not a refusal: the instant passed meanwhile and the timer elapsed at once.
            throw .unavailable("the wake timer elapsed at once (\(calendar) has passed)")
        }
        guard result == "done", state.active == "active" else {
            let version = await managerVersion()
            await removeTimer()
            throw .refused(
                "the systemd user manager\(version.map { " (systemd \($0))" } ?? "") could not arm a WakeSystem timer "
                    + "(its start job \(result), the timer \(state.active ?? "gone")\(state.result.map { ", result \($0)" } ?? "")): "
                    + "a user manager needs CAP_WAKE_ALARM for that, which systemd gives a local login's user manager from version 254")
        }
        logger.info(
            "The systemd user manager wakes the machine for the next deadline",
            metadata: [
                "unit": "\(Self.timerUnit)", "onCalendar": "\(calendar)", "nextElapse": "\(state.nextElapse.map { "\($0)" } ?? "?")",
            ])
    }

    func disarm() async {
        await removeTimer()
    }

    // MARK: - The user manager's calls

    /// `OnCalendar=` for an instant: the UTC date and time, with microseconds when it has any.
    static func calendarSpecification(_ instant: Date) -> String {
        let microseconds = Int64((instant.timeIntervalSince1970 * 1e6).rounded(.down))
        let seconds = microseconds.floorDivided(by: 1_000_000)
        let fraction = microseconds - seconds * 1_000_000
        let day = GregorianDate(daysSinceEpoch: seconds.floorDivided(by: 86_400))
        let second = seconds.floorModulo(86_400)
        func padded(_ value: Int64, _ width: Int = 2) -> String { GregorianDate.padded(value, width) }
        var text =
            "\(padded(day.year, 4))-\(padded(day.month))-\(padded(day.day)) "
            + "\(padded(second / 3_600)):\(padded(second % 3_600 / 60)):\(padded(second % 60))"
        if fraction != 0 { text += "." + padded(fraction, 6) }
        return text + " UTC"
    }

    /// The timer's properties (`a(sv)`): the calendar instant, `WakeSystem=true`, an accuracy of
    /// 1 µs (the default is a minute), and no staying around once elapsed.
    static func timerProperties(calendar: String) -> DBusValue {
        properties([
            ("Description", .string("Wakes the machine for Reveille's next alarm")),
            ("TimersCalendar", .array(elementSignature: "(ss)", [.structure([.string("OnCalendar"), .string(calendar)])])),
            ("WakeSystem", .boolean(true)),
            ("AccuracyUSec", .uint64(1)),
            ("RemainAfterElapse", .boolean(false)),
        ])
    }

    /// The service the timer triggers (`a(sa(sv))`): `/bin/true`, collected once it has run.
    static var auxiliaryUnits: DBusValue {
        let service = properties([
            ("Description", .string("Reveille's wake-up (the agent rings the alarm)")),
            (
                "ExecStart",
                .array(
                    elementSignature: "(sasb)",
                    [.structure([.string(serviceProgram), .strings([serviceProgram]), .boolean(false)])])
            ),
            ("CollectMode", .string("inactive-or-failed")),
        ])
        return .array(elementSignature: "(sa(sv))", [.structure([.string(serviceUnit), service])])
    }

    private static func properties(_ entries: [(String, DBusValue)]) -> DBusValue {
        .array(elementSignature: "(sv)", entries.map { .structure([.string($0.0), .variant($0.1)]) })
    }

    /// Asks the manager to send its signals (`JobRemoved`), once per connection.
    private func subscribe() async throws(WakeRouteError) {
        guard !subscribed.withLock({ $0 }) else { return }
        do {
            _ = try await connection.call(
                destination: Self.busName, path: Self.managerPath, interface: Self.managerInterface, method: "Subscribe",
                timeout: .seconds(10))
        } catch {
            throw Self.routeError(error, doing: "subscribing")
        }
        subscribed.withLock { $0 = true }
    }

    /// `StartTransientUnit` of the timer and its service; the start job's result.
    private func startTimer(calendar: String) async throws -> String {
        try await runJob(
            "StartTransientUnit",
            [.string(Self.timerUnit), .string("replace"), Self.timerProperties(calendar: calendar), Self.auxiliaryUnits])
    }

    /// Stops the timer (and its service, with `service`) if it is there and clears a failed one,
    /// so the names are free again.
    private func removeTimer(service: Bool = false) async {
        for unit in service ? [Self.timerUnit, Self.serviceUnit] : [Self.timerUnit] {
            do {
                let result = try await runJob("StopUnit", [.string(unit), .string("replace")])
                logger.debug("Stopped a wake unit", metadata: ["unit": "\(unit)", "job": "\(result)"])
            } catch let error as DBusError where error.name == "org.freedesktop.systemd1.NoSuchUnit" {
            } catch {
                logger.notice("Could not stop a wake unit", metadata: ["unit": "\(unit)", "error": "\(error)"])
            }
            _ = try? await connection.call(
                destination: Self.busName, path: Self.managerPath, interface: Self.managerInterface, method: "ResetFailedUnit",
                arguments: [.string(unit)], timeout: .seconds(10))
        }
    }

    /// Calls a manager method that queues a job and returns the job's result from `JobRemoved`
    /// (`done`, `failed`, ...), subscribed before the call so it cannot be missed.
    private func runJob(_ method: String, _ arguments: [DBusValue]) async throws -> String {
        let removed = try await connection.subscribe(
            MatchRule(sender: Self.busName, path: Self.managerPath, interface: Self.managerInterface, member: "JobRemoved"))
        let reply = try await connection.call(
            destination: Self.busName, path: Self.managerPath, interface: Self.managerInterface, method: method,
            arguments: arguments, timeout: .seconds(10))
        guard let job = reply.first?.stringValue else {
            throw DBusError(name: DBusError.failed, message: "\(method) answered without a job")
        }
        return try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask {
                for await signal in removed {
                    let values = signal.arguments
                    if values.count == 4, values[1].stringValue == job { return values[3].stringValue ?? "" }
                }
                throw DBusError(name: DBusError.failed, message: "the session bus went away before job \(job) ended")
            }
            group.addTask {
                try await Task.sleep(for: .seconds(15))
                throw DBusError(name: DBusError.failed, message: "job \(job) did not end within 15 s")
            }
            defer { group.cancelAll() }
            return try await group.next() ?? ""
        }
    }

    /// The timer's state after its start job: `ActiveState`, the timer's `Result`, and when it
    /// elapses next (`NextElapseUSecRealtime`); nil where the unit is gone.
    private func unitState() async -> (active: String?, result: String?, nextElapse: UInt64?) {
        guard
            let path = try? await connection.call(
                destination: Self.busName, path: Self.managerPath, interface: Self.managerInterface, method: "GetUnit",
                arguments: [.string(Self.timerUnit)], timeout: .seconds(10)
            ).first?.stringValue
        else { return (nil, nil, nil) }
        func property(_ interface: String, _ name: String) async -> DBusValue? {
            try? await connection.call(
                destination: Self.busName, path: path, interface: "org.freedesktop.DBus.Properties", method: "Get",
                arguments: [.string(interface), .string(name)], timeout: .seconds(10)
            ).first?.unwrapped
        }
        let active = await property("org.freedesktop.systemd1.Unit", "ActiveState")?.stringValue
        let result = await property("org.freedesktop.systemd1.Timer", "Result")?.stringValue
        let next = await property("org.freedesktop.systemd1.Timer", "NextElapseUSecRealtime")?.integerValue
        return (active, result, next.map { UInt64(max(0, $0)) })
    }

    /// The manager's `Version`, for the reason a timer failed.
    private func managerVersion() async -> String? {
        try? await connection.call(
            destination: Self.busName, path: Self.managerPath, interface: "org.freedesktop.DBus.Properties", method: "Get",
            arguments: [.string(Self.managerInterface), .string("Version")], timeout: .seconds(10)
        ).first?.unwrapped.stringValue
    }

    /// A failed call as a route error: no user manager on the bus is `unavailable`, a refusal is
    /// `refused`.
    private static func routeError(_ error: any Error, doing what: String) -> WakeRouteError {
        guard let error = error as? DBusError else { return .unavailable("the systemd user manager failed \(what): \(error)") }
        switch error.name {
        case DBusError.serviceUnknown, "org.freedesktop.DBus.Error.NameHasNoOwner":
            return .unavailable("the session bus has no systemd user manager (\(busName))")
        case DBusError.accessDenied, DBusError.invalidArgs, DBusError.propertyReadOnly:
            return .refused("the systemd user manager refused \(what): \(error)")
        default:
            return .unavailable("the systemd user manager failed \(what): \(error)")
        }
    }
}
