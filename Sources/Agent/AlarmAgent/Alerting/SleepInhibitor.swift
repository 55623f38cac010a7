import DBus
import FoundationEssentials
import Logging
import Synchronization

/// Keeps the machine awake while alarms ring: a logind inhibitor (`Inhibit`, mode `block`) for
/// sleep, idle and the lid switch, taken when the first alert starts and released the moment the
/// last one ends.
///
/// After a wake from suspend, some desktops put the machine to sleep again within half a minute
/// when no one touches it; an alarm ringing must not be cut short that way. logind holds the
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
        let request = state.withLock { state -> Bool in
            state.ringing.insert(id)
            guard state.held == nil, !state.requesting else { return false }
            state.requesting = true
            return true
        }
        if request { Task { await take() } }
    }

    /// An alert ended (stopped, snoozed, timed out, cancelled): releases the inhibitor when it was
    /// the last one ringing.
    package func alertEnded(_ id: UUID) {
        let released = state.withLock { state -> String? in
            guard state.ringing.remove(id) != nil, state.ringing.isEmpty, let held = state.held else { return nil }
            state.held = nil
            return held.what
        }
        if let released { logger.info("Released the sleep inhibitor: no alarm rings", metadata: ["what": "\(released)"]) }
    }

    /// What is held now, for `reveille status`.
    package var status: String {
        state.withLock { state in
            if let held = state.held { return "held while alarms ring (\(held.what))" }
            if let problem = state.problem { return "not held: \(problem)" }
            return state.ringing.isEmpty ? "none (no alarm rings)" : "being taken"
        }
    }

    /// Calls logind's `Inhibit`, keeps the descriptor while an alert still rings, and drops it at
    /// once when none does any more.
    private func take() async {
        guard let connection = state.withLock({ $0.systemBus?() }) else {
            return finish(nil, problem: "the system bus cannot be reached")
        }
        var failure = ""
        for what in [Self.fullInhibition, Self.fallbackInhibition] {
            do {
                let reply = try await connection.call(
                    destination: "org.freedesktop.login1", path: "/org/freedesktop/login1",
                    interface: "org.freedesktop.login1.Manager", method: "Inhibit",
                    arguments: [.string(what), .string("Reveille"), .string("An alarm is ringing"), .string("block")],
                    timeout: .seconds(10))
                guard let descriptor = reply.first?.fileDescriptorValue else {
                    return finish(nil, problem: "logind's answer carried no file descriptor")
                }
                return finish((descriptor, what), problem: nil)
            } catch {
                failure = "\(error)"
            }
        }
        finish(nil, problem: "logind refused it: \(failure)")
    }

    private func finish(_ taken: (descriptor: UnixFileDescriptor, what: String)?, problem: String?) {
        // Kept only while an alert still rings; otherwise dropped here, which closes it.
        let kept = state.withLock { state -> Bool in
            state.requesting = false
            state.problem = problem
            guard let taken, !state.ringing.isEmpty else { return false }
            state.held = taken
            return true
        }
        if kept, let taken {
            logger.info("Holding a sleep inhibitor while alarms ring", metadata: ["what": "\(taken.what)"])
        } else if let problem {
            logger.notice("No sleep inhibitor while alarms ring", metadata: ["reason": "\(problem)"])
        }
    }
}
