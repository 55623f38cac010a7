import AgentRuntime
import AlarmDesktop
import AlarmModel
import FoundationEssentials
import Logging
import Synchronization

/// Rings the person's phone when an alert is still ringing a while after it started: the opt-in
/// backup for an alarm nobody answers (KDE Connect's or GSConnect's find-my-phone).
///
/// Each alert that starts arms a one-shot wait of `after`: a task sleeping on the continuous
/// clock, which in the agent waits on the worker pool's boot-clock timerfd (``WorkerPool``), so
/// nothing polls and the wait goes on through suspend. An alert that ends first (stopped, snoozed,
/// timed out, cancelled) cancels its wait and never rings the phone. When the wait ends with the
/// alert still ringing, every reachable phone is rung once, and `onRing` is told which rang
/// (an empty list when none could be) as "Pixel 7 (KDE Connect)", so the agent can write it into
/// the alert's history.
///
/// An alert that began before the agent started (it was restarted while the alarm rang) waits
/// only what is left of `after` since the alert began, and rings no phone when `alreadyRang`
/// says its phones rang before the restart.
package final class PhoneBackup: Sendable {
    /// How long an alert rings before the phones ring too.
    package let after: Duration
    private let ring: @Sendable () async -> PhoneRingReport
    private let onRing: @Sendable (UUID, [String]) -> Void
    private let alreadyRang: @Sendable (UUID, Date) async -> Bool
    private let now: @Sendable () -> Date
    private let logger: Logger?
    private let state = Mutex(State())

    private struct State {
        /// The alerts waiting for their phone ring: the wait's token and its task.
        var waiting: [UUID: (token: UInt64, task: Task<Void, Never>)] = [:]
        /// The token of the next wait.
        var nextToken: UInt64 = 0
        /// Whether `stop()` ran: nothing is armed after it.
        var stopped = false
    }

    /// A backup ringing through `ringer` once an alert has rung for `after`; `onRing` gets the
    /// alert's id and the names of the phones that rang, and `alreadyRang` says whether the
    /// alert of an alarm that began at an instant had its phones rung already (its history).
    package convenience init(
        after: Duration, ringer: PhoneRinger, logger: Logger? = nil,
        alreadyRang: @escaping @Sendable (UUID, Date) async -> Bool = { _, _ in false },
        onRing: @escaping @Sendable (UUID, [String]) -> Void
    ) {
        self.init(after: after, ring: { await ringer.ringAll() }, logger: logger, alreadyRang: alreadyRang, onRing: onRing)
    }

    /// A backup calling `ring` once an alert has rung for `after` (the seam tests use); `onRing`
    /// gets the alert's id and the names of the phones that rang; `alreadyRang` says whether an
    /// alert that began at an instant had its phones rung already; `now` reads the wall clock
    /// alerts' beginnings are measured on.
    package init(
        after: Duration, ring: @escaping @Sendable () async -> PhoneRingReport, logger: Logger? = nil,
        alreadyRang: @escaping @Sendable (UUID, Date) async -> Bool = { _, _ in false },
        now: @escaping @Sendable () -> Date = { Date() },
        onRing: @escaping @Sendable (UUID, [String]) -> Void
    ) {
        self.after = after
        self.ring = ring
        self.logger = logger
        self.alreadyRang = alreadyRang
        self.now = now
        self.onRing = onRing
    }

    /// An alert started ringing now: arms its wait (replacing an earlier one of the same alert).
    package func alertStarted(_ id: UUID) { arm(id, startedAt: nil) }

    /// An alert that began ringing at `startedAt` (before the agent started, for one that rang
    /// through a restart): arms a wait of what is left of `after` since then, at once when none
    /// is left, replacing an earlier wait of the same alert.
    package func alertStarted(_ id: UUID, startedAt: Date) { arm(id, startedAt: startedAt) }

    private func arm(_ id: UUID, startedAt: Date?) {
        // A clock set back since the alert began counts as no time rung, and nothing waits longer
        // than the whole wait.
        let rung = startedAt.map { Duration.seconds(min(max(0, now().timeIntervalSince($0)), after.timeInterval)) } ?? .zero
        let delay = after - rung
        let replaced = state.withLock { state -> Task<Void, Never>? in
            guard !state.stopped else { return nil }
            state.nextToken += 1
            let token = state.nextToken
            let task = Task { [weak self] in
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    return  // Cancelled: the alert ended first.
                }
                await self?.fire(id, token: token, startedAt: startedAt)
            }
            return state.waiting.updateValue((token, task), forKey: id)?.task
        }
        replaced?.cancel()
        logger?.debug("Waiting to ring the phones for an alert", metadata: ["alarm": "\(id)", "wait": "\(delay)"])
    }

    /// An alert stopped ringing: its wait is cancelled and its phones are not rung.
    package func alertEnded(_ id: UUID) {
        state.withLock { $0.waiting.removeValue(forKey: id) }?.task.cancel()
    }

    /// Cancels every wait; later alerts arm none.
    package func stop() {
        let tasks = state.withLock { state -> [Task<Void, Never>] in
            state.stopped = true
            defer { state.waiting = [:] }
            return state.waiting.values.map(\.task)
        }
        for task in tasks { task.cancel() }
    }

    /// Whether an alert's wait is armed now (for tests and `status`).
    package func isWaiting(for id: UUID) -> Bool {
        state.withLock { $0.waiting[id] != nil }
    }

    /// The wait of `id` ended: rings the phones when that wait is still the alert's (the alert
    /// did not end, nor start again, meanwhile).
    private func fire(_ id: UUID, token: UInt64, startedAt: Date?) async {
        let current = state.withLock { state -> Bool in
            guard state.waiting[id]?.token == token else { return false }
            state.waiting[id] = nil
            return true
        }
        guard current else {
            logger?.debug("The phones' wait ended for an alert that ended or started again; not ringing", metadata: ["alarm": "\(id)"])
            return
        }
        logger?.debug("The phones' wait ended with the alert ringing", metadata: ["alarm": "\(id)"])
        if let startedAt, await alreadyRang(id, startedAt) {
            logger?.info("The phones already rang for this alert before the agent started; not again", metadata: ["alarm": "\(id)"])
            return
        }
        logger?.debug("Ringing the phones", metadata: ["alarm": "\(id)"])
        let report = await ring()
        for failure in report.failed {
            logger?.warning(
                "A phone did not ring", metadata: ["alarm": "\(id)", "phone": "\(failure.phone)", "error": "\(failure.error)"])
        }
        for failure in report.unlisted {
            logger?.warning(
                "A phone service did not list its phones",
                metadata: ["alarm": "\(id)", "service": "\(failure.service.displayName)", "error": "\(failure.error)"])
        }
        let rang = report.rang.map(\.description)
        logger?.info("Rang the phone as a backup", metadata: ["alarm": "\(id)", "rang": "\(rang.joined(separator: ", "))"])
        onRing(id, rang)
    }
}

extension PhoneBackup: RingingObserver {}
