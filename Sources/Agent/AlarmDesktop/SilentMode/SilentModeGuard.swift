import AgentRuntime
import Dispatch
import FoundationEssentials
import Logging
import Synchronization

/// Silent mode: the output the alert sounds go to is muted, or at zero volume. `status` says so;
/// with `unmuteTo` set (opt-in), the mixer is turned up to that level while an alarm that breaks
/// through rings and put back when the last one ends, by `Breakthrough`'s rules and with the same
/// journal: written before anything changes, put back only while the mixer still holds the value
/// Reveille set, replayed when the agent starts after a crash.
///
/// The mixer is read when an alert starts and when the status is asked for; it is not watched.
/// Work runs, in order, on a thread of its own (`reveille-mixer`: alsa-lib calls block briefly),
/// which sleeps between alerts.
package final class SilentModeGuard: Sendable {
    /// The mixer.
    package let mixer: OutputMixer
    /// The level (percent) the output is raised to while an alarm rings, or `nil` (opt-in off).
    package let unmuteTo: Int?
    private let journal: RestoreJournal
    private let logger: Logger
    private let queue = ThreadPool<@Sendable () -> Void>(name: "reveille-mixer", maximumThreads: 1) { $0() }
    private let machine = Mutex(Breakthrough())
    /// The alarms started here and not yet ended, kept as calls come (the machine learns of them
    /// later, on its thread): an end for any other alarm, such as every countdown's, has nothing to
    /// put back and costs no trip to that thread.
    private let started = Mutex<Set<UUID>>([])

    /// Creates the guard and puts back a level a crashed agent left raised.
    package init(mixer: OutputMixer = OutputMixer(), unmuteTo: Int?, journal: RestoreJournal, logger: Logger) {
        self.mixer = mixer
        self.unmuteTo = unmuteTo.map { min(max($0, 1), 100) }
        self.journal = journal
        self.logger = logger
        queue.submit([
            { [self] in
                guard let entry = journal.load() else { return }
                logger.notice("Putting back the output volume left raised by an agent that stopped")
                restore(entry)
            }
        ])
    }

    /// An alarm that breaks through started ringing: raise the output if it is silent (opt-in).
    package func alertStarted(_ id: UUID) {
        started.withLock { _ = $0.insert(id) }
        queue.submit([
            { [self] in
                let reading: OutputMixer.Reading?
                do {
                    reading = try mixer.read()
                } catch {
                    // Treated as not silent: nothing is raised, and the log says why.
                    logger.warning("The output's volume could not be read as an alarm started ringing", metadata: ["error": "\(error)"])
                    reading = nil
                }
                let conditions = Breakthrough.Conditions(
                    isOn: reading?.isSilent ?? false, criticalShown: false, canLift: unmuteTo != nil && reading != nil,
                    value: reading?.value)
                let actions = machine.withLock { $0.alertStarted(id, breaksThrough: true, conditions) }
                logger.debug(
                    "Read the output's volume as an alarm started ringing",
                    metadata: [
                        "alarm": "\(id)", "reading": "\(reading.map { "\($0.value) \($0.percent)%" } ?? "none")", "actions": "\(actions)",
                    ])
                if actions.contains(.lift), let reading, let unmuteTo { lift(reading, to: unmuteTo) }
            }
        ])
    }

    /// An alarm stopped ringing: put the output back after the last one.
    package func alertEnded(_ id: UUID) {
        guard started.withLock({ $0.remove(id) }) != nil else { return }
        queue.submit([
            { [self] in
                for case .restore(let entry) in machine.withLock({ $0.alertEnded(id) }) { restore(entry) }
            }
        ])
    }

    /// Puts back what was raised (on shutdown).
    package func shutDown() {
        // After what is queued: the last alert's end may still be on its way.
        let done = DispatchSemaphore(value: 0)
        queue.submit([
            { [self] in
                if case .lifted(let entry) = machine.withLock({ $0.lift }) { restore(entry) }
                done.signal()
            }
        ])
        done.wait()
    }

    /// What `reveille status` shows on its `volume` line.
    package var status: String {
        let raised = machine.withLock { $0.isLiftedNow }
        do {
            let reading = try mixer.read()
            let name = reading.soundServer.map { "\($0)'s default output" } ?? "ALSA \"\(mixer.device)\" \(reading.element)"
            if raised { return "raised while an alarm rings (\(name) at \(reading.percent)%)" }
            guard reading.isSilent else { return "audible (\(name) at \(reading.percent)%)" }
            let state = reading.unmuted ? "at zero volume" : "muted"
            if let unmuteTo { return "\(state) (\(name)): alarms turn it up to \(unmuteTo)% while they ring and put it back after" }
            return "\(state) (\(name)): alarms ring unheard; reveilled --unmute-to PERCENT turns it up while they ring"
        } catch {
            return "\(error.description); the volume is not read"
        }
    }

    private func lift(_ reading: OutputMixer.Reading, to percent: Int) {
        let lifted = reading.audible(at: percent)
        let entry = RestoreEntry(owner: "mixer", setting: "ALSA \(mixer.device) \(reading.element)", saved: reading.value, lifted: lifted)
        do {
            try journal.record(entry)
            try mixer.write(lifted)
            machine.withLock { $0.didLift(entry) }
            logger.info(
                "The output was silent: turned up while the alarm rings", metadata: ["was": "\(reading.value)", "now": "\(lifted)"])
        } catch {
            journal.clear()
            logger.error("The silent output could not be turned up", metadata: ["error": "\(error)"])
        }
    }

    private func restore(_ entry: RestoreEntry) {
        do {
            let now = try mixer.read()
            if now.value == entry.lifted {
                try mixer.write(entry.saved)
                logger.info("Output volume put back", metadata: ["value": "\(entry.saved)"])
            } else {
                logger.info("The output volume was changed meanwhile: left as it is", metadata: ["value": "\(now.value)"])
            }
            journal.clear()
        } catch {
            logger.error("The output volume could not be put back; trying again at the next start", metadata: ["error": "\(error)"])
        }
    }
}
