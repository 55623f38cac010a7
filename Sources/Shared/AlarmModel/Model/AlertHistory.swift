import FoundationEssentials

/// How an alert ended.
public enum AlertOutcome: String, Codable, Hashable, Sendable, CaseIterable {
    /// A person stopped it.
    case stopped
    /// A person snoozed or repeated it.
    case snoozed
    /// Nobody answered before the ring time-out.
    case timedOut
    /// It never rang: its instant passed while nothing ran, beyond the grace window.
    case missed
    /// The alarm was cancelled (or replaced) while it rang.
    case cancelled
}

/// One alert in the history: when it was due, when it rang, and how it ended.
public struct AlertHistoryEntry: Codable, Hashable, Sendable {
    /// The alarm it belongs to.
    public var alarmID: UUID
    /// The alarm's title at the time.
    public var title: String
    /// The instant it was due.
    public var scheduledAt: Date
    /// The instant it began to ring; `nil` when it was missed.
    public var alertedAt: Date?
    /// The instant it ended; `nil` while it still rings.
    public var endedAt: Date?
    /// How it ended; `nil` while it still rings.
    public var outcome: AlertOutcome?
    /// For missed alerts: how many occurrences this entry stands for (several missed days are
    /// recorded once); 1 otherwise.
    public var count: Int
    /// The phones rung because nobody answered the alert in time (the agent's opt-in phone backup),
    /// by name; empty when it tried and none was reachable; `nil` when it did not try.
    public var phonesRung: [String]?

    /// Creates a history entry.
    public init(
        alarmID: UUID, title: String, scheduledAt: Date, alertedAt: Date?, endedAt: Date?,
        outcome: AlertOutcome?, count: Int = 1, phonesRung: [String]? = nil
    ) {
        self.phonesRung = phonesRung
        self.alarmID = alarmID
        self.title = title
        self.scheduledAt = scheduledAt
        self.alertedAt = alertedAt
        self.endedAt = endedAt
        self.outcome = outcome
        self.count = count
    }

    /// How late it rang, in seconds; `nil` when it was missed.
    public var lateness: TimeInterval? {
        alertedAt.map { $0.timeIntervalSince(scheduledAt) }
    }
}
