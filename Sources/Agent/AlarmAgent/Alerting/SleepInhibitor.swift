import DBus
import FoundationEssentials
import Logging
import Synchronization

/// Keeps the machine awake while alarms ring, and from the wake-ahead moment until an alarm due
/// rings: a logind inhibitor (`Inhibit`, mode `block`) for sleep, idle and the lid switch, taken
/// when the first alert starts (or `WakeAhead` says an alarm is due, `alarmDue(true)`) and
/// released the moment nothing needs it any more.
///
/// After a wake from suspend, some desktops put the machine to sleep again within half a minute
/// when no one touches it, and logind does when the lid is still closed; neither an alarm
/// ringing nor one about to ring must be cut short that way. logind holds the
/// inhibitor for as long as the file descriptor its `Inhibit` returns stays open: releasing is
/// closing it. Where the lid switch may not be inhibited (polkit), sleep and idle are asked alone.
/// Without a system bus, or where logind refuses, alarms ring all the same, and `status` says why
/// nothing is held.
package final class SleepInhibitor: Sendable {
    /// What is inhibited, first choice and fallback.
    package static let fullInhibition = "sleep:idle:handle-lid-switch"
    static let fallbackInhibition = "sleep:idle"

    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        /// The alerts ringing now.
        var ringing: Set<UUID> = []
        /// Whether an alarm is due within the wake-ahead margin.
        var due = false
        /// Whether anything needs the inhibitor.
        var needed: Bool { due || !ringing.isEmpty }
        /// The inhibitor, while held: closing it releases it.
        var held: (descriptor: UnixFileDescriptor, what: String)?
        /// Whether an `Inhibit` call is under way.
        var requesting = false
        /// The system bus now, or nil.
        var systemBus: (@Sendable () -> DBusConnection?)?
        /// Why nothing is held, when the last try failed.
        var problem: String?
    }

    /// Creates the inhibitor; `setSystemBus` tells it where logind is.
    package init(logger: Logger) {
        self.logger = logger
    }

    /// Where to reach logind: the agent's system bus connection, whenever it has one.
    package func setSystemBus(_ provider: @escaping @Sendable () -> DBusConnection?) {
        state.withLock { $0.systemBus = provider }
    }

    /// An alert started ringing: takes the inhibitor if none is held.
    package func alertStarted(_ id: UUID) {
        change { $0.ringing.insert(id) }
    }

    /// An alert ended (stopped, snoozed, timed out, cancelled): releases the inhibitor when it was
    /// the last one ringing and no alarm is due.
    package func alertEnded(_ id: UUID) {
        change { $0.ringing.remove(id) }
    }

    /// An alarm is due within the wake-ahead margin (`true`: takes the inhibitor if none is held),
    /// or no longer is (`false`: releases it unless an alert rings).
    package func alarmDue(_ due: Bool) {
        change { $0.due = due }
    }

    /// Applies `update` to the state, then takes the inhibitor when it is needed and neither held
    /// nor being taken, or releases it when it is held and no longer needed.
    private func change(_ update: (inout State) -> Void) {
        enum Step { case take, release(String), none }
        let step = state.withLock { state -> Step in
            update(&state)
            if state.needed {
                guard state.held == nil, !state.requesting else { return .none }
                state.requesting = true
                return .take
            }
            guard let held = state.held else { return .none }
            state.held = nil
            return .release(held.what)
        }
        switch step {
        case .take: Task { await take() }
        case .release(let what): logger.info("Released the sleep inhibitor: no alarm rings or is due", metadata: ["what": "\(what)"])
        case .none: break
        }
    }

    /// What is held now, for `reveille status`.
    package var status: String {
        state.withLock { state in
            if let held = state.held {
                return state.ringing.isEmpty ? "held until the alarm due has rung (\(held.what))" : "held while alarms ring (\(held.what))"
            }
            if let problem = state.problem { return "not held: \(problem)" }
            return state.needed ? "being taken" : "none (no alarm rings or is due)"
        }
    }

    /// Calls logind's `Inhibit`, keeps the descriptor while an alert still rings or an alarm is
    /// due, and drops it at once when not.
    private func take() async {
        let why = state.withLock { $0.ringing.isEmpty } ? "An alarm is about to ring" : "An alarm is ringing"
        guard let connection = state.withLock({ $0.systemBus?() }) else {
            return finish(nil, problem: "the system bus cannot be reached")
        }
        var failure = ""
        for what in [Self.fullInhibition, Self.fallbackInhibition] {
            for attempt in 1... {
                do {
                    let reply = try await connection.call(
                        destination: "org.freedesktop.login1", path: "/org/freedesktop/login1",
                        interface: "org.freedesktop.login1.Manager", method: "Inhibit",
                        arguments: [.string(what), .string("Reveille"), .string(why), .string("block")],
                        timeout: .seconds(10))
                    guard let descriptor = reply.first?.fileDescriptorValue else {
                        return finish(nil, problem: "logind's answer carried no file descriptor")
                    }
                    return finish((descriptor, what), problem: nil)
                } catch let error as DBusError where error.name == Self.operationInProgress && attempt < Self.busyAttempts {
                    // Right at a resume (the wake) logind still finishes the sleep it was asked
                    // for, and refuses a sleep inhibitor until it has: asked again shortly.
                    failure = "\(error)"
                    try? await Task.sleep(for: Self.busyRetryDelay)
                    guard state.withLock({ $0.needed }) else { return finish(nil, problem: nil) }
                } catch {
                    failure = "\(error)"
                    break
                }
            }
        }
        finish(nil, problem: "logind refused it: \(failure)")
    }

    /// logind's answer while it still carries out a suspend (right at the resume that ends it).
    static let operationInProgress = "org.freedesktop.login1.OperationInProgress"
    /// How often, and how far apart, an inhibitor refused that way is asked for again: for up to
    /// 10 s (a resume under emulation took over a second to finish).
    static let busyAttempts = 40
    static let busyRetryDelay: Duration = .milliseconds(250)

    private func finish(_ taken: (descriptor: UnixFileDescriptor, what: String)?, problem: String?) {
        // Kept only while still needed; otherwise dropped here, which closes it.
        let kept = state.withLock { state -> Bool in
            state.requesting = false
            state.problem = problem
            guard let taken, state.needed else { return false }
            state.held = taken
            return true
        }
        if kept, let taken {
            logger.info("Holding a sleep inhibitor while alarms ring or are due", metadata: ["what": "\(taken.what)"])
        } else if let problem {
            logger.notice("No sleep inhibitor while alarms ring or are due", metadata: ["reason": "\(problem)"])
        }
    }
}
