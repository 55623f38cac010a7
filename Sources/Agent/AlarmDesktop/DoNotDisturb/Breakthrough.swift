import FoundationEssentials

/// Decides, per ringing alert, how it gets through do-not-disturb: shown as it is, shown after
/// do-not-disturb is lifted, or held back until it ends. A value type: events in, actions out;
/// `DoNotDisturbGuard` carries the actions out and reports back.
///
/// Rules (the issue's, and AlarmKit's):
/// - An alert with `breakthrough` (the default) is shown at once. Where do-not-disturb is on and the
///   desktop hides critical notifications during it, it is lifted first (`.lift`), once, for all
///   the alerts ringing, and put back (`.restore`) when the last of them ends.
/// - An alert without `breakthrough` is held back (`.hold`) while do-not-disturb is on and shown
///   (`.release`) when it ends.
/// - Where critical notifications stop showing while alerts ring (GNOME's screen locks), the
///   alerts are posted again (`.post`), after any lift, so the desktop shows them as new.
/// - The person wins: once the setting is seen holding anything but the value Reveille set, it is
///   theirs (`.forget`: the journal goes, nothing is restored, nothing is lifted again until every
///   alert has ended).
package struct Breakthrough: Sendable, Hashable {
    /// What the desktop's do-not-disturb is, as last read.
    package struct Conditions: Sendable, Hashable {
        /// Whether do-not-disturb is on.
        package var isOn: Bool
        /// Whether a critical notification is shown while it is on.
        package var criticalShown: Bool
        /// Whether Reveille can turn it off (a backend that can write the setting).
        package var canLift: Bool
        /// The setting's value, when read.
        package var value: DoNotDisturbValue?

        /// Creates conditions.
        package init(isOn: Bool, criticalShown: Bool, canLift: Bool, value: DoNotDisturbValue?) {
            self.isOn = isOn
            self.criticalShown = criticalShown
            self.canLift = canLift
            self.value = value
        }

        /// Nothing known: no server, or one whose do-not-disturb is not read.
        package static let unknown = Conditions(isOn: false, criticalShown: true, canLift: false, value: nil)

        /// Whether an alert needs do-not-disturb lifted to be seen.
        var needsLift: Bool { isOn && !criticalShown && canLift }
    }

    /// Where the lift stands.
    package enum Lift: Sendable, Hashable {
        /// Do-not-disturb is as the person left it.
        case none
        /// Reveille lifted it; the entry says from what, to what.
        case lifted(RestoreEntry)
        /// Reveille lifted it, and the person changed it since: theirs now.
        case takenOver
    }

    /// What to do.
    package enum Action: Sendable, Hashable {
        /// Journal the value, then lift do-not-disturb; report with `didLift` or `liftFailed`.
        case lift
        /// Show the alert now.
        case post(UUID)
        /// Keep the alert back: do-not-disturb is on and it does not break through.
        case hold(UUID)
        /// Show a held alert: do-not-disturb ended.
        case release(UUID)
        /// Put the setting back to `entry.saved` if it still holds `entry.lifted`; clear the journal.
        case restore(RestoreEntry)
        /// The person took the setting over: clear the journal, restore nothing.
        case forget
    }

    /// The alerts ringing that break through.
    package private(set) var breaking: Set<UUID> = []
    /// The alerts held back.
    package private(set) var held: Set<UUID> = []
    /// Where the lift stands.
    package private(set) var lift: Lift = .none
    /// The conditions last seen.
    package private(set) var conditions: Conditions = .unknown

    /// A machine with nothing ringing.
    package init() {}

    /// An alert started ringing.
    package mutating func alertStarted(_ id: UUID, breaksThrough: Bool, _ now: Conditions) -> [Action] {
        conditions = now
        guard breaksThrough else {
            // The person's do-not-disturb is on (even while lifted for other alerts): wait.
            guard now.isOn || isLiftedNow else { return [.post(id)] }
            breaking.remove(id)
            held.insert(id)
            return [.hold(id)]
        }
        held.remove(id)
        breaking.insert(id)
        if lift == .none, now.needsLift { return [.lift, .post(id)] }
        return [.post(id)]
    }

    /// The lift was carried out, as `entry` says (written to the journal before).
    package mutating func didLift(_ entry: RestoreEntry) {
        lift = .lifted(entry)
        conditions.isOn = false
        conditions.value = entry.lifted
    }

    /// The lift could not be carried out: the alert is shown anyway (the sound rings regardless).
    package mutating func liftFailed() {}

    /// An alert ended (stopped, snoozed, timed out, cancelled).
    package mutating func alertEnded(_ id: UUID) -> [Action] {
        held.remove(id)
        guard breaking.remove(id) != nil, breaking.isEmpty else { return [] }
        defer { lift = .none }
        if case .lifted(let entry) = lift { return [.restore(entry)] }
        return []
    }

    /// The desktop's do-not-disturb was read again after a change.
    package mutating func observed(_ now: Conditions) -> [Action] {
        let before = conditions
        conditions = now
        var actions: [Action] = []
        switch lift {
        case .lifted(let entry):
            if let value = now.value, value != entry.lifted {
                lift = .takenOver
                actions.append(.forget)
            }
        case .none:
            // Still on as it was, but critical notifications stopped showing (GNOME's screen
            // locked): lift now. Do-not-disturb turned on during a ring is the person's choice.
            if !breaking.isEmpty, before.isOn, now.needsLift { actions.append(.lift) }
        case .takenOver:
            break
        }
        // Critical notifications stopped showing while alerts ring (GNOME's screen locked): post
        // them again, in place, after any lift. GNOME Shell lists on its lock screen only
        // notifications not yet seen, and lights it up for a new one only while banners are on:
        // posted again, an alert whose banner was seen before the lock counts as new, so it is
        // listed there, and its banner with Stop and Snooze comes back after unlocking.
        if before.criticalShown, !now.criticalShown, !breaking.isEmpty {
            actions += breaking.sorted { $0.uuidString < $1.uuidString }.map { .post($0) }
        }
        if !now.isOn, !isLiftedNow {
            // The person's do-not-disturb ended: show what waited.
            for id in held.sorted(by: { $0.uuidString < $1.uuidString }) { actions.append(.release(id)) }
            held = []
        }
        return actions
    }

    /// Whether do-not-disturb is lifted by Reveille right now.
    package var isLiftedNow: Bool {
        if case .lifted = lift { return true }
        return false
    }
}
